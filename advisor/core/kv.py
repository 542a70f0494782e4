"""KV-cache size: what each token of context costs to store and to read back on every decode step."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from advisor.core.model import ModelArch
from advisor.core.quant import KV_BYTES_PER_ELEMENT, KVPrecision


class KVShape(NamedTuple):
    """Bytes per token of context, split by whether the layer's cache stops growing at a window."""

    full_bytes_per_token: float  # layers that attend to the whole context
    window_bytes_per_token: float  # sliding-window layers, which cache at most `window` tokens
    window: float  # tokens; inf when there are no sliding layers
    known: bool  # False when the model has no shape: KV counts as zero


NO_KV = KVShape(0.0, 0.0, float("inf"), False)


def recurrent_state_bytes(layers: int, d_state: int, d_inner: int, n_group: int, d_conv: int) -> float:
    """Bytes per sequence of the recurrent state of a hybrid model's Mamba-2 or Gated DeltaNet layers, as
    llama.cpp keeps it in f32: the SSM state (d_state × d_inner) plus the convolution's last d_conv − 1
    inputs (d_inner + 2 × n_group × d_state channels), per layer."""
    per_layer = d_state * d_inner + max(d_conv - 1, 0) * (d_inner + 2 * n_group * d_state)
    return 4.0 * layers * per_layer


def attention_kv_bytes(attention_layers: int, kv_heads: int, head_dim: int) -> float:
    """KV bytes per token at 16 bits of a hybrid model's attention layers alone (the figure a model's
    `kv_bytes_per_token_override` takes): K and V, each KV head × head dim, 2 bytes per element."""
    return 2.0 * attention_layers * kv_heads * head_dim * KV_BYTES_PER_ELEMENT[KVPrecision.F16]


def kv_shape(model: ModelArch, precision: KVPrecision) -> KVShape:
    """Per-token KV bytes: 2 (K and V) × layers × KV heads × head dim × bytes per element.

    MLA caches one compressed latent plus the rope key per layer instead of K and V per head."""
    el = KV_BYTES_PER_ELEMENT[precision]
    if model.kv_bytes_per_token_override is not None:
        return KVShape(model.kv_bytes_per_token_override / 2.0 * el, 0.0, float("inf"), True)
    if not model.has_kv_shape or model.layers is None:
        return NO_KV
    if model.attention == "mla":
        assert model.kv_lora_rank is not None
        per_layer = (model.kv_lora_rank + (model.rope_dim or 0)) * el
        return KVShape(model.layers * per_layer, 0.0, float("inf"), True)
    kv_heads = model.kv_heads or model.heads
    head_dim = model.resolved_head_dim
    assert kv_heads is not None and head_dim is not None
    per_layer = 2 * kv_heads * head_dim * el
    if model.attention == "sliding":
        assert model.sliding_layers is not None and model.sliding_window is not None
        n_window = model.sliding_layers
        return KVShape((model.layers - n_window) * per_layer, n_window * per_layer, float(model.sliding_window), True)
    return KVShape(model.layers * per_layer, 0.0, float("inf"), True)


def kv_bytes(shape: KVShape, tokens: ArrayLike) -> NDArray[np.float64]:
    """KV bytes one stream holds (and reads per step) at `tokens` of context; vectorized over tokens."""
    t = np.asarray(tokens, dtype=float)
    return np.asarray(
        shape.full_bytes_per_token * t + shape.window_bytes_per_token * np.minimum(t, shape.window), dtype=float
    )
