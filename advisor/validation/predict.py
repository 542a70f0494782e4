"""Predict every case in one vectorized solve, exactly as the app does for one scenario."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.core.calibration import CALIBRATION, Calibration
from advisor.core.inputs import build_inputs
from advisor.core.roofline import Inputs, Outputs, solve
from advisor.validation.cases import Case
from advisor.validation.fit_params import case_attn_shares, case_layouts, case_token_factors


def stack_inputs(inputs: Sequence[Inputs]) -> Inputs:
    """Many scenarios' inputs as one Inputs of arrays (one element per scenario)."""
    return Inputs(**{f.name: np.array([getattr(i, f.name) for i in inputs], dtype=float) for f in fields(Inputs)})


def case_inputs(cases: Sequence[Case], calibration: Calibration | None = None) -> Inputs:
    """Each case's inputs as the app builds them, with the terms that follow the row's own build date."""
    return replace(
        stack_inputs([build_inputs(c.scenario, calibration) for c in cases]), attn_flops_share=case_attn_shares(cases)
    )


def measured_quantity(cases: Sequence[Case], out: Outputs) -> NDArray[np.float64]:
    """What each row measured, as predicted: decode per stream, aggregate decode, or prefill."""
    tg = np.array([c.test == "tg" for c in cases])
    agg = np.array([c.aggregate for c in cases])
    return np.where(tg, np.where(agg, out.aggregate, out.decode), out.prefill)


def era_factors(cases: Sequence[Case], calibration: Calibration | None = None) -> NDArray[np.float64]:
    """Each case's factor on t₀ for its build era (1.0 for a current or undated build; the app's
    inputs are a current build's, so the validation applies the measurement's own era here)."""
    cal = calibration or CALIBRATION
    return case_token_factors(cases, cal)


def predict(cases: Sequence[Case], calibration: Calibration | None = None, **overrides: Any) -> NDArray[np.float64]:
    if not cases:
        return np.zeros(0)
    inp = case_inputs(cases, calibration)
    inp = replace(
        inp,
        token_time=np.asarray(inp.token_time) * era_factors(cases, calibration),
        layout_eta=case_layouts(cases, calibration or CALIBRATION),  # each row's own build
    )
    if overrides:
        inp = replace(inp, **overrides)
    return measured_quantity(cases, solve(inp))
