"""How the model does on sources it never saw: the cross-validation by source, as shipped figures.

`benchmarks/loso.py` computes them (advisor.validation.loso) and writes catalogs/published/loso.json;
the help dialog, the docs and the README read them from there."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from advisor.core.base import Frozen


class ErrorFigure(Frozen):
    n: int = Field(ge=0, le=10_000_000)
    median_pct: float | None = Field(None, ge=0, le=1e6)
    p90_pct: float | None = Field(None, ge=0, le=1e6)


class SourceFigure(ErrorFigure):
    """One group's error when each source is predicted by a fit on the others, beside the simple formula's."""

    test: Literal["tg", "pp"]
    group: str = Field(max_length=80)
    sources: int = Field(ge=0, le=1_000_000)
    band_held_pct: float | None = Field(None, ge=0, le=100)
    simple: ErrorFigure

    @property
    def beats_simple(self) -> bool | None:
        """The model's median error is below the simple formula's (None when either is missing)."""
        if self.median_pct is None or self.simple.median_pct is None:
            return None
        return self.median_pct < self.simple.median_pct


class VendorFigure(ErrorFigure):
    vendor: str = Field(max_length=40)
    sources: int = Field(ge=0, le=1_000_000)
    band_held_pct: float | None = Field(None, ge=0, le=100)
    simple: ErrorFigure


class SourceValidation(Frozen):
    """The whole shipped file: per kind, per vendor (decode), and how the folds were made."""

    sources: int = Field(ge=0, le=1_000_000)
    rows: int = Field(ge=0, le=10_000_000)
    folds: int = Field(0, ge=0, le=1_000_000)
    kinds: tuple[SourceFigure, ...] = ()
    vendors: tuple[VendorFigure, ...] = ()
