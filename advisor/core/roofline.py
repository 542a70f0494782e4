"""The solver: how long one decode step takes, term by term, which bound wins, and prefill.

`solve(Inputs) -> Outputs` is the one place a time, a byte count or a FLOP count is worked out.
Everything that shows a number (the worked arithmetic, the JSON, the plots, the compare tables, the
fit) reads these terms; nothing recomputes them. Bytes, seconds, FLOP and FLOP/s throughout; every
field may be a numpy array (a whole curve is one call).

One realistic decode step (advisor.core.calibration explains each fitted term):

    memory side  = weights + KV + host + dequantization + per-stream + unfused attention
    compute side = streams × FLOP per token ÷ (peak × η_c)
    step         = max(memory side, compute side) + fixed time
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from numpy.typing import NDArray

from advisor.core.placement import _a, attention_flops, cache_walk_time, expert_read_share, kv_per_stream, place
from advisor.core.prefill import OFFLOAD_MIN_BATCH, PREFILL_UBATCH, prefill_terms
from advisor.core.roofline_inputs import T0_LAYERS, Inputs, Num
from advisor.core.roofline_inputs import quantized as is_quantized

__all__ = [
    "Inputs",
    "Num",
    "OFFLOAD_MIN_BATCH",
    "Outputs",
    "PREFILL_UBATCH",
    "attention_flops",
    "crossover_batch",
    "solve",
    "weights_read_batch1",
]

Arr = NDArray[np.float64]


@dataclass(frozen=True)
class Outputs:
    # placement and memory
    runs: NDArray[np.bool_]  # False when weights + KV exceed fast and host memory together
    fits: NDArray[np.bool_]  # everything in fast memory
    footprint: Arr  # bytes: weights + KV + draft
    kv_hold: Arr  # bytes of KV held across all streams
    host_stored: Arr  # bytes placed in host memory (RAM and, past it, disk)
    weights_host_stored: Arr  # of which weights (disk included)
    kv_host_stored: Arr  # of which KV cache and recurrent state
    disk_stored: Arr  # weights beyond host RAM, read from disk through mmap (0 unless the engine can)
    streams_from_disk: NDArray[np.bool_]
    layers_on_device: Arr
    dense_host_share: Arr  # share of the non-expert weights in host memory
    expert_host_share: Arr  # share of the expert weights in host memory
    kv_host_share: Arr  # share of the KV cache in host memory
    placement: Arr  # 0 whole layers, 1 experts first, 2 KV on the host (the chosen one under auto)
    alt_placement: Arr  # under auto: the fastest placement not chosen that runs (-1: none, or not auto)
    alt_decode: Arr  # its decode, tok/s per stream (NaN: none)
    # bytes one step reads
    kv_read: Arr  # KV (and recurrent state) across all streams
    weights_read: Arr  # weights, from both pools
    fast_read: Arr  # from fast memory: weights + KV
    fast_kv: Arr  # of which KV cache
    host_read: Arr  # from host memory (RAM and disk)
    disk_read: Arr  # of which from disk
    host_flops: Arr  # FLOP per step the host CPU does on host-resident weights
    t_host_attn: Arr  # s per step the host CPU walks the KV cache held in host RAM (part of t_host_compute)
    unpacked_weights: Arr  # quantized weights read from fast memory (unpacked each step)
    # FLOP per token at the decode context
    flops_per_token: Arr  # 2 × active params + attention
    compute_flops: Arr  # of which the compute side counts per stream (on CPU cores attention is its own term)
    compute_rate: Arr  # FLOP/s the compute side realizes
    attn_flops_per_token: Arr
    # the memory side of a realistic step, term by term (s)
    t_weights: Arr  # fast-memory weights at η
    kv_cost: Arr  # what the cache's bytes cost over their size: κ fused, 1 unfused
    t_kv: Arr  # fast-memory attention: KV at κ × the weights' rate, or its FLOP at η_f where longer
    t_kv_flops: Arr  # the fused attention kernel's FLOP at η_f of the peak (0: not modelled)
    t_host: Arr  # host-resident weights and KV: max(bytes side, host compute)
    t_host_bytes: Arr  # RAM at the host's η plus disk at its read bandwidth
    t_host_compute: Arr  # host FLOP ÷ host FLOP/s
    host_hops: Arr  # hand-offs between device and host per step
    t_host_hops: Arr  # their time (part of t_host)
    t_dequant: Arr  # unpacking quantized weights
    t_streams: Arr  # the streams beyond the first
    t_attn: Arr  # attention without flash attention (0 when fused); on CPU cores, the walk of the cache
    t_memory: Arr  # the sum of the six above
    # the compute side, the fixed cost and the step (s)
    t_compute: Arr
    t_token: Arr  # fixed per step
    t_sync: Arr  # of which tensor split's all-reduces
    t_step: Arr  # max(t_memory, t_compute) + t_token
    compute_bound: NDArray[np.bool_]  # t_compute > t_memory
    # the ceiling (η = 1, no overheads)
    t_mem_ceiling: Arr
    t_compute_ceiling: Arr
    ceiling: Arr  # tok/s per stream, no speculation
    capped: NDArray[np.bool_]  # the realistic step would beat the ceiling: held at it
    # speeds
    decode: Arr  # tok/s per stream, realistic (speculation included)
    decode_plain: Arr  # tok/s per stream without speculation
    aggregate: Arr  # tok/s across streams
    spec_tokens_per_pass: Arr
    t_draft: Arr  # s per drafted token (0 without speculation)
    t_verify: Arr  # s per target pass verifying k + 1 tokens (t_step without speculation)
    # prefill, per token of the prompt
    prefill: Arr  # tok/s per stream (a measured rate where given)
    prefill_matmul_flops: Arr  # 2 × active params
    prefill_attn_flops: Arr  # attention at the prompt's mean position (before α)
    prefill_matmul_eta: Arr  # η_c × the quantized and MoE factors
    t_prefill_link: Arr  # s for the whole prompt: host weights crossing the link per micro-batch
    t_prefill_scores: Arr  # s for the whole prompt: unfused attention's scores through memory
    t_prefill_copy: Arr  # s for the whole prompt: weights unpacked into a dense copy per micro-batch
    prefill_pipeline: Arr  # a layer split's pipeline speedup on prefill (1: none)
    prefill_batches: Arr  # the prompt's micro-batches


def weights_read_batch1(inp: Inputs) -> Arr:
    """Weight bytes one token reads at batch 1: the dense part less an untied input table, plus the
    active share of the experts."""
    return _a(inp.dense_bytes) - _a(inp.unread_bytes) + _a(inp.expert_bytes) * _a(inp.expert_share)


def crossover_batch(inp: Inputs) -> Arr:
    """Batch where the step's arithmetic time overtakes its memory time, at η = 1 (NaN: never).

    Memory per step = W + B·kv bytes; compute = B·(2N + attention) FLOP, so
    B* = (W / BW) / ((2N + a) / F − kv / BW). At 16 bits with no KV this is F / BW (~295 on an H100).
    MoE routing spread is ignored here: W is the batch-1 active read."""
    weights = weights_read_batch1(inp)
    kv = kv_per_stream(inp.kv_full, inp.kv_window, inp.window, inp.context) + 2 * _a(inp.state_bytes)
    flop_time = (2 * _a(inp.active_params) + attention_flops(inp, inp.context)) / _a(inp.flops)
    denom = flop_time - kv / _a(inp.fast_bw)
    safe = np.where(denom > 0, denom, 1.0)
    return np.where(denom > 0, (weights / _a(inp.fast_bw)) / safe, np.nan)


def _placement_code(inp: Inputs) -> Arr:
    return np.where(
        _a(inp.kv_host) > 0, 2.0, np.where((_a(inp.experts_first) > 0) & (_a(inp.expert_bytes) > 0), 1.0, 0.0)
    )


def solve(inp: Inputs) -> Outputs:
    """The step for the placement asked for; under auto_place, for each of whole layers, experts first and
    KV on the host, keeping per point the fastest that runs (ties: the earlier) and naming the runner-up."""
    auto = _a(inp.auto_place) > 0
    if not np.any(auto):
        return _solve(inp)
    base = _solve(inp)
    options = [
        replace(inp, auto_place=0.0, experts_first=e, kv_host=k) for e, k in ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))
    ]
    outs = [_solve(o) for o in options]
    score = np.stack(np.broadcast_arrays(*[np.where(o.runs, o.decode, -1.0) for o in outs]))
    # experts first means nothing for a dense model: never its own candidate there
    score[1] = np.where(np.broadcast_to(_a(inp.expert_bytes) > 0, score[1].shape), score[1], -np.inf)
    best = np.argmax(score, axis=0)
    rest = np.where(np.arange(3).reshape((3,) + (1,) * best.ndim) == best, -np.inf, score)
    alt = np.argmax(rest, axis=0)
    alt_score = np.max(rest, axis=0)
    has_alt = alt_score > 0
    merged: dict[str, object] = {}
    for f in fields(Outputs):
        picked = np.choose(best, [getattr(o, f.name) for o in outs])
        merged[f.name] = np.where(auto, picked, getattr(base, f.name))
    merged["alt_placement"] = np.where(auto & has_alt, alt.astype(float), -1.0)
    merged["alt_decode"] = np.where(auto & has_alt, alt_score, np.nan)
    return Outputs(**merged)  # type: ignore[arg-type]


def _solve(inp: Inputs) -> Outputs:
    dense_host, expert_host, kv_share, on_device, kv_hold, footprint = place(inp)
    streams = _a(inp.streams)
    weights_host = dense_host * (_a(inp.dense_bytes) + _a(inp.draft_bytes)) + expert_host * _a(inp.expert_bytes)
    kv_host = kv_share * kv_hold
    host_stored = weights_host + kv_host
    host_cap = _a(inp.host_cap) * (1 + 1e-12)
    # mmap: what does not fit in RAM beside the host's KV is read from disk (the KV cache cannot be)
    disk_bw = _a(inp.disk_bw)
    can_disk = disk_bw > 0
    disk_stored = np.where(
        can_disk, np.clip(weights_host - np.maximum(_a(inp.host_cap) - kv_host, 0.0), 0.0, None), 0.0
    )
    runs = (host_stored <= host_cap) | (can_disk & (kv_host <= host_cap))
    from_disk = runs & (disk_stored > 0)
    fits = (dense_host == 0) & (expert_host == 0) & (kv_share == 0)

    # the recurrent state is read and written back each step: twice its bytes
    kv_read = streams * (kv_per_stream(inp.kv_full, inp.kv_window, inp.window, inp.context) + 2.0 * _a(inp.state_bytes))
    expert_read = _a(inp.expert_bytes) * expert_read_share(inp.expert_share, streams, inp.expert_spread)
    dense_weights_read = _a(inp.dense_bytes) - _a(inp.unread_bytes)
    fast_weights = (1 - dense_host) * dense_weights_read + (1 - expert_host) * expert_read
    fast_kv = (1 - kv_share) * kv_read
    host_weights_read = dense_host * dense_weights_read + expert_host * expert_read
    host_read = host_weights_read + kv_share * kv_read
    disk_share = np.where(weights_host > 0, disk_stored / np.where(weights_host > 0, weights_host, 1.0), 0.0)
    disk_read = disk_share * host_weights_read

    fast_rate = _a(inp.fast_bw) * _a(inp.fast_eta)
    t_weights = fast_weights / (fast_rate * _a(inp.layout_eta))
    # κ is the fused attention kernel's read of the cache; unfused, the cache is read by separate matmul
    # kernels whose cost the η_a term below carries, so its bytes count once at the weights' rate
    kv_cost = np.where(_a(inp.attn_unfused) > 0, 1.0, _a(inp.kv_factor))
    on_cores = _a(inp.on_cores) > 0
    # A fused attention kernel (flash attention on a GPU) runs between the layer's matmuls, not beside
    # them: it takes its cache read at κ, or its QKᵀ and AV arithmetic at η_f of the peak where that is
    # longer (many query heads per cached row: MLA's one latent shared by every head, wide GQA groups).
    # On CPU cores the attention walk below reads the cache itself (never faster than the bus).
    fused_eta = _a(inp.fused_attn_eta)
    kernel_flops = (~on_cores) & (_a(inp.attn_unfused) == 0) & (fused_eta > 0)
    attn_flops = attention_flops(inp, inp.context)
    t_kv_flops = np.where(
        kernel_flops,
        (1 - kv_share) * streams * attn_flops / (_a(inp.flops) * np.where(kernel_flops, fused_eta, 1.0)),
        0.0,
    )
    t_kv = np.where(on_cores, 0.0, np.maximum(kv_cost * fast_kv / fast_rate, t_kv_flops))
    safe_disk = np.where(can_disk, disk_bw, 1.0)
    t_disk = np.where(can_disk, disk_read / safe_disk, 0.0)
    t_host_bytes = (host_read - disk_read) / (_a(inp.host_bw) * _a(inp.host_eta)) + t_disk
    t_mem_ceiling = (fast_weights + fast_kv) / _a(inp.fast_bw) + (host_read - disk_read) / _a(inp.host_bw) + t_disk

    flops = _a(inp.flops)
    bpw = _a(inp.bytes_per_weight)
    quantized = is_quantized(bpw)
    dense_bpw = _a(inp.dense_bytes_per_weight)
    dense_bpw = np.where(np.isnan(dense_bpw), bpw, dense_bpw)
    # The host CPU computes what sits in host RAM: 2 FLOP per weight for each stream's token (its own k
    # experts), and attention over the KV cache held there, each stream's, at the threads' attention rate.
    t_walk = streams * cache_walk_time(inp, inp.context)
    weight_flops_host = 2.0 * (
        dense_host * dense_weights_read / dense_bpw + expert_host * _a(inp.expert_bytes) * _a(inp.expert_share) / bpw
    )
    host_flops = streams * weight_flops_host
    t_host_attn = kv_share * t_walk
    t_host_compute = host_flops / _a(inp.host_flops) + t_host_attn
    # Hand-offs: with -nkvo each layer on the device sends its attention to the host and takes the result
    # back, two per layer per step; each device layer whose experts sit in host RAM (--n-cpu-moe) sends its
    # hidden state to the host CPU and takes the experts' output back, two more. (Whole host layers are
    # one run left and re-entered: inside the host η.)
    expert_layers = np.where(
        _a(inp.expert_bytes) > 0, np.ceil(np.maximum(expert_host - dense_host, 0.0) * _a(inp.layers) - 1e-9), 0.0
    )
    hops = np.where((_a(inp.kv_host) > 0) & (kv_host > 0), 2.0 * on_device, 0.0) + 2.0 * expert_layers
    t_hops = hops * _a(inp.hop_time)
    # a page fault stalls the thread that takes it: reads from disk do not overlap the host's compute
    t_host = np.maximum(t_host_bytes - t_disk, t_host_compute) + t_disk + t_hops
    # each part counted at its own bytes per weight, unpacked only where it is quantized (below 16 bits)
    unpacked = np.where(is_quantized(dense_bpw), (1 - dense_host) * dense_weights_read / dense_bpw, 0.0) + np.where(
        quantized, (1 - expert_host) * expert_read / bpw, 0.0
    )
    # unpacking runs in the matrix-vector kernels, on the vector ALUs (advisor.core.vector_units)
    t_dequant = unpacked * _a(inp.dequant_flops) / np.where(_a(inp.vector_flops) > 0, _a(inp.vector_flops), flops)
    # An MoE model's step also runs router, top-k and expert-gather kernels: moe_token_factor × t₀.
    layers = _a(inp.layers)
    t_token_dense = _a(inp.token_time) * np.where(layers > 0, layers, T0_LAYERS) / T0_LAYERS * np.ones_like(t_weights)
    t_token = t_token_dense * np.where(_a(inp.expert_bytes) > 0, _a(inp.moe_token_factor), 1.0)
    t_sync = _a(inp.allreduces) * (
        _a(inp.allreduce_time) + streams * 2.0 * _a(inp.hidden) * _a(inp.allreduce_share) / _a(inp.peer_bw)
    )
    t_token = t_token + t_sync  # tensor split's all-reduces are part of the fixed time of a step
    # On a CPU-only machine attention is the memory side's own term (t_attn below)
    weight_flops = 2.0 * _a(inp.active_params)
    per_token_flops = weight_flops + attn_flops
    # On CPU cores decode's matmuls are the prefill's kernels on fewer tokens: quantized weights multiply at
    # the same share of the FP32 rate as they prefill (prefill_quant_eta); a GPU's small-batch matmuls are
    # hidden under the weights' streaming, so their format does not show there.
    compute_rate = flops * _a(inp.compute_eta) * np.where(on_cores & quantized, _a(inp.prefill_quant_eta), 1.0)
    compute_flops = weight_flops + np.where(on_cores | kernel_flops, 0.0, attn_flops)
    t_compute = streams * compute_flops / compute_rate
    t_compute_ceiling = streams * per_token_flops / flops
    # Batched decode below the crossover is not free: small-batch kernels re-read and unpack the weights
    # for each stream from cache, so each extra stream adds its matmuls at stream_cost × their peak time.
    t_streams = np.maximum(streams - 1, 0) * _a(inp.stream_cost) * weight_flops / flops
    # Attention without flash attention: scores, softmax and the weighted sum run as separate kernels
    # per query head, at a small share of the peak, for the layers held in fast memory. With fused
    # attention (flash attention, MLX, vLLM, a given η) κ covers the KV reads and this is 0.
    # On a CPU-only machine attention is work on the same cores as the matmuls, one after the other in
    # each layer, fused or not: each stream's cache walked at the threads' attention rate.
    attn_eta = _a(inp.unfused_attn_eta)
    t_attn_unfused = np.where(
        attn_eta > 0, (1 - kv_share) * streams * attn_flops / (flops * np.where(attn_eta > 0, attn_eta, 1.0)), 0.0
    )
    t_attn_cores = np.maximum(t_walk, fast_kv / fast_rate)
    t_attn = np.where(_a(inp.on_cores) > 0, t_attn_cores, t_attn_unfused)
    t_memory = t_weights + t_kv + t_host + t_dequant + t_streams + t_attn

    # A GPU overlaps streaming with arithmetic (the step is the longer of the two); on CPU cores the same
    # threads issue the loads and the multiply-adds, so their times add.
    step = np.where(on_cores, t_memory + t_compute, np.maximum(t_memory, t_compute)) + t_token
    ceiling = 1.0 / np.maximum(t_mem_ceiling, t_compute_ceiling)
    # No engine reads the cache faster than memory delivers it. A KV factor fitted below η (the data's
    # contexts slowed decode less than their bytes say) would lift the realistic figure above the
    # ceiling at contexts longer than any measurement: it stops at the ceiling there.
    capped = 1.0 / step > ceiling * (1 + 1e-9)
    decode_plain = np.minimum(1.0 / step, ceiling)

    # Speculative decoding: the target verifies k drafted tokens in one pass (memory cost of one
    # step, compute of k + 1 tokens); expected accepted tokens per pass = (1 − α^(k+1)) / (1 − α).
    draft = _a(inp.draft_bytes)
    speculating = draft > 0
    k = _a(inp.draft_length)
    alpha = _a(inp.acceptance)
    tokens_per_pass = np.where(speculating, (1 - alpha ** (k + 1)) / np.where(speculating, 1 - alpha, 1.0), 1.0)
    # each draft step is a forward pass of its own, of a dense draft model (its fixed time a
    # T0_LAYERS-layer model's: its depth is not an input)
    t_draft = np.where(speculating, draft / fast_rate + _a(inp.token_time), 0.0)
    t_verify = np.where(speculating, np.maximum(t_memory, t_compute * (k + 1)) + t_token, step)
    decode = np.where(speculating, tokens_per_pass / (k * t_draft + t_verify), decode_plain)

    kv_mode = _a(inp.kv_host) > 0
    # with -nkvo the cache stays put and its attention runs on the host; a host layer's KV crosses with it
    link_bytes = weights_host - disk_stored + np.where(kv_mode, 0.0, kv_host)
    device_stored = (1 - dense_host) * dense_weights_read + (1 - expert_host) * _a(inp.expert_bytes)
    device_params = (1 - dense_host) * dense_weights_read / dense_bpw + (1 - expert_host) * _a(inp.expert_bytes) / bpw
    pre = prefill_terms(
        inp,
        link_bytes,
        disk_stored,
        np.where(kv_mode, kv_share, 0.0),
        quantized,
        weight_flops_host,
        (device_stored, device_params),
    )

    zero = np.zeros_like(decode)
    decode = np.where(runs, decode, zero)
    one = np.ones_like(decode)
    return Outputs(
        runs=np.asarray(runs),
        fits=np.asarray(fits & runs),
        footprint=footprint,
        kv_hold=kv_hold,
        host_stored=host_stored * one,
        weights_host_stored=weights_host * one,
        kv_host_stored=kv_host * one,
        disk_stored=disk_stored * one,
        streams_from_disk=np.asarray(from_disk) & (one > 0),
        layers_on_device=on_device * one,
        dense_host_share=dense_host * one,
        expert_host_share=expert_host * one,
        kv_host_share=kv_share * one,
        placement=_placement_code(inp) * one,
        alt_placement=-one,
        alt_decode=np.nan * one,
        kv_read=kv_read * one,
        weights_read=(fast_weights + host_weights_read) * one,
        fast_read=(fast_weights + fast_kv) * one,
        fast_kv=fast_kv * one,
        host_read=host_read * one,
        disk_read=disk_read * one,
        host_flops=host_flops * one,
        t_host_attn=t_host_attn * one,
        unpacked_weights=unpacked * one,
        flops_per_token=per_token_flops * one,
        compute_flops=compute_flops * one,
        compute_rate=compute_rate * one,
        attn_flops_per_token=attn_flops * one,
        t_weights=t_weights * one,
        kv_cost=kv_cost * one,
        t_kv=t_kv * one,
        t_kv_flops=t_kv_flops * one,
        t_host=t_host * one,
        t_host_bytes=t_host_bytes * one,
        t_host_compute=t_host_compute * one,
        host_hops=hops * one,
        t_host_hops=t_hops * one,
        t_dequant=t_dequant * one,
        t_streams=t_streams * one,
        t_attn=t_attn * one,
        t_memory=t_memory * one,
        t_compute=t_compute * one,
        t_token=t_token * one,
        t_sync=t_sync * one,
        t_step=step * one,
        compute_bound=np.asarray(t_compute > t_memory) & (one > 0),
        t_mem_ceiling=t_mem_ceiling * one,
        t_compute_ceiling=t_compute_ceiling * one,
        ceiling=np.where(runs, ceiling, zero),
        capped=np.asarray(capped) & (one > 0),
        decode=decode,
        decode_plain=np.where(runs, decode_plain, zero),
        aggregate=decode * streams,
        spec_tokens_per_pass=tokens_per_pass * one,
        t_draft=t_draft * one,
        t_verify=t_verify * one,
        prefill=np.where(runs, pre.rate, zero),
        prefill_matmul_flops=pre.matmul_flops,
        prefill_attn_flops=pre.attn_flops,
        prefill_matmul_eta=pre.matmul_eta,
        t_prefill_link=pre.t_link,
        t_prefill_scores=pre.t_scores,
        t_prefill_copy=pre.t_copy,
        prefill_pipeline=pre.pipeline,
        prefill_batches=pre.batches,
    )
