"""Fit the user's own calibration (advisor.core.measured) to measured runs of scenarios.

    run = measured_run(scenario, "decode", 29.3)     # the fitted model's split of that run's time
    terms = calibrate(decode_runs, prefill_runs)      # MeasuredTerms on top of the fitted model

Every scenario is predicted without any calibration of its own (a re-measured entry starts from the
fitted model again, never from its last calibration). Pure: no Qt, no I/O."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from advisor.core.calibration import Calibration
from advisor.core.inputs import build_inputs, compute_eta, decode_eta
from advisor.core.measured import FACTOR_MAX, FactorFit, MeasuredTerms, Run, fit_factor, model_key
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario

Which = Literal["decode", "prefill"]


def uncalibrated(s: Scenario) -> Scenario:
    """The scenario on the fitted model alone: no calibration, no explicit η."""
    data = s.model_dump()
    data["hardware"]["measured"] = None
    data["workload"]["efficiency"] = None
    data["workload"]["compute_efficiency"] = None
    return Scenario.model_validate(data)


@dataclass(frozen=True)
class MeasuredRun:
    run: Run
    shipped: float  # the fitted model's tok/s
    max_factor: float  # the factor at which η reaches 1
    tokens: int = 1  # tokens the run's time is for (the prompt of a prefill run)

    def predicted(self, factor: float, extra_s: float = 0.0) -> float:
        """tok/s at the factor and Δt₀."""
        t = self.run.predicted_s(factor, extra_s)
        return self.tokens / t if t > 0 else 0.0


def measured_run(s: Scenario, which: Which, tok_s: float, calibration: Calibration | None = None) -> MeasuredRun | None:
    """The fitted model's split of one run: decode per token (streaming weights and KV scale with η),
    prefill per prompt (the compute scales with η_c, the host link does not). None when it does not run."""
    s = uncalibrated(s)
    inp = build_inputs(s, calibration)
    out = solve(inp)
    if not bool(float(out.runs)) or tok_s <= 0:
        return None
    if which == "decode":
        shipped = float(out.decode)
        step = float(out.t_step)
        # streaming scales with η unless the step is the compute side's (on CPU cores the two add)
        overlapped = bool(float(out.compute_bound)) and float(inp.on_cores) == 0
        scaled = 0.0 if overlapped else float(out.t_weights) + float(out.t_kv)
        run = Run(measured_s=1.0 / tok_s, scaled_s=scaled, fixed_s=max(step - scaled, 0.0))
        eta = decode_eta(s, calibration)
    else:
        shipped = float(out.prefill)
        prompt = max(s.workload.prompt_tokens, 1)
        total = prompt / shipped if shipped > 0 else math.inf
        link = float(out.t_prefill_link)
        run = Run(measured_s=prompt / tok_s, scaled_s=max(total - link, 0.0), fixed_s=link)
        eta = compute_eta(s, calibration)
    if not (shipped > 0 and math.isfinite(shipped) and math.isfinite(run.scaled_s)):
        return None
    tokens = 1 if which == "decode" else max(s.workload.prompt_tokens, 1)
    return MeasuredRun(run=run, shipped=shipped, max_factor=1.0 / eta if eta > 0 else FACTOR_MAX, tokens=tokens)


def fit_runs(runs: Sequence[MeasuredRun], *, allow_fixed_cost: bool) -> FactorFit:
    """The factor (and Δt₀) over `runs`, capped where the most constrained run's η reaches 1."""
    return fit_factor([r.run for r in runs], min(r.max_factor for r in runs), allow_fixed_cost=allow_fixed_cost)


def calibrate(s: Scenario, decode: Sequence[MeasuredRun], prefill: Sequence[MeasuredRun]) -> MeasuredTerms:
    """MeasuredTerms from decode and prefill runs of the scenario's model (either list may be empty:
    its factor stays 1)."""
    d = fit_runs(decode, allow_fixed_cost=True) if decode else None
    p = fit_runs(prefill, allow_fixed_cost=False) if prefill else None
    return MeasuredTerms(
        decode_factor=d.factor if d else 1.0,
        token_ms=d.extra_s * 1000.0 if d else 0.0,
        prefill_factor=p.factor if p else 1.0,
        decode_runs=len(decode),
        prefill_runs=len(prefill),
        decode_spread=min(d.spread, 5.0) if d else 0.0,
        prefill_spread=min(p.spread, 5.0) if p else 0.0,
        model=model_key(s.model.name, s.quant.name)[:400],
    )


def with_terms(s: Scenario, terms: MeasuredTerms | None) -> Scenario:
    """The scenario on the fitted model with `terms` as its hardware's calibration."""
    data = uncalibrated(s).model_dump()
    data["hardware"]["measured"] = terms.model_dump() if terms is not None else None
    return Scenario.model_validate(data)
