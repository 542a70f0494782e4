"""Fit the realistic-speed terms (advisor.core.calibration) to measurements, with numpy only.

The fit runs the production roofline: all cases are stacked into one Inputs, the candidate terms
are written into its realistic-speed fields (the same `calibrated_fields` the app uses), and one
`solve` predicts every row. Levenberg–Marquardt minimises a soft-L1 loss on log(predicted ÷
measured), so a few rows from old engine builds cannot drag the fit; parameters are kept in range
by transforms (a logistic for shares, an exponential for positive terms) plus a weak pull to
their physical defaults where the data say little.

fit_params.py says which terms the data can free and how each writes into a Calibration;
least_squares.py holds the optimizer and the robust loss."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.core.calibration import FLAT, Calibration
from advisor.core.inputs import calibrated_fields
from advisor.core.roofline import Inputs, solve
from advisor.core.terms import BackendTerms, ClassTerms, DecodeTerms, PrefillTerms
from advisor.core.units import GB
from advisor.validation.cases import Case
from advisor.validation.fit_apply import apply_params
from advisor.validation.fit_params import (
    MIN_ROWS,
    Group,
    Param,
    backend_of,
    case_layouts,
    case_token_factors,
    catalog_chip,
    decode_params,
    era_order,
    generation_of,
    group_of,
    prefill_params,
    runs_unfused,
)
from advisor.validation.least_squares import levenberg_marquardt, soft_l1
from advisor.validation.predict import case_inputs, measured_quantity
from advisor.validation.sources import source_of

PRIOR_WEIGHT = 0.02  # pull of each parameter toward its default, in transformed units
# Each row's weight is its source's row count to this power (then scaled to a mean of 1): one source's
# hundred runs of the same build and method must not outvote ten sources of a few runs each, so a term
# the data sets is set by many sources, not by the largest (0: every row alike; 1: every source alike).
SOURCE_WEIGHT_POWER = -0.5


def source_weights(cases: Sequence[Case]) -> NDArray[np.float64]:
    """Per row, the weight of its residual in the fit (see SOURCE_WEIGHT_POWER)."""
    srcs = [source_of(c.row.source_url) for c in cases]
    counts = Counter(srcs)
    w = np.array([counts[s] ** SOURCE_WEIGHT_POWER for s in srcs], dtype=float)
    return w / w.mean() if w.size else w


BAND_QUANTILES = (10.0, 90.0)
BAND_MIN_ROWS = 30


@dataclass(frozen=True)
class FitResult:
    calibration: Calibration
    values: dict[str, float]  # fitted parameter values by name
    decode_rows: int
    prefill_rows: int
    cost: float


def _field_arrays(cases: Sequence[Case], cal: Calibration) -> dict[str, Any]:
    """calibrated_fields with one value per case (what build_inputs would give each scenario)."""
    ts = [cal.get(*group_of(c)) for c in cases]

    def a(f: Callable[[ClassTerms], float]) -> NDArray[np.float64]:
        return np.array([f(t) for t in ts], dtype=float)

    scaling = np.array([c.scenario.hardware.scaling_efficiency for c in cases], dtype=float)
    speedup = np.array([c.scenario.hardware.speedup for c in cases], dtype=float)
    bt = [cal.backend(c.engine, b) if (b := backend_of(c)) is not None else BackendTerms() for c in cases]
    era = case_token_factors(cases, cal)
    machine = np.array([cal.hardware_factor(c.scenario.hardware, backend_of(c)) for c in cases], dtype=float)
    vulkan = np.array([cal.vulkan_prefill_factor(c.scenario.hardware, backend_of(c)) for c in cases], dtype=float)
    fields = calibrated_fields(
        a(lambda t: t.decode.eta) * machine,
        a(lambda t: t.prefill.eta),
        scaling,
        speedup,
        token_ms=np.array([cal.token_ms(c.hw_class, c.engine, backend_of(c)) for c in cases], dtype=float) * era,
        kv_factor=a(lambda t: t.decode.kv_factor),
        dequant_flop=a(lambda t: t.decode.dequant_flop),
        stream_cost=a(lambda t: t.decode.stream_cost),
        quant_factor=a(lambda t: t.prefill.quant_factor),
        attn_factor=a(lambda t: t.prefill.attn_factor),
        moe_factor=a(lambda t: t.prefill.moe_factor),
        int8_factor=a(lambda t: t.prefill.int8_factor),
        backend_decode=np.array([b.decode for b in bt], dtype=float),
        backend_prefill=np.array([b.prefill for b in bt], dtype=float) * vulkan,
        moe_token=np.array([cal.moe_factor(c.engine, True) for c in cases], dtype=float),
    )
    fields["host_eta"] = np.full(len(cases), cal.host_eta)
    fields["expert_spread"] = np.full(len(cases), cal.expert_spread)
    fields["unfused_attn_eta"] = np.array([cal.unfused_attn_eta if runs_unfused(c) else 0.0 for c in cases])
    fields["cpu_attn_rate"] = np.full(len(cases), cal.cpu_attn_gbps * GB)
    fields["fused_attn_eta"] = np.full(len(cases), cal.fused_attn_eta)
    fields["layout_eta"] = case_layouts(cases, cal)
    fields["f32_matmul_eta"] = np.full(len(cases), cal.sycl_f32_eta)
    return fields


def predict_with(cases: Sequence[Case], base_inputs: Inputs, cal: Calibration) -> NDArray[np.float64]:
    return measured_quantity(cases, solve(replace(base_inputs, **_field_arrays(cases, cal))))


# --- the fit ----------------------------------------------------------------------------------------


def _fit_part(
    cases: Sequence[Case],
    measured: NDArray[np.float64],
    base_inputs: Inputs,
    base: Calibration,
    params: Sequence[Param],
) -> tuple[Calibration, float]:
    if not params or not cases:
        return base, 0.0
    log_meas = np.log(measured)
    weight = np.sqrt(source_weights(cases))
    x0 = np.array([p.start() for p in params])
    rows_prior = np.array([p.prior_rows for p in params])
    pseudo = rows_prior > 0

    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        pred = predict_with(cases, base_inputs, apply_params(base, params, x))
        r = np.log(np.maximum(pred, 1e-12)) - log_meas
        # a weak pull toward the defaults; parameters with prior_rows are pulled like that many rows
        # measured at the default (for a factor, x is its log, the same units as a row's residual)
        pull = np.where(pseudo, np.sqrt(rows_prior) * soft_l1(x - x0), PRIOR_WEIGHT * (x - x0))
        return np.concatenate([weight * soft_l1(r), pull])

    x, cost = levenberg_marquardt(residuals, x0)
    return apply_params(base, params, x), cost


def ratio_band(ratios: NDArray[np.float64]) -> tuple[float, float]:
    """(low, high) multiples of a prediction: the BAND_QUANTILES of measured ÷ predicted, widened to hold 1."""
    lo, hi = np.percentile(ratios, BAND_QUANTILES)
    return min(float(lo), 1.0), max(float(hi), 1.0)


def bands(
    cases: Sequence[Case],
    measured: NDArray[np.float64],
    predicted: NDArray[np.float64],
    cal: Calibration,
    min_rows: int = MIN_ROWS,
) -> Calibration:
    """Each fitted group's band: 10th/90th percentile of measured ÷ predicted decode over its rows
    (the class's rows when the group alone has fewer than BAND_MIN_ROWS: a handful of rows from one
    or two sources would give a falsely narrow band)."""
    ratio = measured / np.maximum(predicted, 1e-12)
    tg = np.array([c.test == "tg" for c in cases])
    terms = dict(cal.terms)
    for g, t in cal.terms.items():
        if not t.fitted:
            continue
        m = tg & np.isfinite(ratio) & np.array([group_of(c) == g for c in cases])
        if m.sum() < BAND_MIN_ROWS:
            m = tg & np.isfinite(ratio) & np.array([c.hw_class is g[0] for c in cases])
        if m.sum() < min_rows:
            continue
        lo, hi = ratio_band(ratio[m])
        terms[g] = replace(t, decode=replace(t.decode, band=(round(lo, 3), round(hi, 3))))
    return replace(cal, terms=terms)


def fit(
    cases: Sequence[Case],
    measured: NDArray[np.float64] | None = None,
    base: Calibration = FLAT,
    train: NDArray[np.bool_] | None = None,
    min_rows: int = MIN_ROWS,
) -> FitResult:
    """Fit on the `train` rows (default: the rows not held out); bands come from all rows given."""
    cases = list(cases)
    meas = np.array([c.measured for c in cases], float) if measured is None else np.asarray(measured, float)
    use = np.array([not c.held_out for c in cases]) if train is None else np.asarray(train, bool)
    tr = [c for c, u in zip(cases, use, strict=True) if u]
    tr_meas = meas[use]
    inputs = case_inputs(tr, base) if tr else None

    cal = base
    pp_idx = [i for i, c in enumerate(tr) if c.test == "pp"]
    tg_idx = [i for i, c in enumerate(tr) if c.test == "tg"]
    cost = 0.0
    if pp_idx and inputs is not None:
        sub = [tr[i] for i in pp_idx]
        cal, c1 = _fit_part(sub, tr_meas[pp_idx], _take(inputs, pp_idx), cal, prefill_params(tr, base, min_rows))
        cost += c1
    if tg_idx and inputs is not None:
        sub = [tr[i] for i in tg_idx]
        cal, c2 = _fit_part(sub, tr_meas[tg_idx], _take(inputs, tg_idx), cal, decode_params(tr, base, min_rows))
        cost += c2
    if pp_idx and tg_idx and inputs is not None and np.any(np.asarray(inputs.dense_copy_bytes)[pp_idx] > 0):
        # a dense copy streams at decode's realized bandwidth, which the decode part has just fitted: the
        # prefill part again, from where it stood, at that bandwidth
        sub = [tr[i] for i in pp_idx]
        cal, c1 = _fit_part(sub, tr_meas[pp_idx], _take(inputs, pp_idx), cal, prefill_params(tr, cal, min_rows))
        cost += c1
    cal = _tidy(cal)
    counts = {g: sum(1 for c in tr if c.test == "tg" and group_of(c) == g) for g in cal.terms}
    cal = replace(cal, terms={g: (replace(t, rows=counts[g]) if t.fitted else t) for g, t in cal.terms.items()})
    cal = replace(
        cal,
        backends={
            b: replace(t, rows=sum(1 for c in tr if backend_of(c) is b)) for b, t in sorted(cal.backends.items())
        },
        era_token=dict(sorted(cal.era_token.items(), key=lambda kv: era_order(kv[0]))),
        machines={
            k: replace(t, rows=sum(1 for c in tr if c.test == "tg" and catalog_chip(c) == k))
            for k, t in sorted(cal.machines.items())
        },
        generations={
            g: replace(t, rows=sum(1 for c in tr if c.test == "tg" and g in generation_of(c)))
            for g, t in sorted(cal.generations.items())
        },
    )
    everything = case_inputs(cases, base)
    cal = bands(cases, meas, predict_with(cases, everything, cal), cal, min_rows)
    values = _values(cal, base)
    return FitResult(
        calibration=replace(cal, name="fitted"),
        values=values,
        decode_rows=len(tg_idx),
        prefill_rows=len(pp_idx),
        cost=cost,
    )


def _take(inp: Inputs, idx: Sequence[int]) -> Inputs:
    ix = np.asarray(idx, dtype=int)
    return Inputs(**{k: np.asarray(v)[ix] for k, v in inp.__dict__.items()})


def _tidy(cal: Calibration) -> Calibration:
    """Round fitted values to what the data can tell (3 significant figures)."""

    def r(v: float | None) -> float | None:
        return None if v is None else float(f"{v:.3g}")

    terms: dict[Group, ClassTerms] = {}
    for g, t in cal.terms.items():
        if not t.fitted:
            terms[g] = t
            continue
        d, p = t.decode, t.prefill
        terms[g] = replace(
            t,
            decode=DecodeTerms(
                eta=r(d.eta) or d.eta,
                token_ms=r(d.token_ms) or 0.0,
                kv_factor=r(d.kv_factor) or 1.0,
                dequant_flop=r(d.dequant_flop) or 0.0,
                stream_cost=r(d.stream_cost) or 0.0,
                band=d.band,
            ),
            prefill=PrefillTerms(
                eta=r(p.eta) or p.eta,
                quant_factor=r(p.quant_factor) or 1.0,
                attn_factor=r(p.attn_factor) or 1.0,
                moe_factor=r(p.moe_factor) or 1.0,
                int8_factor=r(p.int8_factor) or 0.0,
            ),
        )
    backends = {b: replace(t, decode=r(t.decode) or 1.0, prefill=r(t.prefill) or 1.0) for b, t in cal.backends.items()}
    return replace(
        cal,
        terms=terms,
        host_eta=float(f"{cal.host_eta:.3g}"),
        expert_spread=float(f"{cal.expert_spread:.3g}"),
        backends=backends,
        unfused_attn_eta=float(f"{cal.unfused_attn_eta:.3g}"),
        fused_attn_eta=float(f"{cal.fused_attn_eta:.3g}"),
        cpu_attn_gbps=float(f"{cal.cpu_attn_gbps:.3g}"),
        era_token={e: float(f"{v:.3g}") for e, v in cal.era_token.items()},
        moe_token=float(f"{cal.moe_token:.3g}"),
        sycl_plain_eta=float(f"{cal.sycl_plain_eta:.3g}"),
        sycl_f32_eta=float(f"{cal.sycl_f32_eta:.3g}"),
        machines={k: replace(t, decode=float(f"{t.decode:.3g}")) for k, t in cal.machines.items()},
        generations={k: replace(t, decode=float(f"{t.decode:.3g}")) for k, t in cal.generations.items()},
        vulkan_prefill={k: float(f"{v:.3g}") for k, v in cal.vulkan_prefill.items()},
    )


def _values(cal: Calibration, base: Calibration) -> dict[str, float]:
    out: dict[str, float] = {
        "host_eta": cal.host_eta,
        "expert_spread": cal.expert_spread,
        "unfused_attn_eta": cal.unfused_attn_eta,
        "fused_attn_eta": cal.fused_attn_eta,
        "cpu_attn_gbps": cal.cpu_attn_gbps,
        "moe_token": cal.moe_token,
        "sycl_plain_eta": cal.sycl_plain_eta,
        "sycl_f32_eta": cal.sycl_f32_eta,
    }
    for (era, backend), v in cal.era_token.items():
        out[f"era_token[{era.value}, {backend.value}]"] = v
    for m, mt in cal.machines.items():
        out[f"machine.decode[{m}]"] = mt.decode
    for g, gt in cal.generations.items():
        out[f"generation.decode[{g}]"] = gt.decode
    for vendor, factor in cal.vulkan_prefill.items():
        out[f"vulkan_prefill[{vendor}]"] = factor
    for b, bt in cal.backends.items():
        out[f"backend.decode[{b.value}]"] = bt.decode
        out[f"backend.prefill[{b.value}]"] = bt.prefill
    for (k, e), t in cal.terms.items():
        if t.fitted:
            for part, obj in (("decode", t.decode), ("prefill", t.prefill)):
                for attr, v in obj.__dict__.items():
                    if isinstance(v, float):
                        out[f"{part}.{attr}[{k.value}/{e.value}]"] = v
    return out
