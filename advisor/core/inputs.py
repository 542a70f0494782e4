"""Turn a scenario into the roofline's plain numbers (bytes, FLOP/s, tokens)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from advisor.core.calibration import CALIBRATION, Calibration, terms_for
from advisor.core.efficiency import Engine
from advisor.core.hardware import CORE_READ_GBPS, HardwareClass
from advisor.core.hardware_keys import generation_key, resolve_backend, vulkan_generation_key
from advisor.core.kv import kv_shape
from advisor.core.matrix_units import f16_accumulate_gain, int8_tops_in_use, matrix_tflops_in_use
from advisor.core.measured import model_key
from advisor.core.model import ModelArch
from advisor.core.quant import KVPrecision
from advisor.core.roofline import Inputs, Num
from advisor.core.scenario import Scenario
from advisor.core.shape import fixed_time_scale, model_layers, with_typical_shape
from advisor.core.sycl_prefill import sycl_fields
from advisor.core.terms import Backend, BackendTerms, ClassTerms, MachineTerms
from advisor.core.units import BILLION, GB, TFLOPS
from advisor.core.vector_units import vector_tflops

# One hand-off between the GPU and the host CPU inside a llama.cpp step (a synchronisation and the
# activations' copy), from llama.cpp PR #4812 on an RTX 3090 Ti: LLaMA 7B Q4_0 tg128 127.43 tok/s with the KV
# cache on the GPU and 59.99 with -nkvo, whose 32 layers each hand off twice and whose 64-token cache costs
# next to nothing: (1/59.99 - 1/127.43) s ÷ 64 = 0.138 ms. An estimate from one source.
HOST_HOP_S = 0.138e-3


def split_params(model: ModelArch) -> tuple[float, float, float]:
    """(dense params, routed-expert params, expert share) in parameters.

    From total = dense + n·E and active = dense + k·E. Without an expert count, or when the counts
    contradict each other (active below k/n of the total would need a negative dense part), all
    weights are treated as experts read at active/total, which gives the same bytes per token at
    batch 1."""
    total = model.total_params_b * BILLION
    active = model.active_b * BILLION
    if not model.is_moe:
        return total, 0.0, 1.0
    n, k = model.experts, model.experts_active
    if n and k and n > k:
        per_expert = (total - active) / (n - k)
        experts = n * per_expert
        if experts <= total:
            return total - experts, experts, k / n
    return 0.0, total, active / total


def unread_embedding_params(model: ModelArch) -> float:
    """Parameters stored but not read per token: an untied input embedding table (vocabulary × hidden),
    of which a token reads one row. 0 when the model ties it to the output head (the head reads all of
    it every token) or when that is not known."""
    if model.tied_embeddings is not False or not model.vocab or not model.hidden:
        return 0.0
    return float(model.vocab * model.hidden)


def backend_in_use(scenario: Scenario) -> Backend:
    """The llama.cpp backend the scenario runs: the chosen one where it runs on the hardware, else the
    usual one for the hardware (advisor.core.hardware_keys.default_backend)."""
    return resolve_backend(scenario.hardware, scenario.workload.backend)


def backend_terms(scenario: Scenario, calibration: Calibration | None = None) -> BackendTerms:
    """The backend's fitted factors (1.0 for MLX and vLLM, which bring their own kernels)."""
    return (calibration or CALIBRATION).backend(scenario.workload.engine, backend_in_use(scenario))


def machine_terms(scenario: Scenario, calibration: Calibration | None = None) -> MachineTerms:
    """The machine's own fitted factor (1.0 unless published runs on this catalog machine were fitted)."""
    return (calibration or CALIBRATION).machine(scenario.hardware)


def generation_terms(scenario: Scenario, calibration: Calibration | None = None) -> MachineTerms:
    """The hardware's GPU architecture's fitted factor (1.0 unless published runs on it were fitted)."""
    return (calibration or CALIBRATION).generation(scenario.hardware)


