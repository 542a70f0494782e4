"""The worked arithmetic: each figure's terms as a person reads them.

Every number here is a term the solver returned (advisor.core.roofline.Outputs) or an input it was
given; this module only formats them, so the text, the JSON and the bound cannot disagree."""

from __future__ import annotations

import numpy as np

from advisor.core.calibration import CALIBRATION
from advisor.core.fmt import num
from advisor.core.hardware_keys import BACKEND_LABELS, VULKAN_SUFFIX, vulkan_vendor
from advisor.core.inputs import backend_in_use, backend_terms, hardware_factors, host_threads
from advisor.core.matrix_units import matrix_tflops_in_use, vector_only
from advisor.core.prefill import PREFILL_UBATCH, SCORE_BYTES, on_int8_units
from advisor.core.roofline import OFFLOAD_MIN_BATCH, Inputs, Outputs
from advisor.core.roofline_inputs import T0_LAYERS, quantized
from advisor.core.scenario import Scenario
from advisor.core.sycl_layout import scenario_type
from advisor.core.terms import MachineTerms
from advisor.core.units import GB, MS_PER_S


def first(x: float | np.ndarray) -> float:
    """The first element of a roofline field or output (a scenario solves one point)."""
    return float(np.asarray(x).reshape(-1)[0])


def plural(n: float) -> str:
    return "" if n == 1 else "s"


def ms(t: float) -> str:
    return f"{num(t * MS_PER_S)} ms"


def _backend_factor(s: Scenario, part: str) -> tuple[float, str] | None:
    """(factor, "× 0.95 Metal") when the fitted η in use carries a backend factor other than 1."""
    w = s.workload
    if (w.efficiency if part == "decode" else w.compute_efficiency) is not None:
        return None
    backend = backend_in_use(s)
    factor = getattr(backend_terms(s), part)
    text = f" × {factor:.2f} {BACKEND_LABELS[backend]}" if factor != 1.0 else ""
    vendor = CALIBRATION.vulkan_prefill_factor(s.hardware, backend) if part == "prefill" else 1.0
    if vendor != 1.0:  # prefill under Vulkan: the vendor's cooperative-matrix path has its own
        factor *= vendor
        text += f" × {vendor:.2f} {vulkan_vendor(s.hardware)} under Vulkan"
    return (factor, text) if text else None


def _fitted_factor(s: Scenario, terms: MachineTerms, what: str) -> tuple[float, str] | None:
    """(factor, " × 0.965 <what> (fitted to 28 decode runs)") for a fitted hardware factor other than 1,
    unless an explicit η replaces the fitted one."""
    if s.workload.efficiency is not None or terms.decode == 1.0:
        return None
    runs = f"{terms.rows} decode run{'s' if terms.rows != 1 else ''}"
    return terms.decode, f" × {terms.decode:.3g} {what} (fitted to {runs})"


def _factor_name(key: str | None) -> str:
    """ "NVIDIA Ada architecture", "Intel Battlemage architecture under Vulkan", or "this machine's own"."""
    if key is None:
        return "this machine's own"
    if key.endswith(VULKAN_SUFFIX):
        return f"{key.removesuffix(VULKAN_SUFFIX)} architecture{VULKAN_SUFFIX}"
    return f"{key} architecture"


def _hardware_factors(s: Scenario) -> list[tuple[float, str]]:
    """The architecture's factor ("× 1.07 Apple M3 architecture (fitted to 10 decode runs)"), then the
    machine's own ("× 0.965 this machine's own (fitted to 28 decode runs)"). A chip's runs count every
    card count of it (2× RTX 3090 is the same chip), so they can exceed its record's."""
    found = [_fitted_factor(s, terms, _factor_name(key)) for key, terms in hardware_factors(s)]
    return [f for f in found if f is not None]


def _layout_text(s: Scenario, inp: Inputs) -> str:
    """ " × 0.27 SYCL plain block layout (no reordered IQ4_NL kernel)" where the solver's weights stream at
    a share of η (advisor.core.sycl_layout), else ""."""
    if (factor := first(inp.layout_eta)) == 1.0:
        return ""
    experts = " experts" if s.model.is_moe else ""
    return f" × {factor:.2f} SYCL plain block layout (no reordered {scenario_type(s)}{experts} kernel)"


