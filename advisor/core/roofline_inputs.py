"""The roofline's inputs: plain numbers (bytes, seconds, FLOP, FLOP/s, tokens) for one solve.

Every field may be a float or a numpy array; arrays broadcast, so a whole curve (or a whole candidate
list for the recommender) is one call. `advisor.core.inputs.build_inputs` makes them from a scenario."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Num = float | NDArray[np.float64]
# bytes per weight below which weights are quantized (16-bit weights are 2; a little slack for rounding)
QUANTIZED_BELOW = 1.99
# token_time is the fixed time per step of a model of this many layers: every layer runs the same
# kernels, each with its launch, ramp and tail, so a model of L layers pays token_time × L ÷ T0_LAYERS.
T0_LAYERS = 32.0


def quantized(bytes_per_weight: Num) -> NDArray[np.bool_]:
    """Where weights at these bytes per weight are quantized (below 16 bits): unpacked before they multiply."""
    return np.asarray(bytes_per_weight) < QUANTIZED_BELOW


@dataclass(frozen=True)
class Inputs:
    # machine
    fast_bw: Num  # bytes/s, datasheet (summed over tensor-split devices)
    fast_eta: Num  # realized share of fast_bw (decode η × multi-device scaling)
    host_bw: Num  # bytes/s the host pool is read at (RAM, or the link if weights stream over it)
    host_eta: Num
    fast_cap: Num  # bytes usable for weights + KV (after runtime overhead)
    host_cap: Num  # bytes
    flops: Num  # peak FLOP/s
    compute_eta: Num
    link_bw: Num  # bytes/s, host to device
    # model at its quant
    dense_bytes: Num  # weights every token reads (attention, shared layers, embeddings, head)
    expert_bytes: Num  # all routed-expert weights (0 for dense)
    expert_share: Num  # experts_active / experts (1 for dense)
    active_params: Num  # parameters per token, for FLOP counts
    layers: Num  # offload granularity
    kv_full: Num  # KV bytes per token of context, full-attention layers
    kv_window: Num  # KV bytes per token, sliding layers (capped at window)
    window: Num  # tokens
    attn_flops_full: Num  # attention FLOP per token per token of context, full layers
    attn_flops_window: Num  # same for sliding layers
    # workload
    context: Num  # tokens in the cache during decode
    hold_tokens: Num  # tokens each stream's cache must hold (context + output)
    prompt: Num
    streams: Num
    forced_layers: Num  # layers forced onto the device; NaN fits as many as possible
    experts_first: Num  # 1.0 when MoE experts leave fast memory before whole layers
    # speculative decoding (draft_bytes 0 disables it)
    draft_bytes: Num
    draft_length: Num
    acceptance: Num
    prefill_rate: Num  # measured tok/s; NaN uses the compute estimate
    # MoE experts of this many layers forced into host memory (llama.cpp --n-cpu-moe); NaN: none
    cpu_moe_layers: Num = float("nan")
    # 1.0: the KV cache (and a hybrid's state) is held in host RAM and attended there (llama.cpp -nkvo);
    # the weights stay in fast memory, by whole layers if they do not all fit
    kv_host: Num = 0.0
    # 1.0: place by whichever of layers, experts first and KV on the host decodes fastest and runs
    auto_place: Num = 0.0
    # FLOP/s the host CPU realizes on host-resident weights and attention (threads × per-thread rate);
    # infinite: only host bandwidth counts (an engine that streams host weights to the GPU)
    host_flops: Num = math.inf
    # bytes/s weights beyond host RAM are read from disk at each step (llama.cpp's mmap); 0: the engine
    # cannot, and a model beyond fast and host memory does not run
    disk_bw: Num = 0.0
    # s per hand-off between the device and the host CPU within a step (a synchronisation and a small copy),
    # charged twice per device layer whose attention runs on the host (-nkvo)
    hop_time: Num = 0.0
    # a hybrid model's linear-attention or state-space layers: fixed bytes of state per stream, held like
    # the KV cache and read and rewritten on every step whatever the context (0: none)
    state_bytes: Num = 0.0
    # part of dense_bytes stored but not read per step: an untied input embedding, of which a token reads
    # only its own row (0: every weight is read)
    unread_bytes: Num = 0.0
    # realistic-speed terms (advisor.core.calibration explains each; the defaults are the plain roofline)
    bytes_per_weight: Num = 2.0  # of the weights; below QUANTIZED_BELOW (16 bits) they are quantized
    dense_bytes_per_weight: Num = math.nan  # of an MoE model's non-expert weights; NaN: bytes_per_weight
    token_time: Num = 0.0  # s added to every decode step of a T0_LAYERS-layer model (launches, sync, sampling)
    moe_token_factor: Num = 1.0  # token_time's multiple for a mixture-of-experts model (router, expert kernels)
    kv_factor: Num = 1.0  # KV bytes in fast memory cost this many times their size (fused attention)
    dequant_flops: Num = 0.0  # FLOP per quantized weight read from fast memory, at the vector units' rate
    # FP32 FLOP/s of the vector ALUs, where decode's matrix-vector kernels unpack weights (advisor.core.
    # vector_units); 0: `flops`
    vector_flops: Num = 0.0
    # each stream beyond the first adds its weight matmuls at this many times their time at the FP16 peak
    stream_cost: Num = 0.0
    # share of the FP16 peak a fused attention kernel's arithmetic realizes in decode (its QKᵀ and AV are
    # matrix-vector work per query row); 0: the kernel costs only its KV bytes (κ)
    fused_attn_eta: Num = 0.0
    # share of the FP16 peak realized by attention run as separate kernels (llama.cpp without flash
    # attention); 0: attention is fused and costs only its KV bytes (kv_factor)
    unfused_attn_eta: Num = 0.0
    # 1.0: a CPU-only machine, whose attention runs on its cores (attn_threads × cpu_attn_rate)
    on_cores: Num = 0.0
    # attention on CPU cores (a CPU-only machine's, or over a KV cache in host RAM) works through the
    # cache at cpu_attn_rate bytes/s per thread, on attn_threads threads (the cores they occupy)
    attn_threads: Num = 1.0
    cpu_attn_rate: Num = math.inf
    # the weights' share of fast_eta where the backend reads their type from the plain block layout
    # (advisor.core.sycl_layout); the KV cache keeps fast_eta
    layout_eta: Num = 1.0
    # prefill's weight matmuls in FP32 on the vector units at this share of `flops`, realized at
    # f32_matmul_eta (0: on the FP16 figure's units); weights unpacked into a dense copy of this many
    # bytes per weight through fast memory per micro-batch first (0: unpacked inside the matmul)
    # (advisor.core.sycl_prefill)
    f32_matmul_share: Num = 0.0
    f32_matmul_eta: Num = 1.0
    dense_copy_bytes: Num = 0.0
    # prefill attention's rate as a share of `flops` (a kernel on the vector units: below 1)
    attn_flops_share: Num = 1.0
    # tensor split: all-reduces per forward pass (two per layer), each a synchronisation of allreduce_time
    # plus its activations: streams × 2 bytes × hidden × allreduce_share (a ring's 2(N−1)/N) over peer_bw
    allreduces: Num = 0.0
    allreduce_time: Num = 0.0
    allreduce_share: Num = 0.0
    hidden: Num = 0.0
    peer_bw: Num = math.inf
    expert_spread: Num = 1.0  # γ: B streams route like B^γ independent tokens
    prefill_quant_eta: Num = 1.0  # multiplies compute_eta for quantized weights
    # quantized prefill on INT8 matrix units (llama.cpp's MMQ kernels under CUDA and ROCm): their peak
    # OP/s and the share of it realized, times compute_eta; 0 runs quantized weights at flops instead
    int8_flops: Num = 0.0
    prefill_int8_eta: Num = 0.0
    # prefill's weight matmuls at this many times `flops` where they accumulate in FP16 (GeForce cards: 2)
    f16_gain: Num = 1.0
    prefill_attn_factor: Num = 1.0  # attention FLOP in prefill cost this many times their count
    prefill_moe_eta: Num = 1.0  # multiplies compute_eta for MoE models
    # the width per query head the attention FLOP count (head_dim; MLA's latent rank): FLOP ÷ 4 ÷ this
    # is the number of attention scores
    attn_head_dim: Num = 128.0
    # 1.0: attention runs as separate kernels (llama.cpp without flash attention), whose scores go through
    # memory in prefill
    attn_unfused: Num = 0.0
    # devices of a llama.cpp layer split, across which prefill pipelines micro-batches (1: none)
    pipeline_stages: Num = 1.0
