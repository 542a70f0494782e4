"""Each physical effect on its own: KV shapes, the offload cliff, devices, speculation, prefill, feel."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.core.curves import curve
from advisor.core.efficiency import Engine
from advisor.core.evaluate import evaluate
from advisor.core.feel import Feel, feel
from advisor.core.hardware import CORE_READ_GBPS, Hardware, HardwareClass
from advisor.core.inputs import fast_read_gbps, split_params
from advisor.core.kv import kv_bytes, kv_shape
from advisor.core.model import ModelArch
from advisor.core.quant import KVPrecision, Quant
from advisor.core.scenario import DEFAULT_FEEL_THRESHOLDS, Scenario, Speculative, Workload
from advisor.core.shape import with_typical_shape
from advisor.core.units import GB

GPU24 = Hardware(
    name="24 GB card", memory_gb=24, bandwidth_gbps=1000, fp16_tflops=165, host_memory_gb=128, host_bandwidth_gbps=80
)
LLAMA8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
LLAMA70 = ModelArch(name="70B", total_params_b=70.6, layers=80, heads=64, kv_heads=8, head_dim=128)


def scen(hw: Hardware = GPU24, model: ModelArch = LLAMA8, bits: float = 4.89, **workload: object) -> Scenario:
    return Scenario(hardware=hw, model=model, quant=Quant(bits_per_weight=bits), workload=Workload(**workload))


def test_kv_precisions_scale_bytes() -> None:
    f16 = kv_shape(LLAMA8, KVPrecision.F16).full_bytes_per_token
    assert f16 == 2 * 32 * 8 * 128 * 2  # 131,072
    assert kv_shape(LLAMA8, KVPrecision.Q8_0).full_bytes_per_token == pytest.approx(f16 * 34 / 64)
    assert kv_shape(LLAMA8, KVPrecision.FP8).full_bytes_per_token == f16 / 2


def test_sliding_window_layers_stop_growing() -> None:
    gemma = ModelArch(
        total_params_b=27,
        layers=46,
        heads=32,
        kv_heads=16,
        head_dim=128,
        attention="sliding",
        sliding_window=4096,
        sliding_layers=23,
    )
    shape = kv_shape(gemma, KVPrecision.F16)
    per_layer = 2 * 16 * 128 * 2
    assert shape.full_bytes_per_token == 23 * per_layer
    at_4k, at_64k = kv_bytes(shape, [4096, 65536])
    assert at_4k == pytest.approx(46 * per_layer * 4096)
    assert at_64k == pytest.approx(23 * per_layer * 65536 + 23 * per_layer * 4096)


def test_mla_caches_the_latent() -> None:
    ds = ModelArch(
        total_params_b=671,
        active_params_b=37,
        layers=61,
        heads=128,
        attention="mla",
        kv_lora_rank=512,
        rope_dim=64,
        experts=256,
        experts_active=8,
    )
    assert kv_shape(ds, KVPrecision.F16).full_bytes_per_token == 61 * (512 + 64) * 2  # 70,272 bytes


def test_one_byte_over_capacity_falls_off_a_cliff() -> None:
    """Capacity set so the footprint fits exactly, then a hair less: a whole layer moves to RAM."""
    fitting = evaluate(scen(overhead_gb=0.0, context=4096, output_tokens=0))
    exact = fitting.total_gb
    fits = evaluate(
        scen(hw=GPU24.model_copy(update={"memory_gb": exact}), overhead_gb=0.0, context=4096, output_tokens=0)
    )
    over = evaluate(
        scen(hw=GPU24.model_copy(update={"memory_gb": exact - 1e-9}), overhead_gb=0.0, context=4096, output_tokens=0)
    )
    assert fits.fits and not over.fits and over.runs
    assert over.layers_on_device == 31
    # One of 32 layers read at 80 GB/s (η 0.6) instead of 1,000 GB/s (η 0.7): at least 15 % slower.
    assert (over.decode_tok_s or 0) < 0.85 * (fits.decode_tok_s or 0)


def test_eighty_percent_on_gpu_runs_closer_to_cpu_speed() -> None:
    r = evaluate(scen(model=LLAMA70, bits=4.89, gpu_layers=64, context=0, output_tokens=0))
    gpu_only = 1 / (r.weights_gb / (1000 * 0.7))
    cpu_only = 1 / (r.weights_gb / (80 * 0.6))
    assert r.offloaded_fraction == pytest.approx(0.2)
    # Harmonic, not linear: far below 80 % of GPU speed.
    assert (r.decode_tok_s or 0) < 0.5 * gpu_only
    assert (r.decode_tok_s or 0) > cpu_only


def test_past_host_memory_does_not_run() -> None:
    small_host = GPU24.model_copy(update={"host_memory_gb": 8})
    # llama.cpp maps the file and reads what RAM cannot hold from disk (tests/core/test_placements.py); an
    # engine that cannot, does not run
    assert evaluate(scen(hw=small_host, model=LLAMA70, bits=16)).streams_from_disk
    r = evaluate(scen(hw=small_host, model=LLAMA70, bits=16, engine=Engine.VLLM))
    assert not r.runs
    assert r.decode_tok_s is None and r.interactive_class is None
    assert any("Does not run" in n for n in r.notes)


def test_unified_memory_not_counted_twice() -> None:
    mac = Hardware(
        kind=HardwareClass.UNIFIED,
        memory_gb=64,
        bandwidth_gbps=400,
        fp16_tflops=14,
        gpu_memory_fraction=0.75,
        host_memory_gb=0,
        host_bandwidth_gbps=400,
    )
    assert mac.fast_capacity_gb == 48
    assert mac.host_capacity_gb == 16
    assert mac.fast_capacity_gb + mac.host_capacity_gb == mac.memory_gb


def test_tensor_split_reads_a_share_each_and_pays_two_all_reduces_per_layer() -> None:
    big = GPU24.model_copy(update={"memory_gb": 96})  # one card that holds a 70B, to isolate the split
    one8, one70 = evaluate(scen(model=LLAMA8, context=0, hw=big)), evaluate(scen(model=LLAMA70, context=0, hw=big))
    pcie = big.model_copy(update={"devices": 2, "split": "tensor"})
    two8, two70 = evaluate(scen(model=LLAMA8, context=0, hw=pcie)), evaluate(scen(model=LLAMA70, context=0, hw=pcie))
    gain8 = (two8.decode_tok_s or 0) / (one8.decode_tok_s or 1)
    gain70 = (two70.decode_tok_s or 0) / (one70.decode_tok_s or 1)
    # the all-reduces are a fixed time per layer: they cost a small model (short steps) a larger share
    assert 1.0 < gain8 < gain70 < 2.0
    assert two8.fast_capacity_gb == 192
    # the fixed time grows by two synchronisations per layer (the few kB of activations add < 1 %)
    assert two8.step_ms is not None and one8.step_ms is not None
    added_ms = two8.step_ms.fixed - one8.step_ms.fixed
    assert added_ms == pytest.approx(2 * (LLAMA8.layers or 0) * pcie.allreduce_latency_s * 1000, rel=0.01)
    # each card reads half the weights
    assert two8.step_ms.weights == pytest.approx(one8.step_ms.weights / 2, rel=1e-6)
    nvlink = evaluate(scen(model=LLAMA8, context=0, hw=pcie.model_copy(update={"peer_link_gbps": 450.0})))
    assert (nvlink.decode_tok_s or 0) > (two8.decode_tok_s or 0)  # a shorter synchronisation
    assert pcie.model_copy(update={"tp_scaling": 0.4}).speedup == pytest.approx(1.4)  # an explicit figure wins


def test_layer_split_adds_capacity_and_a_small_hop_per_device() -> None:
    one = evaluate(scen(model=LLAMA8, context=0))
    two = evaluate(scen(hw=GPU24.model_copy(update={"devices": 2}), context=0))
    four = evaluate(scen(hw=GPU24.model_copy(update={"devices": 4}), context=0))
    big_one = evaluate(scen(model=LLAMA70, context=0, hw=GPU24.model_copy(update={"memory_gb": 96})))
    big_four = evaluate(scen(model=LLAMA70, context=0, hw=GPU24.model_copy(update={"devices": 4})))
    assert (four.decode_tok_s or 0) < (two.decode_tok_s or 0) < (one.decode_tok_s or 0)
    assert (two.decode_tok_s or 0) > 0.9 * (one.decode_tok_s or 0)  # no extra bandwidth, a few % of hops
    # the hop is a fixed time: it costs a large model (long steps) a smaller share than a small one
    big_ratio = (big_four.decode_tok_s or 0) / (big_one.decode_tok_s or 1)
    assert big_ratio > (four.decode_tok_s or 0) / (one.decode_tok_s or 1)
    assert two.fast_capacity_gb == 48


def test_speculative_decoding_expected_tokens_and_ceiling_flag() -> None:
    spec = Speculative(enabled=True, draft_params_b=0.5, draft_length=4, acceptance=0.8)
    r = evaluate(
        scen(
            model=LLAMA70.model_copy(update={"total_params_b": 70}),
            bits=4,
            hw=GPU24.model_copy(update={"memory_gb": 80}),
            speculative=spec,
            context=0,
        )
    )
    assert r.speculative_tokens_per_pass == pytest.approx((1 - 0.8**5) / (1 - 0.8))  # 3.36
    assert r.exceeds_ceiling
    assert (r.decode_tok_s or 0) > (r.decode_ceiling_tok_s or 0)


def test_prefill_is_compute_bound_and_ttft_follows() -> None:
    r = evaluate(scen(prompt_tokens=1000, context=1000, compute_efficiency=0.5))
    # 0.5 × 165 TFLOPS ÷ (2 × 8.03 GFLOP + attention) a bit under 5,137 tok/s
    assert 4000 < (r.prefill_tok_s or 0) < 5137.5
    assert r.ttft_s == pytest.approx(1000 / (r.prefill_tok_s or 1))


def test_batch_per_stream_falls_once_compute_bound() -> None:
    c = curve(scen(context=0, output_tokens=0, prompt_tokens=0), "batch", x=np.array([1.0, 8.0, 4096.0]))
    assert c.ceiling[1] == pytest.approx(c.ceiling[0], rel=0.02)  # batching is nearly free: one read of the weights
    assert c.decode[1] <= c.decode[0] * (1 + 1e-9)  # each extra stream costs its fixed time, if any
    assert c.compute_bound[2] and not c.compute_bound[0]
    assert c.aggregate[2] > c.aggregate[1]


def test_moe_reads_active_but_stores_total() -> None:
    moe = ModelArch(
        total_params_b=30.5,
        active_params_b=3.3,
        layers=48,
        heads=32,
        kv_heads=4,
        head_dim=128,
        experts=128,
        experts_active=8,
    )
    r = evaluate(scen(model=moe, bits=4.89, context=0))
    assert r.weights_gb == pytest.approx(30.5 * 4.89 / 8)
    assert r.weights_read_gb == pytest.approx(3.3 * 4.89 / 8)


def test_moe_counts_that_contradict_each_other_still_read_the_active_bytes() -> None:
    """1 of 8 experts of a 1 B model is 0.125 B, yet 0.0625 B are active: no dense part can satisfy both
    (hypothesis found it: the device read went negative and more bandwidth made decode slower). The
    split falls back to reading active ÷ total of every weight."""
    odd = ModelArch(total_params_b=1.0, active_params_b=0.0625, experts=8, experts_active=1)
    dense, experts, share = split_params(odd)
    assert (dense, experts, share) == (0.0, pytest.approx(1e9), pytest.approx(0.0625))
    r = evaluate(scen(model=odd, bits=4.0, context=0))
    assert r.weights_read_gb == pytest.approx(0.0625 * 4 / 8)
    assert split_params(ModelArch(total_params_b=30.5, active_params_b=3.3, experts=128, experts_active=8))[0] > 0


@pytest.mark.parametrize(
    ("tok_s", "expected"),
    [(2.0, Feel.BROKEN), (5.0, Feel.PAINFUL), (10.0, Feel.CHAT), (25.0, Feel.SNAPPY), (50.0, Feel.INSTANT)],
)
def test_feel_classes(tok_s: float, expected: Feel) -> None:
    assert feel(tok_s, DEFAULT_FEEL_THRESHOLDS) is expected


def test_context_curve_cliff_where_kv_overflows() -> None:
    c = curve(scen(model=LLAMA70, bits=2.5, hw=GPU24), "context")
    assert c.cliff_x is not None
    first_over = int(np.argmax(~c.fits))
    assert c.decode[first_over] < c.decode[first_over - 1]


def test_no_architecture_kv_is_estimated_from_a_typical_shape_and_said() -> None:
    """A model known only by its size gets a typical shape: a KV cache between half and twice the real
    model's of that size (Llama 3.1 8B: 128 KiB per token at 16 bits), growing with context, and a note."""
    bare = scen(model=ModelArch(total_params_b=8.03))
    r = evaluate(bare)
    assert not r.kv_known and any("estimated from a typical shape" in n for n in r.notes)
    w = bare.workload
    per_token = r.kv_gb * GB / ((w.context + w.output_tokens) * w.streams)
    assert 0.5 * 131_072 < per_token < 2 * 131_072
    longer = evaluate(bare.model_copy(update={"workload": w.model_copy(update={"context": w.context * 8})}))
    assert longer.kv_gb > r.kv_gb * 4 and (longer.decode_tok_s or 0) < (r.decode_tok_s or 0)
    assert any(s.label == "KV cache" and "estimated" in s.text for s in r.steps)