def hardware_factors(
    scenario: Scenario, calibration: Calibration | None = None
) -> list[tuple[str | None, MachineTerms]]:
    """The fitted factors on η the hardware carries, those other than 1, in the order they compose: its GPU
    architecture's (with the architecture's name, "NVIDIA Ada"), then the chip's own (name None)."""
    cal = calibration or CALIBRATION
    key = generation_key(scenario.hardware)
    found: list[tuple[str | None, MachineTerms]] = [(None, machine_terms(scenario, calibration))]
    if key is not None:
        vulkan = cal.vulkan_generation(scenario.hardware, backend_in_use(scenario))
        found[:0] = [(key, generation_terms(scenario, calibration)), (vulkan_generation_key(scenario.hardware), vulkan)]
    return [(name, terms) for name, terms in found if terms.decode != 1.0]


def scenario_model_key(scenario: Scenario) -> str:
    """The scenario's model and quant as a calibration names them (advisor.core.measured.model_key)."""
    return model_key(scenario.model.name, scenario.quant.name)


def decode_eta(scenario: Scenario, calibration: Calibration | None = None) -> float:
    """The decode η in use: the user's, or the fitted one for the hardware class and engine times the
    backend's factor, the architecture's and the machine's."""
    w, own = scenario.workload, scenario.hardware.measured
    if w.efficiency is not None:
        return w.efficiency
    eta = (calibration or CALIBRATION).decode_eta(
        scenario.hardware.kind, w.engine, backend_in_use(scenario), scenario.hardware
    )
    # the user's calibration scales the fitted η; no memory delivers more than its datasheet figure
    return min(eta * own.decode_factor_for(scenario_model_key(scenario)), 1.0) if own is not None else eta


def compute_eta(scenario: Scenario, calibration: Calibration | None = None) -> float:
    w, own = scenario.workload, scenario.hardware.measured
    if w.compute_efficiency is not None:
        return w.compute_efficiency
    return (
        terms_for(scenario.hardware.kind, w.engine, calibration).prefill.eta
        * backend_terms(scenario, calibration).prefill
        * (calibration or CALIBRATION).vulkan_prefill_factor(scenario.hardware, backend_in_use(scenario))
        * (own.prefill_factor_for(scenario_model_key(scenario)) if own is not None else 1.0)
    )


def calibrated_fields(
    eta: Any,
    compute: Any,
    scaling: Any,
    speedup: Any = 1.0,
    *,
    token_ms: Any = 0.0,
    kv_factor: Any = 1.0,
    dequant_flop: Any = 0.0,
    stream_cost: Any = 0.0,
    quant_factor: Any = 1.0,
    attn_factor: Any = 1.0,
    moe_factor: Any = 1.0,
    int8_factor: Any = 0.0,
    backend_decode: Any = 1.0,
    backend_prefill: Any = 1.0,
    moe_token: Any = 1.0,
) -> dict[str, Any]:
    """The realistic-speed terms as roofline input fields (scalars or arrays alike; the validation
    fitter calls this with one value per measurement). `eta` and `compute` are the class's; the
    backend's factors multiply them.

    Tensor split: `scaling` is the realized share of the summed bandwidth and compute, `speedup`
    the single-stream multiple over one device; the fixed and unpacking times shrink by the same
    multiple, so N devices make the whole realistic step exactly `speedup` times faster."""
    return dict(
        fast_eta=np.minimum(eta * backend_decode, 1.0) * scaling,  # never above the datasheet bandwidth
        compute_eta=compute * backend_prefill * scaling,
        token_time=token_ms / 1000.0 / speedup,
        moe_token_factor=moe_token,
        kv_factor=kv_factor,
        dequant_flops=dequant_flop / scaling,
        stream_cost=stream_cost,
        prefill_quant_eta=quant_factor,
        prefill_attn_factor=attn_factor,
        prefill_moe_eta=moe_factor,
        prefill_int8_eta=int8_factor,
    )


