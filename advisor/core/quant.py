"""How weights and the KV cache are stored: bits per weight and bytes per cached element."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from advisor.core.base import Frozen


class KVPrecision(StrEnum):
    F16 = "f16"
    Q8_0 = "q8_0"
    Q4_0 = "q4_0"
    FP8 = "fp8"


# ggml's q8_0 stores 32 int8 values plus one f16 scale (34 bytes per 32); q4_0 stores 32 nibbles
# plus one f16 scale (18 bytes per 32).
KV_BYTES_PER_ELEMENT: dict[KVPrecision, float] = {
    KVPrecision.F16: 2.0,
    KVPrecision.Q8_0: 34 / 32,
    KVPrecision.Q4_0: 18 / 32,
    KVPrecision.FP8: 1.0,
}


class Quant(Frozen):
    """A weight format by what it really stores on average, scales and kept-precision tensors included.
    At least one bit per weight: the smallest formats in use (IQ1_S, ternary) store about 1.6."""

    name: str = Field("Q4_K_M", title="Name", max_length=200)
    bits_per_weight: float = Field(
        4.89,
        ge=1,
        le=64,
        title="Bits per weight",
        json_schema_extra={"unit": "bpw"},
        description="Average stored bits per weight, block scales included",
    )
    dense_bits_per_weight: float | None = Field(
        None,
        ge=1,
        le=64,
        title="Non-expert bits",
        json_schema_extra={"unit": "bpw"},
        description="Mixture-of-experts models: bits per weight of the tensors outside the experts (attention, "
        "shared layers, output head) where the format keeps them at another precision; empty: "
        "the same as bits per weight",
    )

    @property
    def bytes_per_weight(self) -> float:
        return self.bits_per_weight / 8.0

    @property
    def dense_bytes_per_weight(self) -> float:
        """Bytes per weight of an MoE model's non-expert tensors (of every tensor of a dense model, which
        the roofline counts as all dense: there the format's own bits apply)."""
        return (self.dense_bits_per_weight if self.dense_bits_per_weight is not None else self.bits_per_weight) / 8.0
