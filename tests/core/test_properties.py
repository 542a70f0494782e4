"""Properties that must hold for every input the models accept."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.core.curves import Axis, curve, curve_key, with_marker
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.model import ModelArch
from advisor.core.quant import KVPrecision, Quant
from advisor.core.result import Result
from advisor.core.scenario import Scenario, Speculative, Workload

pos = st.floats(min_value=0.05, max_value=20_000, allow_nan=False)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    kind = draw(st.sampled_from(list(HardwareClass)))
    bandwidth = draw(st.floats(10, 10_000))
    hw = Hardware(
        kind=kind,
        memory_gb=draw(st.floats(1, 2000)),
        bandwidth_gbps=bandwidth,
        fp16_tflops=draw(st.floats(0.5, 5000)),
        gpu_memory_fraction=draw(st.floats(0.3, 1.0)) if kind is HardwareClass.UNIFIED else 1.0,
        # The host is the slow pool: were it faster, spilling would speed things up and monotonicity
        # in context would not hold (nor would it describe a real machine).
        host_memory_gb=draw(st.floats(0, 4000)),
        host_bandwidth_gbps=draw(st.floats(5, bandwidth)),
        host_link_gbps=draw(st.floats(1, 500)),
        devices=draw(st.integers(1, 8)),
        split=draw(st.sampled_from(["tensor", "layer"])),
    )
    total = draw(st.floats(0.1, 2000))
    moe = draw(st.booleans())
    layers = draw(st.one_of(st.none(), st.integers(1, 160)))
    heads = draw(st.integers(1, 128)) if layers else None
    model = ModelArch(
        total_params_b=total,
        active_params_b=total * draw(st.floats(0.02, 1.0)) if moe else None,
        layers=layers,
        heads=heads,
        kv_heads=draw(st.integers(1, min(16, heads))) if heads else None,
        head_dim=draw(st.integers(16, 256)) if layers else None,
        experts=draw(st.integers(8, 256)) if moe else None,
        experts_active=draw(st.integers(1, 8)) if moe else None,
    )
    workload = Workload(
        context=draw(st.integers(0, 1_000_000)),
        prompt_tokens=draw(st.integers(0, 200_000)),
        output_tokens=draw(st.integers(0, 10_000)),
        streams=draw(st.integers(1, 512)),
        kv_cache=draw(st.sampled_from(list(KVPrecision))),
        offload=draw(st.sampled_from(["layers", "experts"])),
        gpu_layers=draw(st.one_of(st.none(), st.integers(0, 200))),
        speculative=Speculative(enabled=draw(st.booleans()), acceptance=draw(st.floats(0, 0.99))),
    )
    return Scenario(hardware=hw, model=model, quant=Quant(bits_per_weight=draw(st.floats(1, 32))), workload=workload)


def numbers(r: Result) -> list[float]:
    return [v for v in r.model_dump().values() if isinstance(v, float)]


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_no_nan_inf_or_negative(s: Scenario) -> None:
    r = evaluate(s)
    for v in numbers(r):
        assert math.isfinite(v) and v >= 0, r
    if r.runs:
        assert r.decode_tok_s is not None and r.decode_tok_s > 0


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_realistic_never_above_the_ceiling_without_speculation(s: Scenario) -> None:
    s = s.model_copy(update={"workload": s.workload.model_copy(update={"speculative": Speculative(enabled=False)})})
    r = evaluate(s)
    if r.runs:
        assert r.decode_tok_s is not None and r.decode_ceiling_tok_s is not None
        assert r.decode_tok_s <= r.decode_ceiling_tok_s * (1 + 1e-9)
        assert r.decode_high_tok_s is not None and r.decode_high_tok_s <= r.decode_ceiling_tok_s * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(scenarios(), st.floats(1.01, 10))
def test_more_bandwidth_never_slower(s: Scenario, factor: float) -> None:
    faster = s.model_copy(
        update={"hardware": s.hardware.model_copy(update={"bandwidth_gbps": s.hardware.bandwidth_gbps * factor})}
    )
    a, b = evaluate(s), evaluate(faster)
    if a.runs:
        assert (b.decode_tok_s or 0) >= (a.decode_tok_s or 0) * (1 - 1e-9)


@settings(max_examples=200, deadline=None)
@given(scenarios(), st.integers(1, 500_000))
def test_more_context_never_faster(s: Scenario, extra: int) -> None:
    w = s.workload
    longer = s.model_copy(update={"workload": w.model_copy(update={"context": w.context + extra})})
    a, b = evaluate(s), evaluate(longer)
    if b.runs:
        assert (b.decode_tok_s or 0) <= (a.decode_tok_s or 0) * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(scenarios(), st.floats(1.01, 10))
def test_fit_is_monotone_in_capacity(s: Scenario, factor: float) -> None:
    bigger = s.model_copy(
        update={"hardware": s.hardware.model_copy(update={"memory_gb": s.hardware.memory_gb * factor})}
    )
    a, b = evaluate(s), evaluate(bigger)
    if a.fits:
        assert b.fits
    assert b.layers_on_device >= a.layers_on_device or s.workload.gpu_layers is not None


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.sampled_from(["context", "batch", "params"]), st.integers(0, 1_000_000), st.integers(1, 512))
def test_a_curve_depends_on_its_key_not_on_its_own_axis_value(
    s: Scenario, axis: Axis, context: int, streams: int
) -> None:
    """The window reuses a curve while only its axis variable moves (dragging the context slider
    recomputes the other two curves, not this one): that is only right if nothing else moved."""
    other = s.model_copy(
        update={
            "workload": s.workload.model_copy(
                update={axis: context} if axis == "context" else {"streams": streams} if axis == "batch" else {}
            )
        }
    )
    if curve_key(s, axis) != curve_key(other, axis):
        return  # params: the key is the whole scenario
    a, b = curve(s, axis, n=40), with_marker(curve(other, axis, n=40), s)
    for field in ("x", "decode", "low", "high", "ceiling", "aggregate", "fits", "runs", "total_gb", "compute_bound"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert (a.marker_x, a.cliff_x, a.no_run_x) == (b.marker_x, b.cliff_x, b.no_run_x)