def realistic_fields(scenario: Scenario, calibration: Calibration | None = None) -> dict[str, Any]:
    """Fitted terms for the scenario's class and engine. An explicit η switches the decode overhead
    terms off (plain η × ceiling); an explicit compute η does the same for prefill."""
    w, hw = scenario.workload, scenario.hardware
    cal = calibration or CALIBRATION
    t: ClassTerms = terms_for(hw.kind, w.engine, cal)
    d, p = t.decode, t.prefill
    plain_decode = w.efficiency is not None
    plain_prefill = w.compute_efficiency is not None
    # decode_eta / compute_eta already carry the backend's factor (or are the user's plain η); the user's
    # calibration adds its fixed time to the step (never below none), which the solver scales like t₀
    t0 = cal.token_ms(hw.kind, w.engine, backend_in_use(scenario))
    own_ms = hw.measured.token_ms_for(scenario_model_key(scenario)) if hw.measured is not None else 0.0
    own_ms /= fixed_time_scale(scenario.model) * cal.moe_factor(w.engine, scenario.model.is_moe)
    return calibrated_fields(
        decode_eta(scenario, calibration),
        compute_eta(scenario, calibration),
        hw.scaling_efficiency,
        hw.speedup,
        token_ms=0.0 if plain_decode else max(t0 + own_ms, 0.0),
        moe_token=1.0 if plain_decode else (calibration or CALIBRATION).moe_factor(w.engine, True),
        kv_factor=1.0 if plain_decode else d.kv_factor,
        dequant_flop=0.0 if plain_decode else d.dequant_flop,
        stream_cost=0.0 if plain_decode else d.stream_cost,
        quant_factor=1.0 if plain_prefill else p.quant_factor,
        attn_factor=1.0 if plain_prefill else p.attn_factor,
        moe_factor=1.0 if plain_prefill else p.moe_factor,
        int8_factor=0.0 if plain_prefill else p.int8_factor,
    )


def decode_band(scenario: Scenario) -> tuple[float, float]:
    """measured ÷ predicted decode at the 10th and 90th percentile, as the validation found it for
    the scenario's hardware class and engine (advisor.core.calibration); with the user's own
    calibration, narrowed by the runs it rests on (advisor.core.measured.calibrated_band)."""
    shipped = terms_for(scenario.hardware.kind, scenario.workload.engine).decode.band
    own = scenario.hardware.measured
    if own is None or scenario.workload.efficiency is not None:
        return shipped
    return own.band(shipped, scenario_model_key(scenario))


def band_runs(scenario: Scenario) -> int:
    """How many of the user's own decode runs the band rests on: 0 when it is the validation's (no own
    calibration, a typed η, or runs of another model, whose band stays the shipped one)."""
    own = scenario.hardware.measured
    if own is None or scenario.workload.efficiency is not None:
        return 0
    return own.decode_runs if own.weight(scenario_model_key(scenario)) >= 1.0 else 0


def realistic_band(scenario: Scenario, decode: Num, ceiling: Num) -> tuple[Num, Num]:
    """(low, high) around realistic decode figures (floats or arrays). The top stops at the ceiling:
    a measurement cannot beat it (speculation, which can, already puts decode above it)."""
    lo, hi = decode_band(scenario)
    return decode * lo, np.minimum(decode * hi, np.maximum(ceiling, decode))


def attention_unfused(scenario: Scenario) -> bool:
    """Attention runs as separate kernels: llama.cpp with flash attention off. MLX and vLLM always fuse
    attention; an explicit η means plain η × ceiling."""
    w = scenario.workload
    return not w.flash_attention and w.engine is Engine.LLAMA_CPP and w.efficiency is None


def unfused_attn_eta(scenario: Scenario, calibration: Calibration | None = None) -> float:
    """η_a when attention runs unfused (attention_unfused), else 0 (no extra term)."""
    return (calibration or CALIBRATION).unfused_attn_eta if attention_unfused(scenario) else 0.0


