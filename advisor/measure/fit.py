"""Fit the user's own η to their measurements, through the core's own solve.

For each measured row the scenario is rebuilt as llama-bench ran it (one stream, the test's context
depth, its -ngl) with an explicit efficiency, which the core reads as plain η × ceiling (every
fitted overhead term off). The row's *implied η* is the η at which the core predicts exactly the
measured speed: measured ÷ ceiling when the speed is proportional to η (everything in fast
memory), else found by bisection (offloaded layers read at the fixed host η do not scale).

The fitted η is the least-squares value over those implied η — their mean — so a fitted η means
exactly η × ceiling wherever it is used. The spread (standard deviation, lowest and highest implied
η, and each row's residual at the fitted η) says how well one η describes the machine: a depth sweep
whose residuals grow with depth shows that the KV cache costs more than its bytes.

Prefill η comes the same way from pp rows (compute η × peak FLOPS). Combined pp+tg rows are not
fitted. Pure: no Qt, no I/O."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from advisor.core.efficiency import Engine
from advisor.core.evaluate import evaluate
from advisor.core.hardware import HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.measured import MeasuredTerms
from advisor.core.measured_fit import MeasuredRun, calibrate, measured_run, uncalibrated, with_terms
from advisor.core.quant import KVPrecision
from advisor.core.result import Result
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario
from advisor.core.units import GB
from advisor.measure.llama_bench import BenchRow

ALL_LAYERS = 99  # llama-bench's "every layer" (-ngl 99; -1 in newer builds)
PARAMS_TOLERANCE = 0.10  # a row whose model differs by more than this is another model
SIZE_TOLERANCE = 0.10  # file size vs the scenario's weights: beyond this the bytes per token differ
ETA_MIN, ETA_MAX = 1e-4, 1.0

Which = Literal["decode", "prefill"]


class FitError(ValueError):
    """Nothing could be fitted; the message says why (no usable rows, another model, …)."""


@dataclass(frozen=True)
class RowFit:
    row: BenchRow
    ceiling: float  # the core's figure at η = 1 for this row (tok/s)
    implied_eta: float  # η at which the core predicts exactly the measured speed (may exceed 1)
    predicted: float  # at the fitted η
    shipped: float | None  # the shipped realistic model's figure (no user η), for comparison

    @property
    def residual(self) -> float:
        """measured ÷ predicted − 1 at the fitted η."""
        return self.row.tok_s / self.predicted - 1.0 if self.predicted > 0 else math.inf

    @property
    def shipped_error(self) -> float | None:
        return self.row.tok_s / self.shipped - 1.0 if self.shipped else None


@dataclass(frozen=True)
class EtaFit:
    which: Which
    eta: float  # fitted, within (0, 1]
    raw_eta: float  # the unclipped mean of the implied η
    rows: tuple[RowFit, ...]

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def std(self) -> float:
        etas = [r.implied_eta for r in self.rows]
        return statistics.stdev(etas) if len(etas) > 1 else 0.0

    @property
    def low(self) -> float:
        return min(r.implied_eta for r in self.rows)

    @property
    def high(self) -> float:
        return max(r.implied_eta for r in self.rows)

    @property
    def clipped(self) -> bool:
        return self.raw_eta > ETA_MAX

    @property
    def median_abs_residual(self) -> float:
        return statistics.median(abs(r.residual) for r in self.rows)

    @property
    def max_abs_residual(self) -> float:
        return max(abs(r.residual) for r in self.rows)

    @property
    def shipped_median_abs_error(self) -> float | None:
        errs = [abs(e) for r in self.rows if (e := r.shipped_error) is not None]
        return statistics.median(errs) if errs else None

    def summary(self) -> str:
        name = "η decode" if self.which == "decode" else "η prefill"
        if self.n == 1:
            spread = "one point, so no spread"
        else:
            spread = (
                f"± {self.std:.3f} (implied {self.low:.2f}–{self.high:.2f} over {self.n} rows; "
                f"residuals median {100 * self.median_abs_residual:.1f} %, "
                f"max {100 * self.max_abs_residual:.1f} %)"
            )
        text = f"{name} {self.eta:.3f} {spread}"
        if self.clipped:
            text += (
                ". These runs are faster than the datasheet figures allow, so η is held at 1: the table's "
                "machine or model may differ from the scenario's, or the datasheet figure is too low"
            )
        return text


@dataclass(frozen=True)
class FitResult:
    decode: EtaFit | None
    prefill: EtaFit | None
    skipped: tuple[tuple[BenchRow, str], ...] = ()
    notes: tuple[str, ...] = ()
    # what is kept: factors on top of the fitted model (advisor.core.measured), not the plain η
    terms: MeasuredTerms | None = None

    def apply(self, scenario: Scenario) -> Scenario:
        """The scenario on the fitted model with the calibration as its hardware's."""
        return with_terms(scenario, self.terms)

    @property
    def used_rows(self) -> tuple[BenchRow, ...]:
        return tuple(r.row for f in (self.decode, self.prefill) if f is not None for r in f.rows)

    def points(self, model_id: str | None = None, quant_id: str | None = None) -> list[dict[str, Any]]:
        """The fitted rows as the hardware entry stores them (schema.MeasuredPoint fields)."""
        out = []
        for row in self.used_rows:
            out.append(
                dict(
                    test=row.test,
                    prompt=row.prompt,
                    gen=row.gen,
                    depth=row.depth,
                    tok_s=row.tok_s,
                    model_id=model_id,
                    quant_id=quant_id,
                )
            )
        return out


