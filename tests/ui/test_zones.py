"""The zones along a plot's x axis: the offload cliff, "streams from disk" where weights exceed host RAM,
and where nothing runs, each from the curve's own boundaries."""

from __future__ import annotations

import pyqtgraph as pg

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.core.curves import curve
from advisor.core.hardware import Hardware
from advisor.core.scenario import Scenario, Workload
from advisor.session import Session
from advisor.ui import theme
from advisor.ui.main_window import MainWindow
from advisor.ui.plots.geometry import log10
from advisor.ui.plots.zones import DISK_TEXT, zones


def deepseek(window: MainWindow, host_gb: float = 64.0) -> Scenario:
    cat = window.store.catalog
    hw = to_hardware(cat.hardware["rtx-3090"])  # a 24 GB card
    s = Scenario(
        hardware=Hardware.model_validate(hw.model_dump() | {"host_memory_gb": host_gb}),
        model=to_model(cat.models["deepseek-v3"]),
        quant=to_quant(cat.quants["q4_k_m"]),
        workload=Workload(context=8192),
    )  # type: ignore[arg-type]
    assert window.store.set_session(Session(scenario=s, model_id="deepseek-v3", quant_id="q4_k_m"), "Pick")
    return s


def disk_spans(spans: list) -> list:  # type: ignore[type-arg]
    return [sp for sp in spans if sp[2] is theme.DISK_BRUSH]


def test_deepseek_v3_on_a_24gb_card_with_64gb_ram_shades_the_disk_zone(window: MainWindow) -> None:
    s = deepseek(window)
    r = window.store.snapshot.result
    assert r.placement is not None and r.placement.weights_disk_gb > 0
    for axis in ("context", "params"):
        plot = window.plots[axis]
        c = window.store.snapshot.curves[axis]
        assert c.disk_x is not None
        (span,) = disk_spans(plot.cliff.spans)
        assert span[0] == log10(c.disk_x)
        # inside the cliff's zone: weights reach disk only after they spill past fast memory
        assert plot.cliff_start() is not None and plot.cliff_start() <= span[0]  # type: ignore[operator]
    # on the model-size axis the zone starts where weights outgrow host RAM: below DeepSeek's size
    params = window.store.snapshot.curves["params"]
    assert params.disk_x is not None and params.disk_x < s.model.total_params_b
    texts = [lab.text.strip() for lab in window.plots["context"].labels.labels]
    assert DISK_TEXT in texts
    # the scenario's own point (well under 1 tok/s) stays in view
    lo = window.plots["context"].vb.viewRange()[1][0]
    assert r.decode_tok_s is not None and lo < log10(r.decode_tok_s)


def test_more_host_ram_moves_the_disk_zone_right_and_a_model_that_fits_has_none(window: MainWindow) -> None:
    deepseek(window, 64.0)
    at_64 = window.store.snapshot.curves["params"].disk_x
    deepseek(window, 256.0)
    at_256 = window.store.snapshot.curves["params"].disk_x
    assert at_64 is not None and at_256 is not None and at_256 > at_64
    assert window.store.update("model", "Small", total_params_b=8.0, active_params_b=8.0)
    c = window.store.snapshot.curves["context"]
    assert c.disk_x is None and not disk_spans(window.plots["context"].cliff.spans)


def test_zone_labels_stay_inside_their_zones() -> None:
    cat_s = Scenario(workload=Workload(context=8192))
    c = curve(cat_s, "params")
    spans, labels = zones(c, log10(float(c.x[-1])) + 1, 3.0, pg.mkPen("r"))
    assert [lab.zone is not None for lab in labels] == [True] * len(labels)
    for lab in labels:
        assert lab.zone is not None and lab.x == lab.zone[0] < lab.zone[1]
    kinds = [sp[2] for sp in spans]
    assert (theme.DISK_BRUSH in kinds) == (c.disk_x is not None)