def model_terms(model: ModelArch, kv_cache: KVPrecision) -> dict[str, float]:
    """The model's share of the roofline inputs, in parameters (times bytes per weight gives bytes). A model
    without a known shape gets a typical one for its size (advisor.core.shape), never a KV cache of zero."""
    model = with_typical_shape(model)
    dense, experts, share = split_params(model)
    kv = kv_shape(model, kv_cache)
    layers = model_layers(model)
    heads = model.heads or 0
    if model.attention == "mla":
        width = heads * (model.kv_lora_rank or 0)
    else:
        width = heads * (model.resolved_head_dim or 0)
    sliding = (model.sliding_layers or 0) if model.attention == "sliding" else 0
    # QKᵀ and AV: 2 FLOP per multiply-add, two matmuls, per head dimension, per cached token.
    per_layer = 4.0 * width
    return dict(
        dense_params=dense,
        expert_params=experts,
        expert_share=share,
        active_params=model.active_b * BILLION,
        layers=float(layers),
        hidden=float(model.hidden or 0),
        state_bytes=model.state_bytes_per_sequence or 0.0,
        unread_params=min(unread_embedding_params(model), dense),
        kv_full=kv.full_bytes_per_token,
        kv_window=kv.window_bytes_per_token,
        window=kv.window,
        # a hybrid's linear-attention or state-space layers do no attention over the context
        attn_flops_full=per_layer
        * ((model.attention_layers if model.attention_layers is not None else model.layers or 0) - sliding),
        attn_flops_window=per_layer * sliding,
        attn_head_dim=float((model.kv_lora_rank if model.attention == "mla" else model.resolved_head_dim) or 128),
    )


def pipeline_parallel(scenario: Scenario) -> bool:
    """llama.cpp pipelines prefill over a layer split of several devices (llama-context.cpp: more than one
    device, split mode layer, the KV cache offloaded; the solver adds: every layer on the devices)."""
    hw, w = scenario.hardware, scenario.workload
    return hw.devices > 1 and hw.split == "layer" and w.engine is Engine.LLAMA_CPP and w.offload != "kv"


def host_threads(scenario: Scenario) -> int:
    """The CPU threads host-resident work runs on: the workload's (-t), else the host's physical cores."""
    w = scenario.workload
    return w.threads if w.threads is not None else scenario.hardware.host_threads


def cores_used(scenario: Scenario) -> int:
    """The physical cores the threads occupy: more threads than cores add nothing."""
    return min(host_threads(scenario), scenario.hardware.host_threads)


def fast_read_gbps(scenario: Scenario) -> float:
    """The bandwidth weights stream at: the datasheet's, and on a CPU-only machine no more than its
    threads' cores can pull (the machine's read per core, else CORE_READ_GBPS each)."""
    hw = scenario.hardware
    if hw.kind is not HardwareClass.CPU:
        return hw.fast_bandwidth_gbps
    return min(hw.fast_bandwidth_gbps, cores_used(scenario) * (hw.core_read_gbps or CORE_READ_GBPS))


def core_share(scenario: Scenario) -> float:
    """A CPU-only machine computes with the threads it is given: fewer than its physical cores reach
    that share of its vector peak (more threads than cores add nothing). Other machines: 1."""
    if scenario.hardware.kind is not HardwareClass.CPU:
        return 1.0
    return cores_used(scenario) / scenario.hardware.host_threads


def host_flops(scenario: Scenario) -> float:
    """FLOP/s the host CPU realizes on host-resident weights and KV: threads × the per-thread rate.
    Infinite for vLLM, whose CPU offload streams the weights to the GPU to be computed there."""
    if scenario.workload.engine is Engine.VLLM:
        return math.inf
    return host_threads(scenario) * scenario.hardware.host_gflops_per_thread * 1e9


