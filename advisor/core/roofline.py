"""The vectorized roofline: where the bytes live, how long one decode step takes, and prefill.

Every field of `Inputs` may be a float or a numpy array; arrays broadcast, so a whole curve (or a
whole candidate list for the recommender) is one call. Bytes, seconds, FLOP and FLOP/s throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Num = float | NDArray[np.float64]

# llama.cpp prefills in micro-batches of this many tokens; with layers left in host memory it
# copies those weights over the host link once per micro-batch.
PREFILL_UBATCH = 512


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
    # a hybrid model's linear-attention or state-space layers: fixed bytes of state per stream, held like
    # the KV cache and read and rewritten on every step whatever the context (0: none)
    state_bytes: Num = 0.0
    # part of dense_bytes stored but not read per step: an untied input embedding, of which a token reads
    # only its own row (0: every weight is read)
    unread_bytes: Num = 0.0
    # realistic-speed terms (advisor.core.calibration explains each; the defaults are the plain roofline)
    bytes_per_weight: Num = 2.0  # of the weights; below 2 (16 bits) they are quantized
    dense_bytes_per_weight: Num = math.nan  # of an MoE model's non-expert weights; NaN: bytes_per_weight
    token_time: Num = 0.0  # s added to every decode step (launches, sync, sampling)
    moe_token_factor: Num = 1.0  # token_time's multiple for a mixture-of-experts model (router, expert kernels)
    kv_factor: Num = 1.0  # KV bytes in fast memory cost this many times their size
    dequant_flops: Num = 0.0  # FLOP per quantized weight read from fast memory, at the FP16 peak
    stream_time: Num = 0.0  # s added to the step for each stream beyond the first
    # share of the FP16 peak realized by attention run as separate kernels (llama.cpp without flash
    # attention); 0: attention is fused and costs only its KV bytes (kv_factor)
    unfused_attn_eta: Num = 0.0
    expert_spread: Num = 1.0  # γ: B streams route like B^γ independent tokens
    prefill_quant_eta: Num = 1.0  # multiplies compute_eta for quantized weights
    prefill_attn_factor: Num = 1.0  # attention FLOP in prefill cost this many times their count
    prefill_moe_eta: Num = 1.0  # multiplies compute_eta for MoE models


@dataclass(frozen=True)
class Outputs:
    runs: NDArray[np.bool_]  # False when weights + KV exceed fast and host memory together
    fits: NDArray[np.bool_]  # everything in fast memory
    footprint: NDArray[np.float64]  # bytes: weights + KV + draft
    kv_hold: NDArray[np.float64]  # bytes of KV held across all streams
    kv_read: NDArray[np.float64]  # bytes of KV read per step across all streams
    host_stored: NDArray[np.float64]  # bytes placed in host memory
    layers_on_device: NDArray[np.float64]
    fast_read: NDArray[np.float64]  # bytes read per step from fast memory
    fast_kv: NDArray[np.float64]  # of which KV cache
    host_read: NDArray[np.float64]  # bytes read per step from host memory
    t_mem: NDArray[np.float64]  # s per step reading memory, realistic (η, KV factor, host η)
    t_dequant: NDArray[np.float64]  # s per step unpacking quantized weights
    unpacked_weights: NDArray[np.float64]  # quantized weights read from fast memory per step
    t_streams: NDArray[np.float64]  # s per step for the streams beyond the first
    t_attn: NDArray[np.float64]  # s per step for attention without flash attention (0 when fused)
    t_token: NDArray[np.float64]  # s fixed per step
    t_mem_ceiling: NDArray[np.float64]  # s per step at η = 1
    t_compute: NDArray[np.float64]  # s per step, realistic
    decode: NDArray[np.float64]  # tok/s per stream, realistic (speculation included)
    decode_plain: NDArray[np.float64]  # tok/s per stream without speculation
    ceiling: NDArray[np.float64]  # tok/s per stream at η = 1, no speculation
    aggregate: NDArray[np.float64]  # tok/s across streams
    prefill: NDArray[np.float64]  # tok/s per stream
    spec_tokens_per_pass: NDArray[np.float64]


def _a(x: Num) -> NDArray[np.float64]:
    return np.asarray(x, dtype=float)


def _nan_to_zero(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """NaN ("not set") as 0 for arithmetic (np.nan_to_num also clamps infinities, at ten times the cost)."""
    return np.where(np.isnan(x), 0.0, x)


def expert_read_share(expert_share: Num, streams: Num, spread: Num = 1.0) -> NDArray[np.float64]:
    """Share of all expert weights one step reads: each of B streams routes to k of n experts, so
    the step touches n·(1 − (1 − k/n)^(B^γ)) of them (k of n at batch 1; all of them at large
    batch). γ = 1 is independent routing; measured batches touch fewer (γ < 1)."""
    share = _a(expert_share)
    return 1.0 - (1.0 - share) ** (_a(streams) ** _a(spread))


def kv_per_stream(kv_full: Num, kv_window: Num, window: Num, tokens: Num) -> NDArray[np.float64]:
    t = _a(tokens)
    return _a(kv_full) * t + _a(kv_window) * np.minimum(t, _a(window))


def attention_flops(inp: Inputs, position: Num) -> NDArray[np.float64]:
    """Attention FLOP for one token at `position` tokens of context (QKᵀ and AV)."""
    p = _a(position)
    return _a(inp.attn_flops_full) * p + _a(inp.attn_flops_window) * np.minimum(p, _a(inp.window))


def place(inp: Inputs) -> tuple[NDArray[np.float64], ...]:
    """Decide what sits in fast memory, by whole layers (or whole layers' experts first).

    Returns (dense host share, expert host share, layers on device, KV held, footprint).
    Placement is by whole layers, as engines do it: one byte over capacity moves a whole layer to
    the host, which is why speed falls off a cliff rather than sagging."""
    layers = _a(inp.layers)
    kv_hold = _a(inp.streams) * (kv_per_stream(inp.kv_full, inp.kv_window, inp.window, inp.hold_tokens)
                                 + _a(inp.state_bytes))
    dense_kv = _a(inp.dense_bytes) + kv_hold + _a(inp.draft_bytes)
    footprint = dense_kv + _a(inp.expert_bytes)
    cap = _a(inp.fast_cap)
    forced = _a(inp.forced_layers)
    has_forced = ~np.isnan(forced)

    # Whole layers: as many as fit.
    per_layer = footprint / layers
    fit_layers = np.clip(np.floor(np.divide(cap, per_layer, out=np.full_like(per_layer * cap, np.inf),
                                            where=per_layer > 0)), 0, layers)
    on_device = np.where(has_forced, np.minimum(_nan_to_zero(forced), layers), fit_layers)
    layer_host = (layers - on_device) / layers

    experts = _a(inp.expert_bytes)
    if not np.any(experts > 0):  # a dense model: whole layers are all there is to place
        return layer_host, layer_host, on_device, kv_hold, footprint

    # Experts first: dense part and KV stay on the device, expert blocks leave layer by layer.
    exp_per_layer = experts / layers
    room = cap - dense_kv
    exp_layers = np.clip(np.floor(np.divide(room, exp_per_layer, out=np.full_like(room * exp_per_layer, np.inf),
                                            where=exp_per_layer > 0)), 0, layers)
    dense_fits = room >= 0
    use_experts = (_a(inp.experts_first) > 0) & (experts > 0) & ~has_forced
    # When even the dense part does not fit, all experts go to the host and dense layers follow.
    dense_per_layer = dense_kv / layers
    dense_layers = np.clip(np.floor(np.divide(cap, dense_per_layer, out=np.full_like(cap * dense_per_layer, np.inf),
                                              where=dense_per_layer > 0)), 0, layers)
    exp_host_e = np.where(dense_fits, (layers - exp_layers) / layers, 1.0)
    dense_host_e = np.where(dense_fits, 0.0, (layers - dense_layers) / layers)

    dense_host = np.where(use_experts, dense_host_e, layer_host)
    expert_host = np.where(use_experts, exp_host_e, layer_host)
    on_device = np.where(use_experts, np.where(dense_fits, layers, dense_layers), on_device)

    # --n-cpu-moe N: the experts of the first N layers stay in host memory whatever else happens; the
    # remaining layers are placed as usual (forced, or as many as fit in what the pinned experts free).
    cmoe = _a(inp.cpu_moe_layers)
    has_cmoe = ~np.isnan(cmoe) & (experts > 0)
    cm_share = np.clip(_nan_to_zero(cmoe), 0, layers) / layers
    rest_per_layer = (footprint - cm_share * experts) / layers
    cm_fit = np.clip(np.floor(np.divide(cap, rest_per_layer, out=np.full_like(rest_per_layer * cap, np.inf),
                                        where=rest_per_layer > 0)), 0, layers)
    cm_on = np.where(has_forced, np.minimum(_nan_to_zero(forced), layers), cm_fit)
    cm_layer_host = (layers - cm_on) / layers
    dense_host = np.where(has_cmoe, cm_layer_host, dense_host)
    expert_host = np.where(has_cmoe, np.maximum(cm_layer_host, cm_share), expert_host)
    on_device = np.where(has_cmoe, cm_on, on_device)
    return dense_host, expert_host, on_device, kv_hold, footprint


def solve(inp: Inputs) -> Outputs:
    dense_host, expert_host, on_device, kv_hold, footprint = place(inp)
    streams = _a(inp.streams)
    host_stored = (dense_host * (_a(inp.dense_bytes) + kv_hold + _a(inp.draft_bytes))
                   + expert_host * _a(inp.expert_bytes))
    runs = host_stored <= _a(inp.host_cap) * (1 + 1e-12)
    fits = (dense_host == 0) & (expert_host == 0)

    # the recurrent state is read and written back each step: twice its bytes
    kv_read = streams * (kv_per_stream(inp.kv_full, inp.kv_window, inp.window, inp.context)
                         + 2.0 * _a(inp.state_bytes))
    expert_read = _a(inp.expert_bytes) * expert_read_share(inp.expert_share, streams, inp.expert_spread)
    dense_weights_read = _a(inp.dense_bytes) - _a(inp.unread_bytes)
    dense_read = dense_weights_read + kv_read
    fast_weights = (1 - dense_host) * dense_weights_read + (1 - expert_host) * expert_read
    fast_kv = (1 - dense_host) * kv_read
    fast_read = fast_weights + fast_kv
    host_read = dense_host * dense_read + expert_host * expert_read

    fast_bw = _a(inp.fast_bw)
    host_bw = _a(inp.host_bw)
    fast_eta = _a(inp.fast_eta)
    t_mem = ((fast_weights + _a(inp.kv_factor) * fast_kv) / (fast_bw * fast_eta)
             + host_read / (host_bw * _a(inp.host_eta)))
    t_mem_ceiling = fast_read / fast_bw + host_read / host_bw

    flops = _a(inp.flops)
    bpw = _a(inp.bytes_per_weight)
    quantized = bpw < 1.99
    dense_bpw = _a(inp.dense_bytes_per_weight)
    dense_bpw = np.where(np.isnan(dense_bpw), bpw, dense_bpw)
    # each part counted at its own bytes per weight, unpacked only where it is quantized (below 16 bits)
    unpacked = (np.where(dense_bpw < 1.99, (1 - dense_host) * dense_weights_read / dense_bpw, 0.0)
                + np.where(quantized, (1 - expert_host) * expert_read / bpw, 0.0))
    t_dequant = unpacked * _a(inp.dequant_flops) / flops
    # An MoE model's step also runs router, top-k and expert-gather kernels: moe_token_factor × t₀.
    t_token_dense = _a(inp.token_time) * np.ones_like(t_mem)
    t_token = t_token_dense * np.where(_a(inp.expert_bytes) > 0, _a(inp.moe_token_factor), 1.0)
    per_token_flops = 2.0 * _a(inp.active_params) + attention_flops(inp, inp.context)
    t_compute = streams * per_token_flops / (flops * _a(inp.compute_eta))
    t_compute_ceiling = streams * per_token_flops / flops
    # Batched decode below the crossover is not quite free: each extra stream adds its own per-sequence
    # work (sampling, bookkeeping, small kernels) to the step.
    t_streams = np.maximum(streams - 1, 0) * _a(inp.stream_time)
    # Attention without flash attention: scores, softmax and the weighted sum run as separate kernels
    # per query head, at a small share of the peak, for the layers held in fast memory.
    attn_eta = _a(inp.unfused_attn_eta)
    if np.any(attn_eta > 0):
        t_attn = np.where(attn_eta > 0, (1 - dense_host) * streams * attention_flops(inp, inp.context)
                          / (flops * np.where(attn_eta > 0, attn_eta, 1.0)), 0.0) * np.ones_like(t_mem)
    else:  # no separate attention kernels (flash attention, MLX, vLLM, a given η): κ covers the KV reads
        t_attn = np.zeros_like(t_mem)
    t_memory = t_mem + t_dequant + t_streams + t_attn

    step = np.maximum(t_memory, t_compute) + t_token
    ceiling = 1.0 / np.maximum(t_mem_ceiling, t_compute_ceiling)
    # No engine reads the cache faster than memory delivers it. A KV factor fitted below η (the data's
    # contexts slowed decode less than their bytes say) would lift the realistic figure above the
    # ceiling at contexts longer than any measurement: it stops at the ceiling there.
    decode_plain = np.minimum(1.0 / step, ceiling)

    # Speculative decoding: the target verifies k drafted tokens in one pass (memory cost of one
    # step, compute of k + 1 tokens); expected accepted tokens per pass = (1 − α^(k+1)) / (1 − α).
    draft = _a(inp.draft_bytes)
    if np.any(draft > 0):
        k = _a(inp.draft_length)
        alpha = _a(inp.acceptance)
        tokens_per_pass = np.where(draft > 0, (1 - alpha ** (k + 1)) / (1 - alpha), 1.0)
        # each draft step is a forward pass of its own, of a dense draft model
        t_draft = draft / (fast_bw * fast_eta) + t_token_dense
        t_verify = np.maximum(t_memory, t_compute * (k + 1)) + t_token
        spec = tokens_per_pass / (k * t_draft + t_verify)
        decode = np.where(draft > 0, spec, decode_plain)
    else:  # no draft model: one token per pass
        tokens_per_pass, decode = np.ones_like(decode_plain), decode_plain

    # Prefill: compute-bound; tokens of the prompt sit on average halfway into it.
    prompt = _a(inp.prompt)
    start = np.maximum(_a(inp.context) - prompt, 0)
    # Weight matmuls realize η_c (less for quantized weights and for MoE experts, which see few tokens
    # each); attention realizes η_c at α times its FLOP count.
    compute_eta = _a(inp.compute_eta)
    matmul_eta = (compute_eta * np.where(quantized, _a(inp.prefill_quant_eta), 1.0)
                  * np.where(_a(inp.expert_bytes) > 0, _a(inp.prefill_moe_eta), 1.0))
    attn = _a(inp.prefill_attn_factor) * attention_flops(inp, start + prompt / 2)
    t_prefill = prompt * (2.0 * _a(inp.active_params) / matmul_eta + attn / compute_eta) / flops
    # Weights left in host memory cross the link once per micro-batch.
    ubatches = np.ceil(np.maximum(prompt, 1) / PREFILL_UBATCH)
    t_prefill = t_prefill + ubatches * host_stored / _a(inp.link_bw)
    estimate = np.maximum(prompt, 1) / np.maximum(t_prefill, 1e-30)
    measured = _a(inp.prefill_rate)
    prefill = np.where(np.isnan(measured), estimate, measured)

    zero = np.zeros_like(decode)
    decode = np.where(runs, decode, zero)
    return Outputs(
        runs=np.asarray(runs),
        fits=np.asarray(fits & runs),
        footprint=footprint,
        kv_hold=kv_hold,
        kv_read=kv_read,
        host_stored=host_stored,
        layers_on_device=on_device,
        fast_read=fast_read,
        fast_kv=fast_kv,
        host_read=host_read,
        t_mem=t_mem,
        t_dequant=t_dequant,
        unpacked_weights=unpacked * np.ones_like(t_mem),
        t_streams=t_streams * np.ones_like(t_mem),
        t_attn=t_attn,
        t_token=t_token,
        t_mem_ceiling=t_mem_ceiling,
        t_compute=t_compute,
        decode=decode,
        decode_plain=np.where(runs, decode_plain, zero),
        ceiling=np.where(runs, ceiling, zero),
        aggregate=decode * streams,
        prefill=np.where(runs, prefill, zero),
        spec_tokens_per_pass=tokens_per_pass * np.ones_like(decode),
    )
