"""Catalog entries: the core's input models plus an id, a display name and where each figure came from."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from advisor.core.base import Frozen
from advisor.core.hardware import Hardware
from advisor.core.model import ModelArch
from advisor.core.quant import KVPrecision, Quant

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)]
YearMonth = Annotated[str, StringConstraints(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]
Source = Annotated[str, StringConstraints(min_length=3, max_length=2000)]
PriceKind = Literal["new", "used"]
Product = Annotated[str, StringConstraints(min_length=2, max_length=80)]


class MeasuredPoint(Frozen):
    """One of the user's own llama-bench results (or a typed tok/s) kept with their hardware entry."""

    test: Literal["pp", "tg"] = Field(description="pp = prompt processing (prefill), tg = text generation (decode)")
    prompt: int = Field(0, ge=0, le=10_000_000, description="Prompt tokens of a pp test")
    gen: int = Field(0, ge=0, le=10_000_000, description="Generated tokens of a tg test")
    depth: int = Field(0, ge=0, le=100_000_000, description="Tokens already in the KV cache (llama-bench -d)")
    tok_s: float = Field(ge=0.001, le=1e9, description="Measured tok/s")
    model_id: str | None = Field(None, max_length=200, description="Catalog model the point was measured with")
    quant_id: str | None = Field(None, max_length=200, description="Catalog quant the point was measured with")


class HardwareEntry(Hardware):
    id: Slug
    # a catalog entry always knows its memory (custom hardware may not)
    memory_gb: float = Field(
        ge=0.01,
        le=100_000,
        title="Memory",
        json_schema_extra={"unit": "GB"},
        description=Hardware.model_fields["memory_gb"].description,
    )
    vendor: str = Field(max_length=80)
    year: int | None = Field(None, ge=1990, le=2100, description="Launch year")
    power_w: float | None = Field(None, ge=0.1, le=100_000, description="Board power / TDP, W")
    price_usd: float | None = Field(None, ge=0.01, le=10_000_000, description="Typical price, USD")
    price_seen: YearMonth | None = Field(None, description="When that price was seen, YYYY-MM")
    price_estimate: bool = Field(True, description="True unless the price is a list/MSRP figure from a source")
    price_kind: PriceKind = Field("new", description="Whether price_usd is for a new or a used one")
    used_price_usd: float | None = Field(None, ge=0.01, le=10_000_000, description="What a used one sells for, USD")
    used_price_seen: YearMonth | None = Field(None, description="When that used price was seen, YYYY-MM")
    used_price_source: Source | None = Field(None, description="Where the used price was seen")
    products: list[Product] = Field(
        default_factory=list,
        max_length=20,
        description="Products this configuration is sold in (Mac mini, MacBook Pro 16, "
        "Framework Desktop…): found by search and shown in tooltips",
    )
    source: Source
    estimates: list[str] = Field(
        default_factory=list, description="Field names whose figures are estimates rather than sourced"
    )
    notes: str = ""
    # The user's own measurements (advisor.measure): picking the entry sets the workload's η to these.
    measured_eta: float | None = Field(
        None,
        ge=0.01,
        le=1,  # as the workload's η
        description="Decode η fitted to the user's own measurements (η × ceiling)",
    )
    measured_compute_eta: float | None = Field(
        None, ge=0.01, le=1, description="Prefill η fitted to the user's own measurements"
    )
    measured_points: list[MeasuredPoint] = Field(
        default_factory=list, max_length=500, description="The measurements the η were fitted to"
    )

    @model_validator(mode="after")
    def _used_price_dated(self) -> HardwareEntry:
        if self.used_price_usd is not None:
            if self.used_price_seen is None:
                raise ValueError("used_price_usd needs used_price_seen (YYYY-MM)")
            if self.used_price_source is None and "used_price_usd" not in self.estimates:
                raise ValueError("used_price_usd needs used_price_source, or 'used_price_usd' under estimates")
        return self


class Capability(Frozen):
    """One published capability score: a public leaderboard's or the model card's benchmark table.
    The catalog keeps one metric (MMLU-Pro) so scores compare."""

    score: float = Field(ge=0, le=100, description="Higher is better, in percent")
    metric: str = Field(min_length=2, max_length=80)
    source: Source
    seen: YearMonth = Field(description="When the score was read, YYYY-MM")


class ModelEntry(ModelArch):
    id: Slug
    family: str = Field(
        max_length=80,
        description="The line whose newer members supersede older ones at the "
        "same or smaller size (advisor.core.recommend)",
    )
    license: str = Field("", max_length=200)
    released: YearMonth | None = Field(None, description="Release month from the model card or announcement")
    capability: Capability | None = None
    source: Source
    estimates: list[str] = Field(default_factory=list)
    notes: str = ""


class QuantQuality(Frozen):
    metric: Literal["ppl_delta_pct", "kld", "top1_agree_pct"]
    value: float = Field(ge=0)
    reference: str = Field(max_length=300, description="Model and data the figure was measured on")


class QuantEntry(Quant):
    id: Slug
    format: Literal["gguf", "gpu", "exl"]
    quality: QuantQuality | None = None
    source: Source
    estimates: list[str] = Field(default_factory=list)
    notes: str = ""


class KVCacheEntry(Frozen):
    id: KVPrecision
    name: str
    bytes_per_element: float = Field(gt=0, le=8)
    source: Source
    notes: str = ""