def _eta_text(s: Scenario, eta: float, layout: str = "") -> str:
    """ "η 0.84 × 1.06 NVIDIA Ada architecture (…)": the class's η, then each factor it carries."""
    factors = ([b] if (b := _backend_factor(s, "decode")) is not None else []) + _hardware_factors(s)
    class_eta = eta
    for value, _ in factors:
        class_eta /= value
    # the layout's share is the weights' own, on top of the η in use (the KV cache keeps that η)
    text = f"η {class_eta:.2f}" + "".join(t for _, t in factors) + layout
    if s.hardware.scaling_efficiency < 1:
        text += f" × {s.hardware.scaling_efficiency:.2f} multi-device scaling"
    return text


def memory_terms_text(s: Scenario, inp: Inputs, out: Outputs, eta: float) -> list[str]:
    """The memory side of the step, one string per term the solver counted."""
    hw = s.hardware
    bw = first(inp.fast_bw) / GB
    kv = first(out.fast_kv)
    weights = first(out.fast_read) - kv
    parts = []
    if weights > 0:
        eta_text = _eta_text(s, eta, _layout_text(s, inp))
        parts.append(f"{num(weights / GB)} GB ÷ ({num(bw)} GB/s × {eta_text}) = {ms(first(out.t_weights))}")
    if kv > 0 and first(inp.on_cores) == 0:  # on CPU cores the attention walk below reads the cache
        factor = first(out.kv_cost)
        scaled = f" × {factor:.2f}" if factor != 1 else ""
        t_kv, t_flops = first(out.t_kv), first(out.t_kv_flops)
        if t_flops > 0 and t_flops >= t_kv:  # the kernel's arithmetic outlasts its read of the cache
            eta_f, gflop = first(inp.fused_attn_eta), t_flops * first(inp.flops) * first(inp.fused_attn_eta) / 1e9
            parts.append(
                f"attention {num(gflop)} GFLOP ÷ ({num(first(inp.flops) / 1e12)} TFLOPS × η_f {eta_f:.3g}) = "
                f"{ms(t_kv)} (longer than reading its KV {num(kv / GB)} GB)"
            )
        else:
            kv_rate = "the same rate" if first(inp.layout_eta) == 1.0 else f"η {eta:.2f}'s rate"
            parts.append(f"KV {num(kv / GB)} GB{scaled} at {kv_rate} = {ms(t_kv)}")
    if (host := first(out.host_read)) > 0:
        parts.append(host_text(s, inp, out, host))
    if (dq := first(out.t_dequant)) > 0:
        flop = first(inp.dequant_flops) * hw.scaling_efficiency
        parts.append(
            f"unpacking {num(first(out.unpacked_weights) / 1e9)} B quantized weights × "
            f"{num(flop)} FLOP ÷ {num(first(inp.vector_flops) / 1e12)} TFLOPS on the vector units = {ms(dq)}"
        )
    if (t_streams := first(out.t_streams)) > 0:
        parts.append(
            f"{s.workload.streams - 1} more streams' matmuls ({num(2 * first(inp.active_params) / 1e9)} GFLOP each "
            f"× {first(inp.stream_cost):.2f} ÷ {num(first(inp.flops) / 1e12)} TFLOPS) = {ms(t_streams)}"
        )
    if (t_attn := first(out.t_attn)) > 0 and first(inp.on_cores) > 0:
        threads, rate = first(inp.attn_threads), first(inp.cpu_attn_rate)
        cache_gb = first(out.fast_kv) / 1e9
        bus = " (the memory's rate: the threads walk it faster)" if cache_gb * 1e9 / (threads * rate) < t_attn else ""
        parts.append(
            f"attention on the cores: {num(cache_gb)} GB of cache ÷ ({threads:.0f} thread{plural(threads)} × "
            f"{num(rate / 1e9)} GB/s each) = {ms(t_attn)}{bus}"
        )
    elif t_attn > 0:
        eta_a = first(inp.unfused_attn_eta)
        gflop = t_attn * first(inp.flops) * eta_a / 1e9
        parts.append(
            f"attention without flash attention {num(gflop)} GFLOP ÷ ({num(hw.compute_tflops)} TFLOPS × "
            f"η {eta_a:.3g}) = {ms(t_attn)}"
        )
    return parts


