"""Two terms of the decode step: the fixed time grows with the model's layers, and a fused attention
kernel takes the longer of its cache read and its arithmetic (η_f of the peak)."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION, FLAT
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import attention_flops, solve
from advisor.core.roofline_inputs import T0_LAYERS
from advisor.core.scenario import Scenario, Workload
from advisor.core.shape import fixed_time_scale
from advisor.core.terms import Engine
from tests.fitted_ranges import FUSED_ATTN_ETA, within

GPU = Hardware(name="NVIDIA 24 GB card", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165)
Q4 = Quant(name="q4", bits_per_weight=4.89)
SHALLOW = ModelArch(name="3B, 16 layers", total_params_b=3.0, layers=16, heads=24, kv_heads=8, head_dim=128)
DEEP = SHALLOW.model_copy(update={"name": "3B, 48 layers", "layers": 48, "heads": 8})


def _scenario(model: ModelArch, hw: Hardware = GPU, **work: object) -> Scenario:
    return Scenario(hardware=hw, model=model, quant=Q4, workload=Workload(**work))


def test_fixed_time_goes_with_the_layers() -> None:
    shallow, deep = (solve(build_inputs(_scenario(m, context=0))) for m in (SHALLOW, DEEP))
    t0 = CALIBRATION.get(HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP).decode.token_ms / 1e3
    assert float(shallow.t_token) == pytest.approx(t0 * 16 / T0_LAYERS)
    assert float(deep.t_token) == pytest.approx(3 * float(shallow.t_token))
    # same bytes, same FLOP: the deeper model is slower only by its fixed time
    assert float(deep.t_weights) == pytest.approx(float(shallow.t_weights))
    assert float(deep.decode) < float(shallow.decode)
    assert fixed_time_scale(DEEP) == 48 / T0_LAYERS


def test_the_arithmetic_names_the_layers() -> None:
    text = next(s.text for s in evaluate(_scenario(DEEP, context=0)).steps if s.label == "Decode realistic")
    assert f"per {T0_LAYERS:.0f} layers × 48 layers" in text


def test_a_users_fixed_time_stays_per_step_whatever_the_depth() -> None:
    """The measured extra time is the measured model's own step's: the layer multiple must not scale it."""
    from advisor.core.measured import MeasuredTerms, model_key

    terms = MeasuredTerms(token_ms=2.0, decode_runs=3, model=model_key(DEEP.name, Q4.name))
    hw = GPU.model_copy(update={"measured": terms})
    base, own = (solve(build_inputs(_scenario(DEEP, h, context=0))) for h in (GPU, hw))
    assert float(own.t_token) - float(base.t_token) == pytest.approx(2e-3)


def test_committed_fused_attention_share() -> None:
    assert within(CALIBRATION.fused_attn_eta, FUSED_ATTN_ETA)
    assert FLAT.fused_attn_eta == 0.0


def test_the_kernel_is_the_longer_of_its_read_and_its_arithmetic() -> None:
    cat = shipped_catalog()
    hw = to_hardware(cat.hardware["m2-ultra-76c-192gb"])
    quant = to_quant(cat.quants["q8_0"])
    for key, flop_bound in (("glm-4.7-flash", True), ("llama-3.1-8b", False)):
        s = Scenario(hardware=hw, model=to_model(cat.models[key]), quant=quant, workload=Workload(context=32768))
        inp = build_inputs(s)
        out = solve(inp)
        flop_time = float(attention_flops(inp, 32768)) / (hw.fp16_tflops * 1e12 * CALIBRATION.fused_attn_eta)
        assert float(out.t_kv_flops) == pytest.approx(flop_time)
        read = float(out.kv_cost) * float(out.fast_kv) / (float(inp.fast_bw) * float(inp.fast_eta))
        assert float(out.t_kv) == pytest.approx(max(read, flop_time))
        # MLA: 20 query heads on one 576-wide latent; GQA: 4 query heads per cached row
        assert (flop_time > read) is flop_bound, key
        # the attention is the kernel's, not the compute side's
        assert float(out.compute_flops) == pytest.approx(2 * float(inp.active_params))


def test_depth_costs_mla_on_metal_what_the_published_sweep_shows() -> None:
    """GLM-4.7-Flash Q8_0 on an M2 Ultra (llama.cpp benches, mac-m2-ultra.md): 59.58 tok/s at depth 0,
    21.81 at 32,768, a 2.7x slowdown its 1.8 GB of latent cache alone cannot explain."""
    cat = shipped_catalog()
    hw = to_hardware(cat.hardware["m2-ultra-76c-192gb"])
    model, quant = to_model(cat.models["glm-4.7-flash"]), to_quant(cat.quants["q8_0"])
    speed = [
        evaluate(Scenario(hardware=hw, model=model, quant=quant, workload=Workload(context=c))).decode_tok_s
        for c in (0, 32768)
    ]
    assert 2.0 < speed[0] / speed[1] < 3.5


def test_off_where_the_step_is_plain_or_unfused() -> None:
    cat = shipped_catalog()
    model = to_model(cat.models["glm-4.7-flash"])
    hw = to_hardware(cat.hardware["m2-ultra-76c-192gb"])
    plain = Scenario(hardware=hw, model=model, quant=Q4, workload=Workload(context=32768, efficiency=0.7))
    assert float(build_inputs(plain).fused_attn_eta) == 0.0
    unfused = Scenario(hardware=hw, model=model, quant=Q4, workload=Workload(context=32768, flash_attention=False))
    assert float(solve(build_inputs(unfused)).t_kv_flops) == 0.0
    flat = solve(build_inputs(plain.model_copy(update={"workload": Workload(context=32768)}), FLAT))
    assert float(flat.t_kv_flops) == 0.0 and float(flat.compute_flops) > float(flat.attn_flops_per_token)


def test_a_users_fixed_time_is_not_scaled_by_the_moe_multiple() -> None:
    """An MoE model's step pays m × t₀ for its router and expert kernels; the time a user's runs measured
    beyond the model is already the step's own, so the multiple must not scale it either."""
    from advisor.core.measured import MeasuredTerms, model_key

    moe = SHALLOW.model_copy(
        update={
            "name": "MoE, 16 layers",
            "total_params_b": 30.0,
            "active_params_b": 3.0,
            "experts": 64,
            "experts_active": 4,
        }
    )
    assert moe.is_moe and CALIBRATION.moe_token > 1.0
    terms = MeasuredTerms(token_ms=2.0, decode_runs=3, model=model_key(moe.name, Q4.name))
    hw = GPU.model_copy(update={"measured": terms})
    base, own = (solve(build_inputs(_scenario(moe, h, context=0))) for h in (GPU, hw))
    assert float(own.t_token) - float(base.t_token) == pytest.approx(2e-3)
