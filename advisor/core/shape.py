"""A typical shape for a model known only by its parameter count, so its KV cache and attention work
are estimated instead of silently counted as zero.

The constants are a least-squares fit, in log space, over the dense models of the shipped catalog
(0.5–405 B: Llama 3, Qwen 2.5/3, Gemma 2/3, Mistral, Phi, Granite): layers ≈ 22.5 × P^0.257 and
heads × head dim × layers ≈ 35,500 × P^0.647, with P in billions; most of them use 8 KV heads of 128
dimensions. For Llama 3.1 8B this gives 38 layers and 28 heads (the real model: 32 and 32), 152 KiB of
KV per token at 16 bits (the real one: 128 KiB); for a 70 B model 67 layers and 65 heads (Llama 3.1
70B: 80 and 64; 268 against 320 KiB per token).

A mixture of experts is as deep and wide as a dense model of its active size, not its total: each
token passes every layer but only its own experts (DeepSeek-V3, 37 B active: 61 layers, the fit 57;
Kimi K2, 32 B active: 61 layers, the fit 55; by its 1,000 B total the fit would give 133)."""

from __future__ import annotations

from advisor.core.model import ModelArch
from advisor.core.roofline_inputs import T0_LAYERS

LAYERS_SCALE, LAYERS_EXPONENT = 22.5, 0.257
WIDTH_SCALE, WIDTH_EXPONENT = 35_500.0, 0.647  # heads × head dim × layers
TYPICAL_HEAD_DIM = 128
TYPICAL_KV_HEADS = 8


def with_typical_shape(model: ModelArch) -> ModelArch:
    """The model as it is when its KV shape is known; otherwise the same model with the missing shape
    fields filled in from its parameter count, the active one for an MoE (advisor.core.shape's fit; an
    estimate)."""
    if model.has_kv_shape:
        return model
    p = model.active_b
    layers = model_layers(model)
    head_dim = model.resolved_head_dim or TYPICAL_HEAD_DIM
    heads = model.heads or max(1, round(WIDTH_SCALE * p**WIDTH_EXPONENT / (head_dim * layers)))
    kv_heads = model.kv_heads or min(TYPICAL_KV_HEADS, heads)
    return model.model_copy(update={"layers": layers, "heads": heads, "kv_heads": kv_heads, "head_dim": head_dim})


def shape_text(model: ModelArch) -> str:
    """ "38 layers, 28 heads, 8 KV heads × 128": the shape the estimate uses."""
    m = with_typical_shape(model)
    return f"{m.layers} layers, {m.heads} heads, {m.kv_heads} KV heads × {m.resolved_head_dim}"


def model_layers(model: ModelArch) -> int:
    """The model's layers, or the typical count for its (active) size where it does not say."""
    return model.layers or max(
        1, round(LAYERS_SCALE * model.active_b**LAYERS_EXPONENT), model.sliding_layers or 0, model.attention_layers or 0
    )


def fixed_time_scale(model: ModelArch) -> float:
    """What the model's layers make of the fitted fixed time per step: layers ÷ T0_LAYERS."""
    return model_layers(model) / T0_LAYERS