def host_text(s: Scenario, inp: Inputs, out: Outputs, host: float) -> str:
    """The host's part of the step: its RAM (and disk) reads, or, when longer, the host CPU's arithmetic."""
    disk = first(out.disk_read)
    reads = f"host {num((host - disk) / GB)} GB ÷ ({num(first(inp.host_bw) / GB)} GB/s × η {first(inp.host_eta):.2f})"
    if disk > 0:
        reads += f" + disk {num(disk / GB)} GB ÷ {num(first(inp.disk_bw) / GB)} GB/s"
    t_host, t_bytes, t_hops = first(out.t_host), first(out.t_host_bytes), first(out.t_host_hops)
    hops = f" + {int(first(out.host_hops))} device-host hand-offs × {ms(first(inp.hop_time))}" if t_hops > 0 else ""
    if first(out.t_host_compute) <= t_bytes:
        return f"{reads}{hops} = {ms(t_host)}"
    threads = host_threads(s)
    attn = ""
    if (t_attn := first(out.t_host_attn)) > 0:
        walkers, rate = first(inp.attn_threads), first(inp.cpu_attn_rate)
        attn = (
            f" + attention over its KV {num(t_attn * walkers * rate / GB)} GB ÷ "
            f"({walkers:.0f} thread{plural(walkers)} × {num(rate / GB)} GB/s each)"
        )
    return (
        f"host CPU {num(first(out.host_flops) / 1e9)} GFLOP (its weights) ÷ "
        f"({threads} thread{plural(threads)} × {num(s.hardware.host_gflops_per_thread)} GFLOPS){attn}"
        f"{hops} = {ms(t_host)} (the CPU's work is longer than reading its {num(host / GB)} GB, "
        f"{ms(t_bytes)})"
    )


def compute_text(s: Scenario, inp: Inputs, out: Outputs) -> str:
    """The compute side of the step: streams × FLOP per token ÷ realized FLOP/s."""
    w = s.workload
    realized = first(out.compute_rate) / 1e12
    return (
        f"{w.streams} stream{'s' if w.streams > 1 else ''} × {num(first(out.compute_flops) / 1e9)} GFLOP/token "
        f"÷ {num(realized)} TFLOPS realized = {ms(first(out.t_compute))} per step"
    )


def realistic_text(s: Scenario, inp: Inputs, out: Outputs, eta: float) -> str:
    """The realistic decode step, term by term, adding up to the tok/s shown."""
    parts = memory_terms_text(s, inp, out, eta)
    memory, compute = first(out.t_memory), first(out.t_compute)
    if first(inp.on_cores) > 0:  # the cores load, then multiply: the two add
        parts = [*parts, f"the cores' multiply-adds {ms(compute)}"]
        body = " + ".join(parts)
    elif bool(first(out.compute_bound)):
        body = f"compute {ms(compute)} per step (longer than memory {ms(memory)})"
        parts = [body]
    else:
        body = " + ".join(parts) if parts else ms(memory)
    token = first(out.t_token)
    if token > 0:
        body += f" + {ms(token)} fixed per step"
        moe = first(inp.moe_token_factor) if first(inp.expert_bytes) > 0 else 1.0
        layers = first(inp.layers)
        scaled = layers > 0 and layers != T0_LAYERS
        why = [f"{ms(first(inp.token_time))} per {T0_LAYERS:.0f} layers × {layers:.0f} layers"] if scaled else []
        if moe != 1.0:
            base = [] if scaled else [ms(first(inp.token_time))]  # the dense step's fixed time it multiplies
            why += [*base, f"× {moe:.3g} for a mixture of experts: router, top-k and gather kernels"]
        if why:
            body += f" ({' '.join(why)})"
        if (sync := first(out.t_sync)) > 0:
            body += (
                f" (of which {int(first(inp.allreduces))} all-reduces of the tensor split × "
                f"{first(inp.allreduce_time) * 1e6:.0f} µs and their activations = {ms(sync)})"
            )
    step = first(out.t_step)
    total = f" = {ms(step)} per step" if (len(parts) > 1 or token > 0) else " per step"
    plain = first(out.decode_plain)
    if bool(first(out.capped)):
        return (
            f"{body}{total} → {num(1 / step)} tok/s, above the bandwidth ceiling (the KV factor, fitted on "
            f"shorter contexts, is below η): capped at the ceiling, {num(plain)} tok/s per stream"
        )
    return f"{body}{total} → {num(plain)} tok/s per stream"


