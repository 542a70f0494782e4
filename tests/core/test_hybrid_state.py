"""A hybrid model's recurrent state: held per stream like the KV cache, read and rewritten every step."""

from __future__ import annotations

import pytest

from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload

GPU = Hardware(name="GPU", memory_gb=24, bandwidth_gbps=1000, fp16_tflops=100)
# Qwen3.6-35B-A3B's cache and state: 10 attention layers (20,480 bytes/token at 16 bits), 30 Gated DeltaNet
# layers holding 65.9 MB per sequence
HYBRID = ModelArch(
    name="Hybrid",
    total_params_b=35,
    active_params_b=3,
    layers=40,
    hidden=2048,
    heads=16,
    kv_heads=2,
    head_dim=256,
    experts=256,
    experts_active=8,
    kv_bytes_per_token_override=20_480.0,
    state_bytes_per_sequence=65_863_680.0,
)
STATELESS = HYBRID.model_copy(update={"state_bytes_per_sequence": None})


def _out(model: ModelArch, streams: int):  # type: ignore[no-untyped-def]
    s = Scenario(
        hardware=GPU,
        model=model,
        quant=Quant(bits_per_weight=4.5),
        workload=Workload(context=4096, output_tokens=0, streams=streams, efficiency=1.0),
    )
    return solve(build_inputs(s))


@pytest.mark.parametrize("streams", [1, 8])
def test_state_is_held_per_stream_and_read_twice_per_step(streams: int) -> None:
    with_state, without = _out(HYBRID, streams), _out(STATELESS, streams)
    assert float(with_state.kv_hold - without.kv_hold) == pytest.approx(streams * 65_863_680.0)
    assert float(with_state.kv_read - without.kv_read) == pytest.approx(streams * 2 * 65_863_680.0)
    # at η = 1 the step is bytes ÷ bandwidth: the state adds its read and write to every step
    extra_s = float(with_state.t_mem_ceiling - without.t_mem_ceiling)
    assert extra_s == pytest.approx(streams * 2 * 65_863_680.0 / 1e12)


def test_the_arithmetic_names_the_state() -> None:
    s = Scenario(
        hardware=GPU,
        model=HYBRID,
        quant=Quant(bits_per_weight=4.5),
        workload=Workload(context=4096, output_tokens=0, streams=2),
    )
    kv = next(st.text for st in evaluate(s).steps if st.label == "KV cache")
    assert kv.startswith("(20,480 bytes/token × 4,096 tokens + recurrent state 65.9 MB) × 2 streams")
    assert "read and rewritten every token" in kv
    plain = evaluate(s.model_copy(update={"model": STATELESS})).steps
    assert "recurrent state" not in next(st.text for st in plain if st.label == "KV cache")


def test_only_the_attending_layers_do_attention_work() -> None:
    """Qwen3.6-35B-A3B: 10 of its 40 layers attend over the context; the Gated DeltaNet layers' work does
    not grow with it, so the attention FLOP (prefill, and decode without flash attention) are a quarter
    of what all 40 layers would do."""
    from advisor.catalog.convert import to_model
    from advisor.catalog.loader import shipped_catalog
    from advisor.core.inputs import model_terms
    from advisor.core.quant import KVPrecision

    q36 = to_model(shipped_catalog().models["qwen3.6-35b-a3b"])
    assert (q36.attention_layers, q36.layers) == (10, 40)
    terms = model_terms(q36, KVPrecision.F16)
    assert terms["attn_flops_full"] == 4.0 * 16 * 256 * 10  # QKᵀ and AV, 16 query heads of 256, 10 layers
    every = model_terms(q36.model_copy(update={"attention_layers": None}), KVPrecision.F16)
    assert every["attn_flops_full"] == 4 * terms["attn_flops_full"]
    with pytest.raises(ValueError, match="attention_layers cannot exceed layers"):
        q36.model_validate({**q36.model_dump(), "attention_layers": 41})
