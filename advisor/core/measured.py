"""Your own calibration: what your measurements say on top of the fitted model for your machine.

The fitted model (advisor.core.calibration) stays whole: its fixed time per step, KV factor,
dequantization cost, backend, architecture and machine factors all still apply. A calibration adds

- a decode factor f on the fitted η: the step's weight and KV streaming takes 1/f of the fitted
  time (the share of datasheet bandwidth stops at 1);
- with runs at clearly different sizes (bytes streamed per step at least FIXED_COST_SPREAD apart), an
  extra fixed time Δt₀ per step, ms: the part of the step no bandwidth explains;
- a prefill factor on the fitted compute η.

Both are fitted by least squares on relative error, from the fitted model's split of each run's
time into the part that scales with η and the rest (`Run`). The band around a calibrated figure
narrows with the number of runs: one run leaves the shipped band; many runs close to the spread of
their own residuals (`calibrated_band`).

Pure: no Qt, no I/O."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field

from advisor.core.base import Frozen

FIXED_COST_MIN_RUNS = 4  # below this a second parameter fits the noise
FIXED_COST_SPREAD = 1.5  # largest ÷ smallest streamed time among the runs before Δt₀ is fitted
# One model's runs say only part about the machine: the rest is that model's own. Over published
# llama.cpp decode runs of several models on one machine from one source (benchmarks/data), the
# factor one model's runs fit scatters 6-7 % (log, standard deviation) from model to model, and
# carried whole to the machine's other models it made them worse (median error 6.1 -> 9.0 %). So the
# factor applies whole to the model it was measured with, and to other models as TRANSFER of it in
# log (a quarter: 6.7 % there, within a point of the fitted model alone, 6.1 %; the test
# tests/validation/test_measured_transfer.py keeps that relation). 6.5 % is the narrowest band a
# calibration can have.
SPREAD_FLOOR = 0.065
TRANSFER = 0.25
FACTOR_MIN, FACTOR_MAX = 0.05, 20.0


class MeasuredTerms(Frozen):
    """Kept with the user's own hardware entry: the factors their runs fitted and what they rest on."""

    decode_factor: float = Field(1.0, ge=FACTOR_MIN, le=FACTOR_MAX, description="Factor on the fitted decode η")
    token_ms: float = Field(0.0, ge=-1000, le=1000, description="Fixed time added to each decode step, ms")
    prefill_factor: float = Field(1.0, ge=FACTOR_MIN, le=FACTOR_MAX, description="Factor on the fitted prefill η")
    decode_runs: int = Field(0, ge=0, le=10_000, description="Decode runs the factor rests on")
    prefill_runs: int = Field(0, ge=0, le=10_000, description="Prefill runs the factor rests on")
    decode_spread: float = Field(0.0, ge=0, le=5, description="RMS of the runs' log residuals at the fit")
    prefill_spread: float = Field(0.0, ge=0, le=5, description="Same for prefill")
    model: str = Field("", max_length=400, description="The model and quant the runs measured (model_key)")
    transfer: float = Field(TRANSFER, ge=0, le=1, description="Share of the factor (in log) other models get")

    def weight(self, model: str) -> float:
        """How much of the calibration applies to `model` (a model_key): all of it for the measured
        model (or when the entry does not say which it was), `transfer` for any other."""
        return 1.0 if not self.model or model == self.model else self.transfer

    def decode_factor_for(self, model: str) -> float:
        return math.exp(self.weight(model) * math.log(self.decode_factor))

    def prefill_factor_for(self, model: str) -> float:
        return math.exp(self.weight(model) * math.log(self.prefill_factor))

    def token_ms_for(self, model: str) -> float:
        return self.weight(model) * self.token_ms

    def band(self, shipped: tuple[float, float], model: str) -> tuple[float, float]:
        """The decode band for `model`: narrowed by the runs for the measured model, shipped for others."""
        if self.weight(model) < 1.0:
            return shipped
        return calibrated_band(shipped, self.decode_runs, self.decode_spread)


def model_key(model_name: str, quant_name: str) -> str:
    """Which model a calibration was measured with: its name and its quant's."""
    return f"{model_name} @ {quant_name}"


@dataclass(frozen=True)
class Run:
    """One measured run as the fitted model splits its time (seconds per token)."""

    measured_s: float  # 1 ÷ measured tok/s
    scaled_s: float  # the fitted model's time that scales with 1/η (streaming; prefill compute)
    fixed_s: float  # the rest of the fitted model's time (t₀, dequantization, host, link)

    def predicted_s(self, factor: float, extra_s: float = 0.0) -> float:
        return self.scaled_s / factor + self.fixed_s + extra_s


@dataclass(frozen=True)
class FactorFit:
    factor: float  # within (FACTOR_MIN, max_factor]
    raw_factor: float  # before the cap at the datasheet ceiling
    extra_s: float  # Δt₀, s (0 when not fitted)
    fixed_cost: bool  # whether Δt₀ was fitted
    residuals: tuple[float, ...]  # measured ÷ predicted − 1, per run

    @property
    def spread(self) -> float:
        """RMS log residual: how far the runs sit from the calibrated figure."""
        logs = [math.log1p(r) for r in self.residuals if r > -1]
        return math.sqrt(sum(x * x for x in logs) / len(logs)) if logs else 0.0


