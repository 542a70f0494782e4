"""Placements as llama.cpp makes them: whole layers (-ngl), experts first (--n-cpu-moe / -ot exps=CPU), the KV
cache in host RAM (-nkvo), auto (the fastest that runs), host-side work computed by the host CPU, and weights
beyond host RAM read from disk (mmap)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.cli import main
from advisor.cli.estimate import llama_bench_command, result_json
from advisor.core.efficiency import Engine
from advisor.core.evaluate import evaluate
from advisor.core.inputs import build_inputs
from advisor.core.result import Result
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload

CAT = shipped_catalog()
CARD16 = to_hardware(CAT.hardware["rtx-4060-ti-16gb"])
QWEN3_30B = to_model(CAT.models["qwen3-30b-a3b"])
Q4 = to_quant(CAT.quants["q4_k_m"])


def _qwen(offload: str, threads: int | None = None, context: int = 32768) -> Scenario:
    return Scenario(
        hardware=CARD16, model=QWEN3_30B, quant=Q4, workload=Workload(context=context, offload=offload, threads=threads)
    )  # type: ignore[arg-type]


def _run(s: Scenario) -> Result:
    r = evaluate(s)
    assert r.runs and r.decode_tok_s is not None and r.placement is not None
    return r


def test_layer_offload_moves_kv_to_the_host_and_experts_first_keeps_it_and_is_faster() -> None:
    layers, experts = _run(_qwen("layers")), _run(_qwen("experts"))
    assert layers.placement is not None and experts.placement is not None
    assert layers.placement.name == "layers" and experts.placement.name == "experts"
    assert layers.placement.kv_host_gb > 0  # the host layers' KV went with them
    assert experts.placement.kv_host_gb == 0 and experts.placement.kv_device_gb == pytest.approx(experts.kv_gb)
    assert experts.placement.weights_host_gb > 0
    assert experts.decode_tok_s > layers.decode_tok_s  # type: ignore[operator]
    cmd = llama_bench_command(_qwen("experts"), experts)
    assert f"--n-cpu-moe {experts.placement.expert_layers_on_host}" in cmd and "-ngl 99" in cmd
    assert "--n-cpu-moe" not in llama_bench_command(_qwen("layers"), layers)


def test_kv_on_the_host_is_named_and_slower_than_weights_there() -> None:
    kv, layers = _run(_qwen("kv")), _run(_qwen("layers"))
    assert kv.placement is not None and kv.placement.name == "kv"
    assert kv.placement.kv_host_gb == pytest.approx(kv.kv_gb) and kv.placement.kv_device_gb == 0
    assert kv.decode_tok_s < layers.decode_tok_s  # type: ignore[operator]
    assert any("-nkvo" in n for n in kv.notes)
    assert "-nkvo 1" in llama_bench_command(_qwen("kv"), kv)


def test_kv_on_the_host_with_room_for_the_weights_keeps_every_layer_on_the_gpu() -> None:
    small = to_model(CAT.models["llama-3.1-8b"])
    s = Scenario(hardware=CARD16, model=small, quant=Q4, workload=Workload(context=16384, offload="kv"))
    r = _run(s)
    assert r.placement is not None
    assert r.placement.weights_host_gb == 0 and r.layers_on_device == r.layers and r.placement.kv_host_gb > 0
    assert "-ngl 99" in llama_bench_command(s, r)
    # the host's arithmetic over that cache is counted: more context, more host time
    longer = _run(s.model_copy(update={"workload": s.workload.model_copy(update={"context": 65536})}))
    assert r.step_ms is not None and longer.step_ms is not None and longer.step_ms.host > r.step_ms.host > 0


def test_auto_picks_the_fastest_placement_that_runs_and_names_the_runner_up() -> None:
    speeds = {o: _run(_qwen(o)).decode_tok_s for o in ("layers", "experts", "kv")}
    auto = _run(_qwen("auto"))
    assert auto.placement is not None and auto.placement.auto
    best = max(speeds, key=lambda o: speeds[o] or 0)
    assert auto.placement.name == best and auto.decode_tok_s == pytest.approx(speeds[best])
    second = sorted((v or 0.0 for v in speeds.values()), reverse=True)[1]
    assert auto.placement.alternative_decode_tok_s == pytest.approx(second)
    assert any("Placement auto" in n for n in auto.notes)


def test_auto_on_a_model_that_fits_keeps_everything_on_the_gpu() -> None:
    r = _run(_qwen("auto", context=4096).model_copy(update={"hardware": to_hardware(CAT.hardware["rtx-4090"])}))
    assert r.fits and r.placement is not None and r.placement.weights_host_gb == 0 and r.placement.kv_host_gb == 0


def test_auto_is_per_point_on_a_curve() -> None:
    s = _qwen("auto")
    ctx = np.array([1024.0, 32768.0, 131072.0])
    out = solve(build_inputs(s, context=ctx, hold_tokens=ctx + 256))
    for i, c in enumerate(ctx):
        one = solve(build_inputs(_qwen("auto", context=int(c))))
        assert float(out.decode[i]) == pytest.approx(float(np.ravel(one.decode)[0]), rel=1e-9)
        assert float(out.placement[i]) == float(np.ravel(one.placement)[0])


@pytest.mark.parametrize("offload", ["layers", "experts", "kv"])
def test_fewer_threads_make_host_side_work_slower(offload: str) -> None:
    many, few = _run(_qwen(offload, threads=16)), _run(_qwen(offload, threads=2))
    assert many.step_ms is not None and few.step_ms is not None
    assert few.step_ms.host > many.step_ms.host
    assert few.decode_tok_s < many.decode_tok_s  # type: ignore[operator]
    assert " -t 2" in llama_bench_command(_qwen(offload, threads=2), few)


def test_threads_default_to_the_hosts_cores() -> None:
    s = _qwen("layers")
    cores = s.hardware.host_threads
    assert _run(s).step_ms == _run(_qwen("layers", threads=cores)).step_ms
    assert " -t " not in llama_bench_command(s, _run(s))


def test_everything_on_the_gpu_does_no_host_work() -> None:
    r = _run(_qwen("layers", context=2048).model_copy(update={"hardware": to_hardware(CAT.hardware["rtx-4090"])}))
    assert r.fits and r.step_ms is not None and r.step_ms.host == 0


def test_deepseek_v3_beyond_ram_streams_from_disk_slowly_with_a_note() -> None:
    card24 = to_hardware(CAT.hardware["rtx-4090"]).model_copy(update={"host_memory_gb": 64.0})
    s = Scenario(hardware=card24, model=to_model(CAT.models["deepseek-v3"]), quant=Q4, workload=Workload())
    r = _run(s)
    assert r.streams_from_disk and r.placement is not None and r.placement.weights_disk_gb > 0
    assert r.decode_tok_s < 5  # type: ignore[operator]
    assert any("disk" in n for n in r.notes)
    # a faster disk is faster, and every GB is somewhere
    fast = _run(s.model_copy(update={"hardware": card24.model_copy(update={"disk_read_gbps": 14.0})}))
    assert fast.decode_tok_s > r.decode_tok_s  # type: ignore[operator]
    p = r.placement
    assert p.weights_device_gb + p.weights_host_gb + p.weights_disk_gb == pytest.approx(r.weights_gb + r.draft_gb)
    assert p.weights_host_gb + p.kv_host_gb <= card24.host_memory_gb * (1 + 1e-9)
    # only llama.cpp maps the file: vLLM does not run it
    vllm = evaluate(s.model_copy(update={"workload": s.workload.model_copy(update={"engine": Engine.VLLM})}))
    assert not vllm.runs and not vllm.streams_from_disk


def test_estimate_json_gives_the_placement(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "estimate",
                "--hardware",
                "rtx-4060-ti-16gb",
                "--model",
                "qwen3-30b-a3b",
                "--quant",
                "q4_k_m",
                "--context",
                "32768",
                "--offload",
                "auto",
                "--threads",
                "6",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    p = out["placement"]
    assert p["name"] == "experts" and p["auto"]
    for key in ("weights_device_gb", "weights_host_gb", "weights_disk_gb", "kv_device_gb", "kv_host_gb"):
        assert p[key] >= 0
    assert p["kv_device_gb"] + p["kv_host_gb"] == pytest.approx(out["kv_gb"])
    assert "--n-cpu-moe" in out["llama_bench"] and " -t 6" in out["llama_bench"]


def test_every_placement_keeps_the_json_and_the_step_in_agreement() -> None:
    for offload in ("layers", "experts", "kv", "auto"):
        s = _qwen(offload)
        r = _run(s)
        out = result_json(s, r)
        assert out["placement"]["name"] == r.placement.name  # type: ignore[union-attr]
        t = r.step_ms
        assert t is not None
        assert t.memory == pytest.approx(t.weights + t.kv + t.host + t.dequant + t.streams + t.attention)


def test_kv_on_the_host_costs_hand_offs_even_with_a_tiny_cache() -> None:
    # each layer's attention leaves the GPU and comes back: slower than the cache on the GPU at any context
    small = to_model(CAT.models["llama-3.1-8b"])
    gpu = Scenario(hardware=CARD16, model=small, quant=Q4, workload=Workload(context=64))
    on_gpu = _run(gpu)
    nkvo = _run(gpu.model_copy(update={"workload": gpu.workload.model_copy(update={"offload": "kv"})}))
    assert nkvo.step_ms is not None and on_gpu.step_ms is not None
    assert on_gpu.step_ms.host == 0 and nkvo.step_ms.host > 0
    assert nkvo.decode_tok_s < on_gpu.decode_tok_s  # type: ignore[operator]
    out = solve(build_inputs(gpu.model_copy(update={"workload": nkvo_workload(gpu)})))
    assert float(np.ravel(out.host_hops)[0]) == 2 * small.layers  # type: ignore[operator]
    # experts in host RAM: each layer whose experts are there hands its hidden state over and back
    experts = _qwen("experts")
    placed = _run(experts).placement
    assert placed is not None and placed.expert_layers_on_host > 0
    hops = float(np.ravel(solve(build_inputs(experts)).host_hops)[0])
    assert hops == 2 * placed.expert_layers_on_host
    # whole layers on the host are one run left and re-entered: no hand-off term of their own
    assert float(np.ravel(solve(build_inputs(_qwen("layers"))).host_hops)[0]) == 0


def nkvo_workload(s: Scenario) -> Workload:
    return s.workload.model_copy(update={"offload": "kv"})


def test_a_short_prompt_over_host_layers_is_computed_by_the_host_cpu() -> None:
    """llama.cpp copies host layers to the GPU only for batches of 32 tokens or more: a 512-token prompt
    pays the link and not the host's threads, a 16-token one is host CPU work and slows with fewer threads."""

    def prefill(prompt: int, threads: int) -> float:
        s = _qwen("layers", threads=threads, context=32768)
        r = _run(s.model_copy(update={"workload": s.workload.model_copy(update={"prompt_tokens": prompt})}))
        assert r.prefill_tok_s is not None
        return r.prefill_tok_s

    assert prefill(16, 2) < 0.5 * prefill(16, 8)  # host compute: a quarter of the threads
    assert prefill(512, 2) == pytest.approx(prefill(512, 8), rel=1e-9)  # the link, not the threads
    assert prefill(16, 8) < prefill(512, 8)
