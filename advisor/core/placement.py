"""Where the bytes live: what one decode step reads per stream, and which layers (or experts) sit in
fast memory and which in host memory.

Placement is by whole layers, as engines do it: one byte over capacity moves a whole layer to the
host, which is why speed falls off a cliff rather than sagging."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from advisor.core.roofline_inputs import Inputs, Num


def _a(x: Num) -> NDArray[np.float64]:
    return np.asarray(x, dtype=float)


def _whole(room: NDArray[np.float64], per: NDArray[np.float64]) -> NDArray[np.float64]:
    """room ÷ per where per > 0, else infinitely many (nothing to place); room may be infinite (memory
    size not known)."""
    out = np.full(np.broadcast_shapes(np.shape(room), np.shape(per)), np.inf)
    return np.asarray(np.divide(room, per, out=out, where=np.asarray(per) > 0), dtype=float)


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


def cache_walk_time(inp: Inputs, position: Num) -> NDArray[np.float64]:
    """Seconds CPU cores take to walk one stream's KV cache at `position` tokens: its bytes ÷ (threads ×
    the per-thread attention rate)."""
    rate = _a(inp.attn_threads) * _a(inp.cpu_attn_rate)
    return kv_per_stream(inp.kv_full, inp.kv_window, inp.window, position) / rate


def attention_flops(inp: Inputs, position: Num) -> NDArray[np.float64]:
    """Attention FLOP for one token at `position` tokens of context (QKᵀ and AV)."""
    p = _a(position)
    return _a(inp.attn_flops_full) * p + _a(inp.attn_flops_window) * np.minimum(p, _a(inp.window))


def place(inp: Inputs) -> tuple[NDArray[np.float64], ...]:
    """Decide what sits in fast memory, by whole layers (or whole layers' experts first, or every layer's
    KV cache in host RAM).

    Returns (dense host share, expert host share, KV host share, layers on device, KV held, footprint).
    Placement is by whole layers, as engines do it: one byte over capacity moves a whole layer to
    the host, which is why speed falls off a cliff rather than sagging. With the KV cache on the host
    (llama.cpp -nkvo) only the weights compete for fast memory."""
    layers = _a(inp.layers)
    kv_hold = _a(inp.streams) * (
        kv_per_stream(inp.kv_full, inp.kv_window, inp.window, inp.hold_tokens) + _a(inp.state_bytes)
    )
    kv_mode = _a(inp.kv_host) > 0
    device_kv = np.where(kv_mode, 0.0, kv_hold)
    dense_kv = _a(inp.dense_bytes) + device_kv + _a(inp.draft_bytes)
    footprint = _a(inp.dense_bytes) + kv_hold + _a(inp.draft_bytes) + _a(inp.expert_bytes)
    device_footprint = dense_kv + _a(inp.expert_bytes)
    cap = _a(inp.fast_cap)
    forced = _a(inp.forced_layers)
    has_forced = ~np.isnan(forced)

    # Whole layers: as many as fit.
    per_layer = device_footprint / layers
    fit_layers = np.clip(np.floor(_whole(cap, per_layer)), 0, layers)
    on_device = np.where(has_forced, np.minimum(_nan_to_zero(forced), layers), fit_layers)
    layer_host = (layers - on_device) / layers

    experts = _a(inp.expert_bytes)
    if not np.any(experts > 0):  # a dense model: whole layers are all there is to place
        return layer_host, layer_host, np.where(kv_mode, 1.0, layer_host), on_device, kv_hold, footprint

    # Experts first: dense part and KV stay on the device, expert blocks leave layer by layer.
    exp_per_layer = experts / layers
    room = cap - dense_kv
    exp_layers = np.clip(np.floor(_whole(room, exp_per_layer)), 0, layers)
    dense_fits = room >= 0
    use_experts = (_a(inp.experts_first) > 0) & (experts > 0) & ~has_forced & ~kv_mode
    # When even the dense part does not fit, all experts go to the host and dense layers follow.
    dense_per_layer = dense_kv / layers
    dense_layers = np.clip(np.floor(_whole(cap, dense_per_layer)), 0, layers)
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
    rest_per_layer = (device_footprint - cm_share * experts) / layers
    cm_fit = np.clip(np.floor(_whole(cap, rest_per_layer)), 0, layers)
    cm_on = np.where(has_forced, np.minimum(_nan_to_zero(forced), layers), cm_fit)
    cm_layer_host = (layers - cm_on) / layers
    dense_host = np.where(has_cmoe, cm_layer_host, dense_host)
    expert_host = np.where(has_cmoe, np.maximum(cm_layer_host, cm_share), expert_host)
    on_device = np.where(has_cmoe, cm_on, on_device)
    # each layer's KV lives where its attention weights do, unless all of it is on the host
    return dense_host, expert_host, np.where(kv_mode, 1.0, dense_host), on_device, kv_hold, footprint
