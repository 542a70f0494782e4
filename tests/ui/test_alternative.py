"""The best other placement's curve, dashed on each plot where the scenario spills, named in the legend;
its data are the core's."""

from __future__ import annotations

import numpy as np

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.core.curves import alternative
from advisor.core.scenario import Scenario, Workload
from advisor.session import Session
from advisor.ui.main_window import MainWindow
from advisor.ui.plots.base import TokPlot


def use(window: MainWindow, hw: str, model: str, context: int, offload: str = "layers") -> None:
    cat = window.store.catalog
    s = Scenario(
        hardware=to_hardware(cat.hardware[hw]),
        model=to_model(cat.models[model]),
        quant=to_quant(cat.quants["q4_k_m"]),
        workload=Workload(context=context, offload=offload),  # type: ignore[arg-type]
    )
    assert window.store.set_session(Session(scenario=s, hardware_id=hw, model_id=model, quant_id="q4_k_m"), "Pick")


def legend_names(plot: TokPlot) -> list[str]:
    return [label.text for _sample, label in plot.legend.items]


def test_layer_offload_of_qwen3_30b_draws_experts_first_dashed(window: MainWindow) -> None:
    use(window, "rtx-4060-ti-16gb", "qwen3-30b-a3b", 32768)
    snap = window.store.snapshot
    plot = window.plots["context"]
    alt = snap.alternatives["context"]
    assert alt is not None and alt.offload == "experts"
    line = plot.alternative
    x, y = line.data_xy
    drawn = np.isfinite(y)
    assert drawn.sum() >= 2 and line._runs  # painted, not just held
    # the drawn points are the core's alternative sweep, on the chosen curve's x
    core = alternative(snap.session.scenario, snap.curves["context"])
    assert core is not None
    assert np.allclose(y[drawn], core.curve.decode[drawn]) and np.array_equal(x, snap.curves["context"].x)
    i = int(np.searchsorted(x, 32768))
    assert y[i] > snap.curves["context"].decode[i]  # experts first is faster at 32k
    assert "experts (--n-cpu-moe)" in legend_names(plot)
    assert "with experts (--n-cpu-moe)" in plot.readout_text(i)
    # the pen is dashed, unlike the chosen line
    assert line.pen.style() != plot.line.pen.style()


def test_a_model_that_fits_draws_no_alternative(window: MainWindow) -> None:
    use(window, "rtx-4060-ti-16gb", "qwen3-30b-a3b", 32768)
    assert "experts (--n-cpu-moe)" in legend_names(window.plots["context"])
    use(window, "rtx-4060-ti-16gb", "qwen3-0.6b", 32768)
    plot = window.plots["context"]
    assert window.store.snapshot.alternatives["context"] is None
    assert not np.isfinite(plot.alternative.data_xy[1]).any() and not plot.alternative._runs
    assert not any("--n-cpu-moe" in n or "-nkvo" in n for n in legend_names(plot))


def test_undo_brings_the_alternative_back(window: MainWindow) -> None:
    use(window, "rtx-3090", "qwen3-32b", 8192)
    plot = window.plots["context"]
    assert "KV in host RAM (-nkvo)" in legend_names(plot)  # a dense model: the KV cache on the host
    window.store.update("hardware", "Big card", memory_gb=80.0)  # everything fits: no alternative
    assert not plot.alternative._runs
    window.store.undo()
    assert plot.alternative._runs and "KV in host RAM (-nkvo)" in legend_names(plot)
