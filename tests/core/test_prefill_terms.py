"""Prefill beyond compute: unfused attention's scores through memory, and a layer split's pipeline."""

from __future__ import annotations

import math

import pytest

from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.prefill import PREFILL_UBATCH, SCORE_BYTES
from advisor.core.quant import Quant
from advisor.core.roofline import attention_flops, solve
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import Engine

GPU = Hardware(name="24 GB card", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165)
LLAMA8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
LLAMA70 = ModelArch(name="70B", total_params_b=70.6, layers=80, heads=64, kv_heads=8, head_dim=128, hidden=8192)
Q4 = Quant(name="q4", bits_per_weight=4.89)


def _prefill(s: Scenario, **overrides: object) -> float:
    return float(solve(build_inputs(s, **overrides)).prefill)


def _fa(fa: bool, prompt: int, hw: Hardware = GPU, **work: object) -> Scenario:
    return Scenario(
        hardware=hw,
        model=LLAMA8,
        quant=Q4,
        workload=Workload(context=prompt, prompt_tokens=prompt, flash_attention=fa, **work),
    )


def test_unfused_scores_cost_their_bytes_at_the_weights_rate() -> None:
    for prompt in (512, 4096, 8192):
        off, on = _fa(False, prompt), _fa(True, prompt)
        inp = build_inputs(off)
        mean_position = prompt / 2
        scores = float(attention_flops(inp, mean_position)) / (4 * 128)
        assert scores == pytest.approx(32 * 32 * mean_position)  # heads × layers × cached tokens
        want = prompt * SCORE_BYTES * scores / (float(inp.fast_bw) * float(inp.fast_eta))
        out_off, out_on = solve(inp), solve(build_inputs(on))
        assert float(out_off.t_prefill_scores) == pytest.approx(want)
        assert float(out_on.t_prefill_scores) == 0.0
        # the time per prompt grows by exactly that
        assert prompt / float(out_off.prefill) - prompt / float(out_on.prefill) == pytest.approx(want, rel=1e-9)


def test_scores_grow_with_the_prompt_and_slow_long_prompts_most() -> None:
    ratio = [_prefill(_fa(False, p)) / _prefill(_fa(True, p)) for p in (512, 4096, 16384)]
    assert 1 > ratio[0] > ratio[1] > ratio[2]
    assert ratio[0] > 0.9  # at 512 tokens the scores are a few percent of the work
    assert ratio[2] < 0.8  # at 16k they cost as much as a good part of the matmuls


def test_no_score_traffic_on_cpu_cores_or_other_engines() -> None:
    cpu = Hardware(name="CPU", kind=HardwareClass.CPU, memory_gb=64, bandwidth_gbps=80, fp16_tflops=1.0)
    assert float(solve(build_inputs(_fa(False, 4096, cpu))).t_prefill_scores) == 0.0  # attention is the cores' work
    assert float(solve(build_inputs(_fa(False, 4096, engine=Engine.VLLM))).t_prefill_scores) == 0.0


def _split(devices: int, prompt: int, split: str = "layer", **work: object) -> Scenario:
    hw = GPU.model_copy(update={"devices": devices, "split": split})
    return Scenario(hardware=hw, model=LLAMA70, quant=Q4, workload=Workload(prompt_tokens=prompt, **work))


@pytest.mark.parametrize("devices", [2, 4])
@pytest.mark.parametrize("prompt", [512, 2048, 4096])
def test_layer_split_pipelines_micro_batches(devices: int, prompt: int) -> None:
    s = _split(devices, prompt)
    nb = math.ceil(prompt / PREFILL_UBATCH)
    want = nb * devices / (nb + devices - 1)
    out = solve(build_inputs(s))
    assert float(out.prefill_pipeline) == pytest.approx(want)
    # the whole prefill is that much faster than the same split run one device at a time
    assert _prefill(s) / _prefill(s, pipeline_stages=1.0) == pytest.approx(want)
    if prompt == PREFILL_UBATCH:
        assert want == 1.0  # one micro-batch: nothing to overlap
    assert want < devices  # the pipeline's fill and drain: never the devices' sum


def test_no_pipeline_for_tensor_split_kv_on_host_partial_offload_or_vllm() -> None:
    assert float(build_inputs(_split(4, 2048, split="tensor")).pipeline_stages) == 1.0
    assert float(build_inputs(_split(4, 2048, offload="kv")).pipeline_stages) == 1.0
    assert float(build_inputs(_split(4, 2048, engine=Engine.VLLM)).pipeline_stages) == 1.0
    # llama.cpp pipelines only with every layer on the devices: 2 × 24 GB cannot hold 70B at Q4 plus KV
    two = _split(2, 2048, gpu_layers=60)
    assert float(solve(build_inputs(two)).prefill_pipeline) == 1.0


def _prefill_step(s: Scenario) -> str:
    return next(st.text for st in evaluate(s).steps if st.label == "Prefill")


def test_worked_text_names_both_terms() -> None:
    text = _prefill_step(_fa(False, 8192))
    assert "attention scores through memory" in text and f"{SCORE_BYTES:.0f} bytes per score" in text
    assert "scores" not in _prefill_step(_fa(True, 8192))
    piped = _prefill_step(_split(4, 2048))
    assert "4 micro-batches of 512 pipelined over 4 devices" in piped
    assert "pipelined" not in _prefill_step(_split(4, 512))
