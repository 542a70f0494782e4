"""Curves along an axis: the best other placement's sweep where the chosen one spills (computed here, drawn
by the window), and where weights stream from disk."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.curves import alternative, curve
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware
from advisor.core.scenario import Scenario, Workload

CAT = shipped_catalog()
Q4 = to_quant(CAT.quants["q4_k_m"])


def _scenario(
    hw: str, model: str, offload: str = "layers", context: int = 32768, host_gb: float | None = None
) -> Scenario:
    hardware = to_hardware(CAT.hardware[hw])
    if host_gb is not None:
        hardware = Hardware.model_validate(hardware.model_dump() | {"host_memory_gb": host_gb})
    return Scenario(
        hardware=hardware,
        model=to_model(CAT.models[model]),
        quant=Q4,
        workload=Workload(context=context, offload=offload),
    )  # type: ignore[arg-type]


def test_layer_offload_of_a_moe_shows_experts_first_faster_with_the_same_sweep() -> None:
    s = _scenario("rtx-4060-ti-16gb", "qwen3-30b-a3b")
    xs = np.array([8192.0, 32768.0, 65536.0])
    chosen = curve(s, "context", x=xs)
    alt = alternative(s, chosen)
    assert alt is not None and alt.offload == "experts" and "--n-cpu-moe" in alt.label
    assert np.array_equal(alt.curve.x, xs)
    assert alt.shown.all()  # the chosen spills at every x here, and experts first differs
    assert (alt.curve.decode > chosen.decode).all()
    # the same figure the estimate gives with --offload experts at that context
    experts = evaluate(s.model_copy(update={"workload": s.workload.model_copy(update={"offload": "experts"})}))
    assert alt.curve.decode[1] == pytest.approx(experts.decode_tok_s, rel=1e-9)


def test_no_alternative_where_nothing_spills_or_there_is_one_pool() -> None:
    small = _scenario("rtx-4060-ti-16gb", "qwen3-0.6b")
    c = curve(small, "context")
    assert c.fits.all() and alternative(small, c) is None
    cpu = next(k for k, h in CAT.hardware.items() if to_hardware(h).kind.value == "cpu")
    on_cpu = _scenario(cpu, "qwen3-30b-a3b")
    assert alternative(on_cpu, curve(on_cpu, "params")) is None


def test_a_dense_model_never_gets_experts_first_and_kv_on_the_host_is_slower() -> None:
    s = _scenario("rtx-3090", "qwen3-32b", context=8192)
    c = curve(s, "context")
    alt = alternative(s, c)
    assert alt is not None and alt.offload == "kv"
    assert not alt.shown[c.fits].any()  # drawn only where the chosen placement spills
    spilled = alt.shown
    assert spilled.any() and (alt.curve.decode[spilled] < c.decode[spilled]).all()


def test_under_auto_the_alternative_is_not_the_placement_auto_picks() -> None:
    s = _scenario("rtx-4060-ti-16gb", "qwen3-30b-a3b", offload="auto")
    c = curve(s, "context")
    picked = evaluate(s).placement
    alt = alternative(s, c)
    assert picked is not None and alt is not None
    assert alt.offload != picked.name
    # auto is the fastest that runs: the alternative is nowhere faster than it
    assert (alt.curve.decode[alt.shown] <= c.decode[alt.shown] * (1 + 1e-9)).all()


def test_weights_beyond_host_ram_stream_from_disk_along_the_axes() -> None:
    s = _scenario("rtx-3090", "deepseek-v3", context=8192, host_gb=64.0)
    r = evaluate(s)
    assert r.placement is not None and r.placement.weights_disk_gb > 0
    ctx = curve(s, "context")
    assert ctx.from_disk[ctx.runs].all() and ctx.disk_x == ctx.x[0]
    params = curve(s, "params")
    assert params.disk_x is not None and params.cliff_x is not None
    assert params.cliff_x < params.disk_x < s.model.total_params_b  # a smaller model fits host RAM
    assert not params.from_disk[params.x < params.disk_x].any()
    fits = curve(_scenario("rtx-3090", "qwen3-32b", context=8192), "context")
    assert fits.disk_x is None and not fits.from_disk.any()
