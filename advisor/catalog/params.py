"""Parameter counts from a transformer's config-level sizes: the one place that arithmetic lives.

Counts every matrix and the norms; leaves out what is negligible at the scale of a model
(rotary tables, Q/K norms, attention sinks). Good to well under 1 % on the published configs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class ArchCounts:
    """What a config.json says about the shape, in its own terms (0 means absent)."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    intermediate_size: int = 0  # dense MLP width: every layer of a dense model, the dense layers of an MoE
    tied_embeddings: bool = False  # lm_head shares the input embedding table
    gated_mlp: bool = True  # SwiGLU/GeGLU: gate, up and down matrices; False: up and down only
    attention_bias: bool = False  # q/k/v biases (Qwen2, GLM-4.5, gpt-oss)
    # Mixture of experts
    experts: int = 0  # routed experts per MoE layer
    experts_active: int = 0  # routed experts each token uses
    moe_intermediate_size: int = 0  # width of one routed expert
    shared_experts: int = 0  # always-on experts per MoE layer
    shared_intermediate_size: int = 0  # width of one shared expert; 0 means the routed width
    dense_layers: int = 0  # layers with a dense MLP instead of experts (DeepSeek's first_k_dense_replace)
    expert_bias: bool = False  # experts and router carry biases (gpt-oss)
    # Multi-head latent attention (DeepSeek V3, Kimi K2): replaces the q/k/v/o shapes above
    kv_lora_rank: int = 0
    q_lora_rank: int = 0  # 0: queries come from a plain hidden -> heads x qk_head_dim projection
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0

    @property
    def is_moe(self) -> bool:
        return self.experts > 0 and self.moe_intermediate_size > 0

    @property
    def moe_layers(self) -> int:
        return max(self.layers - self.dense_layers, 0) if self.is_moe else 0


class ParamCount(NamedTuple):
    total: int
    active: int  # read per token: total minus the routed experts a token does not use


def _attention(a: ArchCounts) -> int:
    h = a.hidden
    if a.kv_lora_rank:
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        q = (h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * a.heads * qk) if a.q_lora_rank else h * a.heads * qk
        kv = (
            h * (a.kv_lora_rank + a.qk_rope_head_dim)
            + a.kv_lora_rank
            + a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim)
        )
        return q + kv + a.heads * a.v_head_dim * h
    q_dim, kv_dim = a.heads * a.head_dim, a.kv_heads * a.head_dim
    bias = q_dim + 2 * kv_dim if a.attention_bias else 0
    return h * q_dim + 2 * h * kv_dim + q_dim * h + bias


def _mlp(hidden: int, width: int, gated: bool) -> int:
    return (3 if gated else 2) * hidden * width


def count_params(a: ArchCounts) -> ParamCount:
    """Total and active parameters, counted from the shapes alone."""
    h = a.hidden
    embed = a.vocab * h * (1 if a.tied_embeddings else 2)
    per_layer = _attention(a) + 2 * h  # two norms per block
    total = embed + h + a.layers * per_layer  # + final norm
    dense_layers = a.layers - a.moe_layers
    total += dense_layers * _mlp(h, a.intermediate_size, a.gated_mlp)
    if not a.is_moe:
        return ParamCount(total, total)

    expert = _mlp(h, a.moe_intermediate_size, a.gated_mlp)
    if a.expert_bias:  # gate+up (or up) bias plus down bias per expert
        expert += (2 if a.gated_mlp else 1) * a.moe_intermediate_size + h
    shared = a.shared_experts * _mlp(h, a.shared_intermediate_size or a.moe_intermediate_size, a.gated_mlp)
    router = h * a.experts + (a.experts if a.expert_bias else 0)
    routed = a.moe_layers * a.experts * expert
    total += routed + a.moe_layers * (shared + router)
    unused = a.moe_layers * (a.experts - min(a.experts_active, a.experts)) * expert
    return ParamCount(total, total - unused)