def _spread_ok(runs: Sequence[Run]) -> bool:
    scaled = [r.scaled_s for r in runs if r.scaled_s > 0]
    return len(runs) >= FIXED_COST_MIN_RUNS and bool(scaled) and max(scaled) >= FIXED_COST_SPREAD * min(scaled)


def _factor_only(runs: Sequence[Run]) -> float | None:
    """x = 1/f minimizing Σ ((m − fixed − s·x) / m)²."""
    num = sum(r.scaled_s * (r.measured_s - r.fixed_s) / r.measured_s**2 for r in runs)
    den = sum((r.scaled_s / r.measured_s) ** 2 for r in runs)
    return num / den if den > 0 else None


def _with_fixed_cost(runs: Sequence[Run]) -> tuple[float, float] | None:
    """(x = 1/f, Δt₀) minimizing Σ ((m − fixed − s·x − Δ) / m)²; None when singular."""
    w = [1.0 / r.measured_s**2 for r in runs]
    y = [r.measured_s - r.fixed_s for r in runs]
    s = [r.scaled_s for r in runs]
    sw, ss, s1 = (
        sum(w),
        sum(wi * si * si for wi, si in zip(w, s, strict=True)),
        sum(wi * si for wi, si in zip(w, s, strict=True)),
    )
    sy, s1y = (
        sum(wi * yi for wi, yi in zip(w, y, strict=True)),
        sum(wi * si * yi for wi, si, yi in zip(w, s, y, strict=True)),
    )
    det = ss * sw - s1 * s1
    if det <= 1e-12 * ss * sw:
        return None
    return (s1y * sw - s1 * sy) / det, (ss * sy - s1 * s1y) / det


def _fixed_cost_at(runs: Sequence[Run], x: float) -> float:
    """Δt₀ minimizing Σ ((m − fixed − s·x − Δ) / m)² at a given x = 1/f."""
    w = [1.0 / r.measured_s**2 for r in runs]
    return sum(wi * (r.measured_s - r.fixed_s - r.scaled_s * x) for wi, r in zip(w, runs, strict=True)) / sum(w)


def fit_factor(runs: Sequence[Run], max_factor: float = FACTOR_MAX, *, allow_fixed_cost: bool = True) -> FactorFit:
    """The factor (and, with runs at different sizes, Δt₀) that best puts the fitted model on `runs`,
    `max_factor` keeps the
    calibrated η at or below the datasheet's 1. Raises ValueError without runs."""
    runs = [r for r in runs if r.measured_s > 0 and r.scaled_s >= 0 and r.fixed_s >= 0]
    if not runs:
        raise ValueError("no runs to calibrate on")
    extra, fixed = 0.0, False
    both = _with_fixed_cost(runs) if allow_fixed_cost and _spread_ok(runs) else None
    # Δt₀ is kept only where it leaves a positive factor and no run's step below its streaming time
    if both is not None and both[0] > 0 and all(r.fixed_s + both[1] >= 0 for r in runs):
        x, extra, fixed = both[0], both[1], True
    else:
        x = _factor_only(runs) or 0.0
    raw = 1.0 / x if x > 0 else FACTOR_MAX
    factor = min(max(raw, FACTOR_MIN), max_factor, FACTOR_MAX)
    if fixed and factor != raw:
        # the cap moved the factor off the joint optimum: Δt₀ is refitted at the capped factor (else it
        # keeps compensating for a factor the fit did not get)
        extra = _fixed_cost_at(runs, 1.0 / factor)
        fixed = all(r.fixed_s + extra >= 0 for r in runs)
        extra = extra if fixed else 0.0
    # measured ÷ predicted − 1 in tok/s is predicted ÷ measured − 1 in seconds per token
    residuals = tuple(r.predicted_s(factor, extra) / r.measured_s - 1.0 for r in runs)
    return FactorFit(factor=factor, raw_factor=raw, extra_s=extra, fixed_cost=fixed, residuals=residuals)


def calibrated_band(shipped: tuple[float, float], runs: int, spread: float) -> tuple[float, float]:
    """measured ÷ predicted (low, high) for a figure calibrated on `runs` runs whose residuals spread
    `spread` (RMS, log): each side's log width goes from the shipped band's at one run toward the
    larger of the spread and SPREAD_FLOOR as 1/√runs. Fewer runs, a wider band; never wider than shipped."""
    if runs <= 0:
        return shipped
    floor = max(spread, SPREAD_FLOOR)

    def side(width: float) -> float:
        if width <= floor:
            return width
        return floor + (width - floor) / math.sqrt(runs)

    lo, hi = shipped
    return math.exp(-side(-math.log(lo))), math.exp(side(math.log(hi)))