def test_unknown_memory_is_not_checked() -> None:
    """Custom hardware without a memory size: the numbers are given, the fit is not checked (no 'does not
    run' from a made-up capacity), and a note says so. The seeds' H100 example: 3,350 GB/s ÷ 140 GB."""
    hw = Hardware(bandwidth_gbps=3350, memory_gb=None)
    s = Scenario(
        hardware=hw,
        model=ModelArch(total_params_b=70),
        quant=Quant(bits_per_weight=16),
        workload=Workload(efficiency=1.0, context=0),
    )
    r = evaluate(s)
    assert r.runs and r.fits is None and r.fast_capacity_gb is None
    assert r.decode_ceiling_tok_s == pytest.approx(3350 / 140, rel=2e-3)
    assert any("Memory size not given" in n for n in r.notes)


def test_long_context_stops_at_the_bandwidth_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the KV factor κ is below the η in use (on discrete GPUs the fitted κ can be below the fitted η
    times an architecture's factor), past the measured contexts the realistic figure would overtake the
    ceiling: it stops there, and its band's top with it. κ = 0.5 here makes that happen by 131K."""
    from dataclasses import replace

    import advisor.core.inputs as inputs_module
    from advisor.core.calibration import CALIBRATION
    from advisor.core.terms import Engine

    key = (HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP)
    terms = CALIBRATION.terms[key]
    assert terms.fitted and terms.decode.kv_factor > 0
    low_kv = replace(terms, decode=replace(terms.decode, kv_factor=0.5))
    monkeypatch.setattr(inputs_module, "CALIBRATION", replace(CALIBRATION, terms={**CALIBRATION.terms, key: low_kv}))
    s = scen(context=131072)
    r = evaluate(s)
    # ceiling: (4.91 GB weights + 131,072 tokens × 131,072 B of KV) ÷ 1000 GB/s = 22.1 ms → 45.3 tok/s
    assert r.decode_ceiling_tok_s == pytest.approx(1000e9 / (8.03e9 * 4.89 / 8 + 131072 * 131072), rel=1e-6)
    assert r.decode_tok_s == pytest.approx(r.decode_ceiling_tok_s, rel=1e-9)
    assert r.decode_high_tok_s == pytest.approx(r.decode_ceiling_tok_s, rel=1e-9)
    assert "capped at the ceiling" in next(st.text for st in r.steps if st.label == "Decode realistic")
    # at 4k the cap does not bind: the realistic figure sits below the ceiling
    short = evaluate(scen(context=4096))
    assert short.decode_tok_s is not None and short.decode_ceiling_tok_s is not None
    assert short.decode_tok_s < short.decode_ceiling_tok_s
    assert "capped at the ceiling" not in next(st.text for st in short.steps if st.label == "Decode realistic")
    c = curve(s, "context", n=50)
    assert np.all(c.decode <= c.ceiling * (1 + 1e-9)) and np.all(c.high <= c.ceiling * (1 + 1e-9))


def test_a_shapeless_moe_is_as_deep_as_a_dense_model_of_its_active_size() -> None:
    """Kimi K2 (1,000 B total, 32 B active) and DeepSeek-V3 (671 B, 37 B) have 61 layers; a shape from the
    total would give well over 100, and twice as many GPU-host hand-offs when their experts are offloaded."""
    for total, active in ((1000.0, 32.0), (671.0, 37.0)):
        moe = with_typical_shape(ModelArch(total_params_b=total, active_params_b=active, experts=256, experts_active=8))
        dense = with_typical_shape(ModelArch(total_params_b=active))
        assert moe.layers == dense.layers and 45 <= (moe.layers or 0) <= 80


def test_a_cpu_on_few_threads_cannot_pull_its_memory_bandwidth() -> None:
    """Each core pulls at most CORE_READ_GBPS from DRAM: one thread of a 16-core, 89.6 GB/s desktop decodes far
    slower than all of them, while more threads than cores add nothing."""
    cpu = Hardware(
        kind=HardwareClass.CPU, memory_gb=64, bandwidth_gbps=89.6, fp16_tflops=4.4, host_memory_gb=0, host_threads=16
    )

    def on(threads: int | None) -> Scenario:
        return scen(hw=cpu, context=0, output_tokens=0, threads=threads)

    assert fast_read_gbps(on(1)) == pytest.approx(CORE_READ_GBPS)
    assert fast_read_gbps(on(None)) == fast_read_gbps(on(64)) == 89.6
    one, every = evaluate(on(1)), evaluate(on(None))
    assert (one.decode_tok_s or 0) < 0.5 * (every.decode_tok_s or 0)
