"""Catalog entries to the core's plain input models (dropping ids, sources and prices)."""

from __future__ import annotations

from collections.abc import Mapping

from advisor.catalog.schema import HardwareEntry, ModelEntry, QuantEntry
from advisor.core.hardware import Hardware
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.recommend import Standing


def to_hardware(e: HardwareEntry) -> Hardware:
    return Hardware.model_validate(e.model_dump(include=set(Hardware.model_fields)))


def to_model(e: ModelEntry) -> ModelArch:
    return ModelArch.model_validate(e.model_dump(include=set(ModelArch.model_fields)))


def to_quant(e: QuantEntry) -> Quant:
    return Quant.model_validate(e.model_dump(include=set(Quant.model_fields)))


def to_standing(e: ModelEntry) -> Standing:
    c = e.capability
    return Standing(family=e.family, released=e.released, score=c.score if c else None, metric=c.metric if c else None)


def standings(models: Mapping[str, ModelEntry]) -> dict[str, Standing]:
    """The recommender's ranking facts for every catalog model, by key."""
    return {k: to_standing(e) for k, e in models.items()}
