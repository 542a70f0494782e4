"""Catalog entries to the core's plain input models (dropping ids, sources and prices)."""

from __future__ import annotations

from advisor.catalog.schema import HardwareEntry, ModelEntry, QuantEntry
from advisor.core.hardware import Hardware
from advisor.core.model import ModelArch
from advisor.core.quant import Quant


def to_hardware(e: HardwareEntry) -> Hardware:
    return Hardware.model_validate(e.model_dump(include=set(Hardware.model_fields)))


def to_model(e: ModelEntry) -> ModelArch:
    return ModelArch.model_validate(e.model_dump(include=set(ModelArch.model_fields)))


def to_quant(e: QuantEntry) -> Quant:
    return Quant.model_validate(e.model_dump(include=set(Quant.model_fields)))
