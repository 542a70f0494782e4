"""Attention without flash attention: the fitted η_a term, where it applies, and how it is shown."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.cli import main
from advisor.core.calibration import CALIBRATION, FLAT
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import build_inputs, unfused_attn_eta
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import attention_flops, solve
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import Engine
from tests.fitted_ranges import UNFUSED_ATTN_ETA, within

GROUP = (HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP)
GPU = Hardware(name="NVIDIA 24 GB card", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165)
LLAMA8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)


def _scenario(fa: bool, context: int = 4096, **work: object) -> Scenario:
    return Scenario(
        hardware=GPU,
        model=LLAMA8,
        quant=Quant(name="q4", bits_per_weight=4.89),
        workload=Workload(context=context, flash_attention=fa, **work),
    )


def test_committed_value() -> None:
    # fitted on the training rows run without flash attention (May 2024 llama-bench and older builds):
    # attention as separate kernels realizes a small share of the FP16 peak, a few percent
    assert within(CALIBRATION.unfused_attn_eta, UNFUSED_ATTN_ETA)
    assert FLAT.unfused_attn_eta == 0.0  # the flat-η baseline has no such term


def test_only_llama_cpp_without_flash_attention() -> None:
    assert unfused_attn_eta(_scenario(False)) == CALIBRATION.unfused_attn_eta
    assert unfused_attn_eta(_scenario(True)) == 0.0
    assert unfused_attn_eta(_scenario(False, engine=Engine.MLX)) == 0.0  # MLX and vLLM fuse attention
    assert unfused_attn_eta(_scenario(False, engine=Engine.VLLM)) == 0.0
    assert unfused_attn_eta(_scenario(False, efficiency=0.7)) == 0.0  # explicit η: plain η × ceiling


def test_step_grows_by_attention_flop_over_eta_a() -> None:
    on, off = build_inputs(_scenario(True)), build_inputs(_scenario(False))
    out_on, out_off = solve(on), solve(off)
    flop = float(attention_flops(off, 4096))
    assert flop == pytest.approx(4 * 32 * 128 * 32 * 4096)  # 4 × width × layers × context
    want = flop / (165e12 * CALIBRATION.unfused_attn_eta)
    assert float(out_off.t_attn) == pytest.approx(want) and float(out_on.t_attn) == 0.0
    # unfused, the cache's bytes count once (κ is the fused kernel's read) and the separate kernels add η_a's term
    kv_once = float(out_off.fast_kv) / (float(off.fast_bw) * float(off.fast_eta))
    assert float(out_off.t_kv) == pytest.approx(kv_once)
    assert float(out_on.t_kv) == pytest.approx(kv_once * CALIBRATION.get(*GROUP).decode.kv_factor)
    step_gap = want + float(out_off.t_kv) - float(out_on.t_kv)
    assert 1 / float(out_off.decode) - 1 / float(out_on.decode) == pytest.approx(step_gap)
    # about 2.1 GFLOP at 4096 tokens: decode at 4096 tokens on this card drops by a
    # few percent up to a few tens of percent, never by half
    assert 0.005 < want * float(out_on.decode) < 0.5
    # it grows with context; at an empty cache there is nothing to attend to
    assert float(solve(build_inputs(_scenario(False, context=0))).t_attn) == 0.0


def test_zero_eta_a_switches_the_term_off() -> None:
    inp = replace(build_inputs(_scenario(False)), unfused_attn_eta=0.0)
    assert float(solve(inp).t_attn) == 0.0


def test_shown_in_the_arithmetic_and_the_check_command(capsys: pytest.CaptureFixture[str]) -> None:
    r = evaluate(_scenario(False))
    assert any("attention without flash attention" in st.text for st in r.steps)
    assert not any("attention without flash attention" in st.text for st in evaluate(_scenario(True)).steps)
    args = [
        "estimate",
        "--bandwidth",
        "1008",
        "--memory",
        "24",
        "--tflops",
        "165",
        "--params",
        "8",
        "--layers",
        "32",
        "--heads",
        "32",
        "--kv-heads",
        "8",
        "--head-dim",
        "128",
        "--bits",
        "4.89",
        "--context",
        "8192",
    ]
    assert main([*args, "--flash-attention", "off"]) == 0
    off = capsys.readouterr().out
    assert main(args) == 0
    on = capsys.readouterr().out
    bench = [line for line in (off + on).splitlines() if "llama-bench -m" in line]
    assert len(bench) == 2 and bench[0].endswith("-fa 0") and bench[1].endswith("-fa 1")
