"""What the network is: parameter counts and the shape that sets its KV cache."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from advisor.core.base import Frozen

AttentionKind = Literal["full", "sliding", "mla"]
HEAD_WIDTH_FACTOR = 8


class ModelArch(Frozen):
    """A model's published architecture. Only params are required: without the shape,
    the KV cache counts as zero and the result says so."""

    name: str = Field("Custom model", title="Name", max_length=200)
    total_params_b: float = Field(
        8.0,
        ge=1e-9,
        le=100_000,
        title="Total params",
        json_schema_extra={"unit": "B"},
        description="All parameters, in billions: what must be stored",
    )
    active_params_b: float | None = Field(
        None,
        ge=1e-9,
        le=100_000,
        title="Active params",
        json_schema_extra={"unit": "B"},
        description="Parameters read per token (MoE); empty means dense",
    )
    layers: int | None = Field(None, ge=1, le=1000, title="Layers")
    hidden: int | None = Field(None, ge=1, le=1_000_000, title="Hidden size")
    heads: int | None = Field(None, ge=1, le=10_000, title="Attention heads")
    kv_heads: int | None = Field(None, ge=1, le=10_000, title="KV heads", description="Grouped-query KV heads")
    head_dim: int | None = Field(None, ge=1, le=100_000, title="Head dim")
    vocab: int | None = Field(None, ge=1, le=10_000_000, title="Vocabulary")
    max_context: int = Field(131_072, ge=1, le=100_000_000, title="Max context", json_schema_extra={"unit": "tokens"})
    attention: AttentionKind = Field(
        "full",
        title="Attention",
        description="full; sliding (some layers see only a window); mla (caches a compressed latent, as DeepSeek V3)",
    )
    sliding_window: int | None = Field(None, ge=1, le=100_000_000, title="Window", json_schema_extra={"unit": "tokens"})
    sliding_layers: int | None = Field(
        None, ge=0, le=1000, title="Sliding layers", description="How many layers use the sliding window"
    )
    kv_lora_rank: int | None = Field(None, ge=1, le=100_000, title="MLA latent dim")
    rope_dim: int | None = Field(None, ge=0, le=100_000, title="MLA rope dim")
    experts: int | None = Field(None, ge=1, le=100_000, title="Experts")
    experts_active: int | None = Field(None, ge=1, le=100_000, title="Active experts")
    attention_layers: int | None = Field(
        None,
        ge=0,
        le=1000,
        title="Attention layers",
        description="Hybrid models: how many layers attend over the context (the rest are linear-attention or "
        "state-space layers); empty: every layer",
    )
    tied_embeddings: bool | None = Field(
        None,
        title="Tied embeddings",
        description="The output head shares the input embedding table. No: the input table (vocabulary × "
        "hidden) is stored but a token reads only its own row of it; empty: unknown, counted as read",
    )
    state_bytes_per_sequence: float | None = Field(
        None,
        ge=0,
        le=1e12,
        title="Recurrent state",
        json_schema_extra={"unit": "bytes"},
        description="Hybrid models: bytes of state per sequence their linear-attention or state-space layers "
        "keep, whatever the context; held like the KV cache and read and rewritten every token",
    )
    kv_bytes_per_token_override: float | None = Field(
        None,
        ge=0,
        le=1e9,
        title="KV bytes/token",
        description="Known KV bytes per token at 16 bits, instead of computing it from the shape",
    )

    @model_validator(mode="after")
    def _consistent(self) -> ModelArch:
        if self.active_params_b is not None and self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b cannot exceed total_params_b")
        if self.attention == "sliding":
            if self.sliding_window is None or self.sliding_layers is None:
                raise ValueError("sliding attention needs sliding_window and sliding_layers")
            if self.layers is not None and self.sliding_layers > self.layers:
                raise ValueError("sliding_layers cannot exceed layers")
        if self.attention == "mla" and self.kv_lora_rank is None:
            raise ValueError("mla attention needs kv_lora_rank")
        if self.layers is not None and self.attention_layers is not None and self.attention_layers > self.layers:
            raise ValueError("attention_layers cannot exceed layers")
        if self.experts is not None and self.experts_active is not None and self.experts_active > self.experts:
            raise ValueError("experts_active cannot exceed experts")
        if (
            self.sliding_layers is not None
            and self.attention_layers is not None
            and self.sliding_layers > self.attention_layers
        ):
            # the window applies to attending layers only; more would count negative full-attention layers
            raise ValueError("sliding_layers cannot exceed attention_layers")
        if self.kv_heads is not None and self.heads is not None and self.kv_heads > self.heads:
            raise ValueError("kv_heads cannot exceed heads (each KV head serves one or more query heads)")
        for name in ("state_bytes_per_sequence", "kv_bytes_per_token_override"):
            v = getattr(self, name)
            if v is not None and 0 < v < 1:  # a fraction of a byte is no cache, and divides to overflow
                raise ValueError(f"{name} must be 0 or at least 1 byte")
        self._shape_consistent()
        return self

    def _shape_consistent(self) -> None:
        """heads × head_dim against hidden: real models stay within a few times of it (0.76 for Gemma 3 27B,
        3 for GLM-4.5 Air); a factor of HEAD_WIDTH_FACTOR either way is a typo or a misread config."""
        if self.hidden is None or self.heads is None:
            return
        if self.head_dim is None:
            if self.heads > self.hidden:
                raise ValueError("heads cannot exceed hidden when head_dim is not given (head_dim = hidden ÷ heads)")
            return
        width = self.heads * self.head_dim
        if not self.hidden / HEAD_WIDTH_FACTOR <= width <= self.hidden * HEAD_WIDTH_FACTOR:
            raise ValueError(
                f"heads × head_dim ({width:,}) is not within {HEAD_WIDTH_FACTOR}× of hidden ({self.hidden:,})"
            )

    @property
    def active_b(self) -> float:
        return self.active_params_b if self.active_params_b is not None else self.total_params_b

    @property
    def is_moe(self) -> bool:
        return self.active_b < self.total_params_b

    @property
    def resolved_head_dim(self) -> int | None:
        if self.head_dim is not None:
            return self.head_dim
        if self.hidden is not None and self.heads is not None:
            return self.hidden // self.heads
        return None

    @property
    def has_kv_shape(self) -> bool:
        if self.kv_bytes_per_token_override is not None:
            return True
        if self.layers is None:
            return False
        if self.attention == "mla":
            return True
        return (self.kv_heads or self.heads) is not None and self.resolved_head_dim is not None