def ceiling_text(s: Scenario, inp: Inputs, out: Outputs) -> str:
    """The ceiling: bytes ÷ datasheet bandwidth, or, when the batch's arithmetic takes longer even at the
    peak, FLOP ÷ peak FLOP/s."""
    fast_read, host_read = first(out.fast_read), first(out.host_read)
    fast_bw = first(inp.fast_bw)
    if bool(first(out.t_compute_ceiling) > first(out.t_mem_ceiling)):
        streams = s.workload.streams
        return (
            f"{streams} stream{'s' if streams > 1 else ''} × {num(first(out.flops_per_token) / 1e9)} GFLOP/token "
            f"÷ {num(first(inp.flops) / 1e12)} TFLOPS peak = {ms(first(out.t_compute_ceiling))} per step, longer "
            f"than reading {num((fast_read + host_read) / GB)} GB ({ms(first(out.t_mem_ceiling))}) "
            f"→ {num(first(out.ceiling))} tok/s ceiling"
        )
    if host_read > 0:
        disk = first(out.disk_read)
        from_disk = f" + {num(disk / GB)} GB ÷ {num(first(inp.disk_bw) / GB)} GB/s disk" if disk > 0 else ""
        return (
            f"{num(fast_read / GB)} GB ÷ {num(fast_bw / GB)} GB/s + {num((host_read - disk) / GB)} GB ÷ "
            f"{num(first(inp.host_bw) / GB)} GB/s host{from_disk} = {ms(first(out.t_mem_ceiling))} per step "
            f"→ {num(first(out.ceiling))} tok/s ceiling"
        )
    ceiling = num(first(out.ceiling))
    text = f"{num(fast_bw / GB)} GB/s ÷ {num(fast_read / GB)} GB read per step = {ceiling} tok/s ceiling"
    kv = first(out.fast_kv)
    if kv > 0 and (alone := num(fast_bw / (fast_read - kv))) != ceiling:  # the weights-only figure, for comparison
        text += f" (the weights alone: {alone} tok/s)"
    return text


def weights_text(s: Scenario, inp: Inputs, weights: float, weights_read: float) -> str:
    m, q = s.model, s.quant
    dense_bits = q.dense_bits_per_weight
    experts = first(inp.expert_bytes) / first(inp.bytes_per_weight)
    if m.is_moe and dense_bits is not None and dense_bits != q.bits_per_weight and experts > 0:
        dense = first(inp.dense_bytes) / (dense_bits / 8)
        stored = (
            f"{num(experts / 1e9)} B expert params × {num(q.bits_per_weight)} bits + {num(dense / 1e9)} B "
            f"outside the experts × {num(dense_bits)} bits, ÷ 8 = {num(weights / GB)} GB stored"
        )
    else:
        stored = f"{num(m.total_params_b)} B params × {num(q.bits_per_weight)} bits ÷ 8 = {num(weights / GB)} GB stored"
    unread = first(inp.unread_bytes)
    skipped = (
        f" (less the input embedding table, {num(m.vocab or 0)} × {num(m.hidden or 0)} = "
        f"{num((m.vocab or 0) * (m.hidden or 0) / 1e9)} B params, {num(unread / GB)} GB: a token "
        "looks up one row of it)"
        if unread > 0
        else ""
    )
    if m.is_moe:
        return stored + f"; {num(m.active_b)} B active{skipped} → {num(weights_read / GB)} GB read per token"
    return stored + (f"; {num(weights_read / GB)} GB read per token{skipped}" if unread > 0 else "")


