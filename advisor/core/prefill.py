"""Prefill: compute-bound, the prompt's tokens through the weights and attention in micro-batches,
with host-resident weights copied over the link per micro-batch (or computed by the host CPU for a
short prompt), attention scores through memory where attention is not fused, micro-batches pipelined
over a layer split, and a tensor split's all-reduces."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from advisor.core.placement import _a, attention_flops, cache_walk_time
from advisor.core.roofline_inputs import Inputs
from advisor.core.roofline_inputs import quantized as is_quantized

Arr = NDArray[np.float64]

# llama.cpp prefills in micro-batches of this many tokens; with layers left in host memory it
# copies those weights over the host link once per micro-batch.
PREFILL_UBATCH = 512
# llama.cpp copies host-resident weights to the GPU for a batch of at least this many tokens and
# computes smaller batches on the host CPU (ggml's op-offload threshold, GGML_OP_OFFLOAD_MIN_BATCH).
OFFLOAD_MIN_BATCH = 32
# Without flash attention llama.cpp materializes each layer's attention scores, one FP32 value per query
# head per cached token: the QKᵀ matmul writes them, the softmax reads and rewrites them and the AV
# matmul reads them, four passes of 4 bytes through memory for every score.
SCORE_BYTES = 16.0
# On CPU cores quantized weights multiply on int8 dot products (AVX-512 VNNI vpdpbusd, AVX-VNNI, NEON sdot and
# i8mm), which pack up to four multiply-adds in each 32-bit lane, less the work of unpacking each block and
# applying its scales in FP32. On benchmarks/data/own-cpu.md's two AVX-512 VNNI VMs 4-bit weights prefilled at
# 1.3-1.6x the F16 rate and Q8_0 at 1.1x: the CPU class's fitted quant_factor may exceed 1, up to that bound.
CPU_INT8_LANES = 4.0


def on_int8_units(inp: Inputs) -> NDArray[np.bool_]:
    """Where the weight matmuls run on INT8 matrix units: quantized weights, an INT8 peak in use and a
    fitted share of it (advisor.core.matrix_units.int8_tops_in_use says where the kernels can)."""
    return is_quantized(inp.bytes_per_weight) & (_a(inp.prefill_int8_eta) > 0) & (_a(inp.int8_flops) > 0)


def pipeline_speedup(inp: Inputs, batches: Arr, on_device: NDArray[np.bool_]) -> Arr:
    """llama.cpp's pipeline parallelism over a layer split of D devices, on when every layer and its KV
    cache are on the devices: micro-batches follow one another through the devices' shares of the layers
    (each with its own copy of the activations), so a prompt of nb micro-batches takes nb + D − 1 stage
    times instead of nb × D, a speedup of nb·D / (nb + D − 1). A prompt of one micro-batch gains nothing.
    The output is read only after the last micro-batch, so the whole prompt counts."""
    stages = _a(inp.pipeline_stages)
    return np.where((stages > 1) & on_device, batches * stages / (batches + stages - 1), 1.0)


def score_traffic(inp: Inputs, position: Arr) -> Arr:
    """Bytes through memory per prompt token for unfused attention's scores at `position` tokens of
    context (0 where attention is fused, and on CPU cores, where attention is the cores' work)."""
    unfused = (_a(inp.attn_unfused) > 0) & ~(_a(inp.on_cores) > 0)
    scores = attention_flops(inp, position) / (4.0 * _a(inp.attn_head_dim))
    return np.where(unfused, SCORE_BYTES * scores, 0.0)


@dataclass(frozen=True)
class PrefillParts:
    rate: Arr  # tok/s (a measured rate where given)
    matmul_flops: Arr  # per token
    attn_flops: Arr  # per token, at the prompt's mean position (before α)
    matmul_eta: Arr
    t_link: Arr  # s per prompt: host weights over the link, or a tensor split's all-reduces
    t_scores: Arr  # s per prompt: unfused attention's scores through memory (before the pipeline)
    t_copy: Arr  # s per prompt: the weights' dense copy per micro-batch (before the pipeline)
    pipeline: Arr  # the layer split's pipeline speedup (1: none)
    batches: Arr  # the prompt's micro-batches of PREFILL_UBATCH tokens


def prefill_terms(
    inp: Inputs,
    link_bytes: Arr,
    disk_bytes: Arr,
    host_attn: Arr,
    quantized: NDArray[np.bool_],
    host_weight_flops: Arr,
    device_weights: tuple[Arr, Arr],
) -> PrefillParts:
    """Compute-bound: weight matmuls realize η_c (less for quantized weights and for MoE experts, which
    see few tokens each); attention realizes η_c at α times its FLOP count; the prompt's tokens sit on
    average halfway into it. Weights left in host memory cross the link once per micro-batch (those on
    disk are read from it each time too), unless a micro-batch is below OFFLOAD_MIN_BATCH tokens: then the
    host CPU computes them (`host_weight_flops` per token). Attention over a KV cache held on the host
    (-nkvo) runs on the host CPU (`host_attn`: its share of the attention FLOP). Unfused attention adds
    its scores' memory traffic; a layer split with everything on the devices pipelines micro-batches.
    Where the backend unpacks weights into a dense copy before multiplying (`dense_copy_bytes`; SYCL), each
    micro-batch reads the device's weights (`device_weights`: stored bytes, parameters) and writes that copy;
    where it multiplies in FP32 on the vector units (`f32_matmul_share`), the matmuls run at that share of
    `flops` × f32_matmul_eta instead of η_c's factors."""
    prompt = _a(inp.prompt)
    start = np.maximum(_a(inp.context) - prompt, 0)
    compute_eta = _a(inp.compute_eta)
    # quantized weights on INT8 matrix units: their share of the INT8 peak, expressed against `flops`
    int8_eta = _a(inp.prefill_int8_eta)
    quant_eta = np.where(on_int8_units(inp), int8_eta * _a(inp.int8_flops) / _a(inp.flops), _a(inp.prefill_quant_eta))
    matmul_eta = (
        compute_eta
        * np.where(quantized, quant_eta, 1.0)
        * _a(inp.f16_gain)
        * np.where(_a(inp.expert_bytes) > 0, _a(inp.prefill_moe_eta), 1.0)
    )
    f32_share = _a(inp.f32_matmul_share)
    f32_eta = f32_share * _a(inp.f32_matmul_eta) * np.where(_a(inp.expert_bytes) > 0, _a(inp.prefill_moe_eta), 1.0)
    matmul_eta = np.where(f32_share > 0, f32_eta, matmul_eta)
    matmul = 2.0 * _a(inp.active_params)
    attn = attention_flops(inp, start + prompt / 2)
    # Attention over a prompt is matrix work: a micro-batch's queries share each K/V row they read, so on CPU
    # cores as on a GPU it is FLOP at the matmul rate × α, not decode's walk of the whole cache per token. A
    # cache held on the host (-nkvo) is walked per token below.
    t_cache_walk = cache_walk_time(inp, start + prompt / 2)
    t_attn = attn / (compute_eta * _a(inp.flops) * _a(inp.attn_flops_share))
    t_prefill = prompt * (matmul / (matmul_eta * _a(inp.flops)) + _a(inp.prefill_attn_factor) * t_attn)
    t_scores = prompt * score_traffic(inp, start + prompt / 2) / (_a(inp.fast_bw) * _a(inp.fast_eta))
    batches = np.ceil(np.maximum(prompt, 1) / PREFILL_UBATCH)
    stored, params = device_weights
    copy = _a(inp.dense_copy_bytes)
    t_copy = np.where(copy > 0, batches * (stored + params * copy) / (_a(inp.fast_bw) * _a(inp.fast_eta)), 0.0)
    t_prefill = t_prefill + t_copy
    on_device = (link_bytes <= 0) & (disk_bytes <= 0) & (host_attn <= 0)
    pipeline = pipeline_speedup(inp, batches, on_device)
    t_prefill = (t_prefill + t_scores) / pipeline
    disk_bw = _a(inp.disk_bw)
    t_link = batches * (
        link_bytes / _a(inp.link_bw) + np.where(disk_bw > 0, disk_bytes / np.where(disk_bw > 0, disk_bw, 1.0), 0.0)
    )
    on_host = (np.minimum(np.maximum(prompt, 1), PREFILL_UBATCH) < OFFLOAD_MIN_BATCH) & np.isfinite(_a(inp.host_flops))
    t_link = np.where(on_host, prompt * host_weight_flops / _a(inp.host_flops), t_link)
    t_prefill = t_prefill + prompt * host_attn * t_cache_walk
    # tensor split: each micro-batch's all-reduces, and every prompt token's activations through them
    t_link = t_link + _a(inp.allreduces) * (
        batches * _a(inp.allreduce_time) + prompt * 2.0 * _a(inp.hidden) * _a(inp.allreduce_share) / _a(inp.peer_bw)
    )
    estimate = np.maximum(prompt, 1) / np.maximum(t_prefill + t_link, 1e-30)
    measured = _a(inp.prefill_rate)
    rate = np.where(np.isnan(measured), estimate, measured)
    one = np.ones_like(rate)
    return PrefillParts(
        rate,
        matmul * one,
        attn * one,
        matmul_eta * one,
        t_link * one,
        t_scores * one,
        t_copy * one,
        pipeline * one,
        batches * one,
    )