def build_inputs(scenario: Scenario, calibration: Calibration | None = None, **overrides: Any) -> Inputs:
    """All roofline inputs for a scenario; `overrides` replaces any field, e.g. context=np.array(...).

    `calibration` picks the realistic-speed model (default: the fitted one; the validation passes
    calibration.FLAT for the flat-η baseline)."""
    hw, w = scenario.hardware, scenario.workload
    cal = calibration or CALIBRATION
    streams_weights = w.engine is Engine.VLLM  # vLLM's CPU offload streams weights over the link each step
    host_bw = hw.host_bandwidth_gbps * GB
    if streams_weights:
        host_bw = min(host_bw, hw.host_link_gbps * GB)
    spec = w.speculative
    fields: dict[str, Any] = dict(
        fast_bw=fast_read_gbps(scenario) * GB,
        host_bw=host_bw,
        host_eta=cal.host_eta,
        fast_cap=max(hw.fast_capacity_gb - w.overhead_gb, 0.0) * GB,
        host_cap=hw.host_capacity_gb * GB,
        flops=matrix_tflops_in_use(scenario) * TFLOPS * core_share(scenario),
        int8_flops=int8_tops_in_use(scenario) * TFLOPS,
        vector_flops=vector_tflops(hw) * TFLOPS * core_share(scenario),
        f16_gain=f16_accumulate_gain(scenario),
        link_bw=hw.host_link_gbps * GB,
        context=float(w.context),
        hold_tokens=float(w.context + w.output_tokens),
        prompt=float(w.prompt_tokens),
        streams=float(w.streams),
        forced_layers=float(w.gpu_layers) if w.gpu_layers is not None else math.nan,
        experts_first=1.0 if w.offload == "experts" else 0.0,
        # a CPU-only machine has no second pool to hold the KV cache in
        kv_host=1.0 if w.offload == "kv" and hw.kind is not HardwareClass.CPU else 0.0,
        auto_place=1.0 if w.offload == "auto" else 0.0,
        host_flops=host_flops(scenario),
        disk_bw=hw.disk_read_gbps * GB if w.engine is Engine.LLAMA_CPP else 0.0,
        hop_time=HOST_HOP_S if w.engine is Engine.LLAMA_CPP else 0.0,
        draft_bytes=spec.draft_params_b * BILLION * scenario.quant.bytes_per_weight if spec.enabled else 0.0,
        draft_length=float(spec.draft_length),
        acceptance=spec.acceptance,
        prefill_rate=w.prefill_rate if w.prefill_rate is not None else math.nan,
        cpu_moe_layers=float(w.cpu_moe_layers) if w.cpu_moe_layers is not None else math.nan,
        expert_spread=cal.expert_spread,
        pipeline_stages=float(hw.devices) if pipeline_parallel(scenario) else 1.0,
    )
    fields.update(realistic_fields(scenario, cal))
    fields["unfused_attn_eta"] = unfused_attn_eta(scenario, cal)
    fields["attn_unfused"] = 1.0 if attention_unfused(scenario) else 0.0
    fields["on_cores"] = 1.0 if hw.kind is HardwareClass.CPU else 0.0
    if hw.tensor_parallel:
        fields.update(
            allreduces=2.0 * model_layers(scenario.model),
            allreduce_time=hw.allreduce_latency_s,
            allreduce_share=2.0 * (hw.devices - 1) / hw.devices,
            peer_bw=hw.device_link_gbps * GB,
        )
    fields["attn_threads"] = float(cores_used(scenario))
    fields.update(sycl_fields(scenario, cal))
    fields["cpu_attn_rate"] = cal.cpu_attn_gbps * GB
    fields["fused_attn_eta"] = 0.0 if w.efficiency is not None else cal.fused_attn_eta
    fields.update(
        weight_bytes(
            model_terms(scenario.model, w.kv_cache),
            scenario.quant.bytes_per_weight,
            scenario.quant.dense_bytes_per_weight,
        )
    )
    fields.update(overrides)
    return Inputs(**fields)


def weight_bytes(terms: dict[str, Any], bytes_per_weight: Any, dense_bytes_per_weight: Any = None) -> dict[str, Any]:
    """Model terms with parameter counts turned into bytes at a quant (arrays broadcast). The experts are
    at `bytes_per_weight`; an MoE model's other tensors at `dense_bytes_per_weight` (default: the same).
    A dense model has no experts, and all of it is at `bytes_per_weight`."""
    dense_bpw = bytes_per_weight
    if dense_bytes_per_weight is not None:
        dense_bpw = np.where(np.asarray(terms["expert_params"]) > 0, dense_bytes_per_weight, bytes_per_weight)
    out = {k: v for k, v in terms.items() if k not in ("dense_params", "expert_params", "unread_params")}
    out["dense_bytes"] = terms["dense_params"] * dense_bpw
    out["unread_bytes"] = terms["unread_params"] * dense_bpw
    out["expert_bytes"] = terms["expert_params"] * bytes_per_weight
    out["bytes_per_weight"] = bytes_per_weight
    out["dense_bytes_per_weight"] = dense_bpw
    return out