def _scores_and_pipeline(s: Scenario, inp: Inputs, out: Outputs) -> str:
    """The prefill terms beyond compute: unfused attention's scores through memory, a layer split's pipeline."""
    text = ""
    copy = first(out.t_prefill_copy)
    if copy > 0:
        text += (
            f", + the weights unpacked into a dense FP{8 * first(inp.dense_copy_bytes):.0f} copy through memory per "
            f"{PREFILL_UBATCH}-token micro-batch before each matmul ({ms(copy)} per prompt)"
        )
    scores = first(out.t_prefill_scores)
    if scores > 0:
        text += (
            f", + attention scores through memory without flash attention ({SCORE_BYTES:.0f} bytes per score: "
            f"{ms(scores)} per prompt)"
        )
    pipeline = first(out.prefill_pipeline)
    if pipeline > 1:
        batches = round(first(out.prefill_batches))
        text += (
            f", ÷ {pipeline:.2f} for {batches} micro-batches of {PREFILL_UBATCH} pipelined over "
            f"{s.hardware.devices} devices"
        )
    return text


def prefill_text(s: Scenario, inp: Inputs, out: Outputs) -> str:
    """Prefill per token: weight matmuls at η_c (× the quantized and MoE factors) plus attention at η_c."""
    eta = first(inp.compute_eta)
    factors = ""
    backend = _backend_factor(s, "prefill")
    if backend is not None:  # shown as the class's η × the backend's factor
        eta /= backend[0]
        factors += backend[1]
    int8 = bool(first(on_int8_units(inp)))
    if int8:
        factors += f" × {first(inp.prefill_int8_eta):.2f} of {num(first(inp.int8_flops) / 1e12)} INT8 TOPS (quantized)"
    elif bool(first(quantized(inp.bytes_per_weight))) and first(inp.prefill_quant_eta) != 1:
        factors += f" × {first(inp.prefill_quant_eta):.2f} quantized"
    if first(inp.f16_gain) != 1:
        factors += f" × {first(inp.f16_gain):g} (FP16 accumulate)"
    if first(inp.expert_bytes) > 0 and first(inp.prefill_moe_eta) != 1:
        factors += f" × {first(inp.prefill_moe_eta):.2f} MoE"
    attn = first(out.prefill_attn_flops)
    alpha = first(inp.prefill_attn_factor)
    scaled = f" × {alpha:.2f}" if alpha != 1 else ""
    if attn > 0:
        attention = f" + attention {num(attn / 1e9)} GFLOP/token{scaled} at η {eta:.2f}{backend[1] if backend else ''}"
    else:
        attention = ""
    matmuls = f"{num(first(out.prefill_matmul_flops) / 1e9)} GFLOP/token at η {eta:.2f}{factors}"
    if (f32 := first(inp.f32_matmul_share)) > 0:
        moe = f" × {first(inp.prefill_moe_eta):.2f} MoE" if first(inp.expert_bytes) > 0 else ""
        matmuls = (
            f"{num(first(out.prefill_matmul_flops) / 1e9)} GFLOP/token in FP32 at η {first(inp.f32_matmul_eta):.2f}"
            f"{moe} of {num(f32 * matrix_tflops_in_use(s))} TFLOPS on the vector engines (SYCL built without "
            f"GGML_SYCL_F16: 1/{1 / f32:.0f} of the FP16 figure)"
        )
    text = (
        matmuls
        + attention
        + f", of {num(matrix_tflops_in_use(s))} TFLOPS{' FP16' if int8 or f32 > 0 else ''}"
        + (" (vector engines only: this backend leaves the XMX matrix units unused)" if vector_only(s) else "")
        + _scores_and_pipeline(s, inp, out)
        + f" = {num(first(out.prefill))} tok/s"
    )
    extra = first(out.t_prefill_link)
    if extra > 0 and first(out.weights_host_stored) > 0 and s.workload.prompt_tokens < OFFLOAD_MIN_BATCH:
        text += " (the host CPU computes its layers: llama.cpp copies them to the GPU only for batches of "
        text += f"{OFFLOAD_MIN_BATCH} tokens or more: {ms(extra)} per prompt)"
    elif extra > 0 and first(out.weights_host_stored) > 0:
        disk = " and those on disk are read from it" if first(out.disk_stored) > 0 else ""
        text += f" (host weights cross the link{disk} per 512-token batch: {ms(extra)} per prompt)"
    elif extra > 0:
        text += f" (the tensor split's all-reduces: {ms(extra)} per prompt)"
    return text