# --- one row as llama-bench ran it -------------------------------------------------------------


def row_scenario(base: Scenario, row: BenchRow) -> Scenario:
    """The scenario of one measured row. llama-bench rows: one stream, llama.cpp, the test's depth and
    -ngl (tgN averages over N tokens generated after the depth, so the cache holds depth + N/2 on
    average; ppN prefills N tokens after the depth). A typed figure keeps the scenario's workload."""
    data = base.model_dump()
    w = data["workload"]
    w["efficiency"] = None
    w["compute_efficiency"] = None
    if row.source == "typed":
        return Scenario.model_validate(data)
    if row.test == "tg":
        w.update(context=row.depth + row.gen // 2, output_tokens=row.gen - row.gen // 2, prompt_tokens=0)
    else:
        w.update(context=row.depth + row.prompt, output_tokens=0, prompt_tokens=row.prompt)
    w.update(streams=1, engine=Engine.LLAMA_CPP, prefill_rate=None)
    if row.flash_attn is not None:
        w["flash_attention"] = row.flash_attn
    w["speculative"]["enabled"] = False
    if row.kv_type:
        try:
            w["kv_cache"] = KVPrecision(row.kv_type)
        except ValueError:
            pass
    layers = base.model.layers
    if row.ngl is not None:
        if row.ngl < 0 or row.ngl >= ALL_LAYERS or (layers is not None and row.ngl >= layers):
            w["gpu_layers"] = min(layers or 1000, 1000)  # every layer on the GPU: as measured, no spill
        else:
            w["gpu_layers"] = row.ngl
    if row.n_cpu_moe:
        w["cpu_moe_layers"] = min(row.n_cpu_moe, layers or 1000)
    return Scenario.model_validate(data)


def _with_eta(s: Scenario, which: Which, eta: float | None) -> Scenario:
    data = s.model_dump()
    data["workload"]["efficiency" if which == "decode" else "compute_efficiency"] = eta
    return Scenario.model_validate(data)


def predict(s: Scenario, which: Which) -> float | None:
    """Per-stream decode or prefill tok/s from the core's solve; None when it does not run."""
    out = solve(build_inputs(s))
    if not bool(float(out.runs)):
        return None
    value = float(out.decode if which == "decode" else out.prefill)
    return value if value > 0 and math.isfinite(value) else None


def implied_eta(s: Scenario, which: Which, measured: float) -> tuple[float, float] | None:
    """(figure at η = 1, the η at which the core predicts `measured`); None when it does not run."""
    at_one = predict(_with_eta(s, which, ETA_MAX), which)
    if at_one is None:
        return None
    at_half = predict(_with_eta(s, which, 0.5), which)
    if at_half is not None and abs(at_half - 0.5 * at_one) <= 1e-9 * at_one:
        return at_one, measured / at_one  # proportional to η: measured ÷ ceiling
    if measured >= at_one:
        return at_one, measured / at_one
    lo, hi = math.log(ETA_MIN), 0.0
    for _ in range(60):  # the figure grows with η; bisect on log η
        mid = (lo + hi) / 2
        value = predict(_with_eta(s, which, math.exp(mid)), which) or 0.0
        lo, hi = (mid, hi) if value < measured else (lo, mid)
    return at_one, math.exp((lo + hi) / 2)


# --- fitting -----------------------------------------------------------------------------------


def _model_check(base: Scenario, row: BenchRow) -> str | None:
    """Why a row is not for this scenario (another model, a CPU build on a GPU, a combined test)."""
    if row.test == "pg":
        return "pp+tg mixes prefill and decode: not fitted"
    if (why := model_mismatch(base, row)) is not None:
        return why
    if row.backend.strip().upper() == "CPU" and base.hardware.kind is not HardwareClass.CPU:
        return "CPU-only build on GPU hardware: measures the CPU, not this device"
    return None


def model_mismatch(base: Scenario, row: BenchRow) -> str | None:
    """Why a llama-bench row ran another model than the scenario's: its parameter count or its file size
    (the bytes each token reads) more than 10 % off; None when it is the scenario's model and quant."""
    if row.source == "typed":
        return None
    target = base.model.total_params_b * 1e9
    if row.params and target > 0 and abs(row.params / target - 1) > PARAMS_TOLERANCE:
        return (
            f"ran a {row.params / 1e9:.2f} B model ({row.model or 'unnamed'}); the scenario's model has "
            f"{base.model.total_params_b:.2f} B"
        )
    weights = evaluate(base, explain=False).weights_gb * GB
    if row.size_bytes and weights > 0 and abs(row.size_bytes / weights - 1) > SIZE_TOLERANCE:
        return (
            f"ran a {row.size_bytes / 2**30:.2f} GiB file ({row.model or 'unnamed'}); the scenario's "
            f"{base.model.name} at {base.quant.name} is {weights / 2**30:.2f} GiB"
        )
    return None


def _fit(base: Scenario, rows: Sequence[BenchRow], which: Which, skipped: list[tuple[BenchRow, str]]) -> EtaFit | None:
    fits: list[tuple[BenchRow, Scenario, float, float]] = []
    for row in rows:
        try:
            s = row_scenario(base, row)
        except ValidationError as err:
            skipped.append((row, f"scenario: {err.errors()[0]['msg']}"))
            continue
        got = implied_eta(s, which, row.tok_s)
        if got is None:
            skipped.append((row, "does not run in memory as the scenario is set up"))
            continue
        fits.append((row, s, *got))
    if not fits:
        return None
    raw = statistics.fmean(eta for *_, eta in fits)  # least squares over the implied η
    eta = min(max(raw, ETA_MIN), ETA_MAX)
    out = []
    for row, s, ceiling, implied in fits:
        predicted = predict(_with_eta(s, which, eta), which) or 0.0
        out.append(
            RowFit(row=row, ceiling=ceiling, implied_eta=implied, predicted=predicted, shipped=predict(s, which))
        )
    return EtaFit(which=which, eta=eta, raw_eta=raw, rows=tuple(out))


def fit_eta(base: Scenario, rows: Sequence[BenchRow]) -> FitResult:
    """Fit decode η (tg rows and typed figures) and prefill η (pp rows) for `base`'s hardware, model
    and quant. Raises FitError when no row can be used, saying why."""
    if not rows:
        raise FitError("no measurements to fit")
    base = uncalibrated(base)  # a re-measured entry starts from the fitted model again
    skipped: list[tuple[BenchRow, str]] = []
    usable = []
    for row in rows:
        why = _model_check(base, row)
        if why is None:
            usable.append(row)
        else:
            skipped.append((row, why))
    decode = _fit(base, [r for r in usable if r.test == "tg"], "decode", skipped)
    prefill = _fit(base, [r for r in usable if r.test == "pp"], "prefill", skipped)
    if decode is None and prefill is None:
        reasons = sorted({why for _, why in skipped})
        raise FitError("no row could be fitted: " + ("; ".join(reasons[:3]) if reasons else "no pp or tg rows"))
    terms = calibrate(base, _runs(base, decode), _runs(base, prefill))
    return FitResult(
        decode=decode, prefill=prefill, skipped=tuple(skipped), notes=tuple(_notes(base, usable)), terms=terms
    )


def _runs(base: Scenario, fit: EtaFit | None) -> list[MeasuredRun]:
    """The fitted rows as the fitted model splits their time (advisor.core.measured_fit)."""
    if fit is None:
        return []
    out = []
    for r in fit.rows:
        got = measured_run(row_scenario(base, r.row), fit.which, r.row.tok_s)
        if got is not None:
            out.append(got)
    return out


def _notes(base: Scenario, rows: Sequence[BenchRow]) -> list[str]:
    notes = []
    weights = evaluate(base, explain=False).weights_gb * GB  # the solver's stored bytes (an MoE file's two bit widths)
    sizes = {r.size_bytes for r in rows if r.size_bytes}
    for size in sorted(sizes):
        if weights > 0 and abs(size / weights - 1) > SIZE_TOLERANCE:
            notes.append(
                f"llama-bench's model file is {size / 1e9:.2f} GB but the scenario's weights are "
                f"{weights / 1e9:.2f} GB ({base.quant.bits_per_weight:g} bits per weight): check the quant, "
                "or the fitted η absorbs the difference"
            )
    long_rows = [r for r in rows if r.source == "llama-bench" and r.depth + r.prompt + r.gen > 2048]
    off = sum(1 for r in long_rows if r.flash_attn is False)
    unknown = sum(1 for r in long_rows if r.flash_attn is None)
    if off:
        notes.append(
            f"{off} of these rows ran without flash attention at more than 2k tokens of context: the "
            "advisor assumes it on, so the η fitted here reads low for long contexts. Run llama-bench "
            "with -fa 1 to measure what the estimates assume."
        )
    if unknown:
        notes.append(
            f"{unknown} of these rows at more than 2k tokens of context do not say whether flash attention "
            "was on (llama-bench prints no fa column at its default, which was off until mid-2026 and is "
            "auto since): if your build is older, run it again with -fa 1."
        )
    return notes


@dataclass(frozen=True)
class Change:
    """What the fitted η does to the current scenario."""

    before: Result
    after: Result
    notes: tuple[str, ...] = field(default=())

    @staticmethod
    def _pct(a: float | None, b: float | None) -> float | None:
        return (b / a - 1.0) if a and b else None

    @property
    def decode_change(self) -> float | None:
        return self._pct(self.before.decode_tok_s, self.after.decode_tok_s)

    @property
    def prefill_change(self) -> float | None:
        return self._pct(self.before.prefill_tok_s, self.after.prefill_tok_s)

    def summary(self) -> str:
        def fmt(label: str, a: float | None, b: float | None, pct: float | None) -> str:
            if a is None or b is None:
                return f"{label}: does not run"
            change = f" ({100 * pct:+.1f} %)" if pct is not None else ""
            return f"{label} {a:.1f} → {b:.1f} tok/s{change}"

        return "; ".join(
            (
                fmt("decode", self.before.decode_tok_s, self.after.decode_tok_s, self.decode_change),
                fmt("prefill", self.before.prefill_tok_s, self.after.prefill_tok_s, self.prefill_change),
            )
        )


def prediction_change(scenario: Scenario, fit: FitResult) -> Change:
    """The current scenario's figures before (as it is now) and with the fitted η."""
    return Change(before=evaluate(scenario), after=evaluate(fit.apply(scenario)))
