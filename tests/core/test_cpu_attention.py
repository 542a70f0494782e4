"""Attention on CPU cores: in decode each stream's KV cache walked at a per-thread rate; in prefill, matrix
work at the cores' rate."""

from __future__ import annotations

import math

import pytest

from advisor.core.calibration import CALIBRATION
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.kv import attention_kv_bytes
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload
from advisor.core.units import GB

CPU = Hardware(
    name="16-core desktop CPU",
    kind=HardwareClass.CPU,
    memory_gb=64,
    bandwidth_gbps=64,
    fp16_tflops=2.5,
    host_memory_gb=0,
    host_threads=16,
)
# the same KV bytes per token (8 KV heads of 128 on 32 layers), four times the query heads' FLOP
NARROW = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
WIDE = ModelArch(name="8B wide", total_params_b=8.03, layers=32, heads=128, kv_heads=8, head_dim=128)
Q4 = Quant(name="q4_0", bits_per_weight=4.5)


def _step(model: ModelArch, context: int, threads: int | None = None, streams: int = 1) -> float:
    s = Scenario(
        hardware=CPU,
        model=model,
        quant=Q4,
        workload=Workload(context=context, output_tokens=0, threads=threads, streams=streams),
    )
    return float(solve(build_inputs(s)).t_attn)


def test_the_cache_walk_is_its_bytes_over_the_threads_rate() -> None:
    depth = 8192
    kv = attention_kv_bytes(32, 8, 128) * depth  # K and V at 16 bits, every layer
    expected = kv / (16 * CALIBRATION.cpu_attn_gbps * GB)
    assert _step(NARROW, depth) == pytest.approx(expected, rel=1e-6)


def test_the_walk_is_never_faster_than_the_bus() -> None:
    depth = 8192
    kv = attention_kv_bytes(32, 8, 128) * depth
    s = Scenario(hardware=CPU, model=NARROW, quant=Q4, workload=Workload(context=depth, output_tokens=0))
    inp = build_inputs(s, cpu_attn_rate=1e15)
    assert float(solve(inp).t_attn) == pytest.approx(kv / (float(inp.fast_bw) * float(inp.fast_eta)), rel=1e-6)


def test_query_heads_sharing_a_cache_do_not_add_to_its_walk() -> None:
    assert _step(WIDE, 8192) == pytest.approx(_step(NARROW, 8192), rel=1e-9)


def test_fewer_threads_walk_the_cache_proportionally_slower_and_streams_add_their_caches() -> None:
    full, four = _step(NARROW, 4096), _step(NARROW, 4096, threads=4)
    assert four == pytest.approx(4 * full, rel=1e-9)
    assert _step(NARROW, 4096, threads=32) == pytest.approx(full, rel=1e-9)  # more threads than cores: none
    assert _step(NARROW, 4096, streams=3) == pytest.approx(3 * full, rel=1e-9)


def test_depth_slows_cpu_decode_by_the_walk_and_prefill_by_its_attention_flop() -> None:
    def run(model: ModelArch, context: int, prompt: int) -> tuple[float, float, float, float]:
        work = Workload(context=context, prompt_tokens=prompt, output_tokens=0)
        s = Scenario(hardware=CPU, model=model, quant=Q4, workload=work)
        inp = build_inputs(s)
        out = solve(inp)
        rate = float(inp.compute_eta) * float(inp.flops)  # the cores' matmul rate at F16
        return float(out.decode), float(out.prefill), float(out.t_kv), float(out.prefill_attn_flops) / rate

    d0, _, _, _ = run(NARROW, 0, 512)
    d16, _, t_kv, _ = run(NARROW, 16384, 512)
    walk = _step(NARROW, 16384)
    assert t_kv == 0  # the walk reads the cache: it is not read a second time at the bus's rate
    assert 1 / d16 - 1 / d0 == pytest.approx(walk, rel=1e-6)
    # a prompt's queries share each K/V row (tiled attention): its depth costs attention FLOP at the cores'
    # rate × α, per prompt token, the prompt's tokens sitting 256 + 8192 deep on average
    alpha = CALIBRATION.get(HardwareClass.CPU, Workload().engine).prefill.attn_factor
    costs = {}
    for model in (NARROW, WIDE):
        _, short, _, a_short = run(model, 512, 512)
        _, deep, _, a_deep = run(model, 8192 + 512, 512)
        per_token = alpha * (a_deep - a_short)
        assert 1 / deep - 1 / short == pytest.approx(per_token, rel=1e-6)
        assert math.isfinite(per_token) and per_token > 0
        costs[model.name] = per_token
    # four times the query heads, four times the prefill attention (the decode walk is the same: above)
    assert costs["8B wide"] == pytest.approx(4 * costs["8B"], rel=1e-6)
