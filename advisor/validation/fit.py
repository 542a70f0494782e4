"""Fit the realistic-speed terms (advisor.core.calibration) to measurements, with numpy only.

The fit runs the production roofline: all cases are stacked into one Inputs, the candidate terms
are written into its realistic-speed fields (the same `calibrated_fields` the app uses), and one
`solve` predicts every row. Levenberg–Marquardt minimises a soft-L1 loss on log(predicted ÷
measured), so a few rows from old engine builds cannot drag the fit; parameters are kept in range
by transforms (a logistic for shares, an exponential for positive terms) plus a weak pull to
their physical defaults where the data say little.

Which terms are free depends on the data: a class × engine group needs `MIN_ROWS` rows of a test
to get its own η (and t₀); class-wide terms (κ, d, η_batch, q, α) need rows that show them
(contexts that vary, quantized and 16-bit weights, batches); MoE and host terms are shared by all
groups. Everything else keeps the base calibration's value (the flat defaults).

Backends (llama.cpp's CUDA, ROCm, Vulkan, Metal, ...) get a factor on η and on η_c wherever training
rows run them, CUDA excepted (the reference, 1.0). Each factor is pulled toward 1 as if
BACKEND_PRIOR_ROWS more rows had measured exactly 1.0 (under the same robust loss): a backend seen
in a handful of rows moves only part of the way its rows point, one seen in dozens nearly all of it.

Build eras (terms.BuildEra, from a row's `build_date`): llama.cpp rows from builds of an era other
than the current one get a factor on t₀ (the fixed time per token: kernel launches and
synchronization, which older builds paid more of), with the weak pull toward 1 that t₀ itself has
(ERA_PRIOR_ROWS). t₀ is then the current era's, the one the app uses; rows whose source does not
date the build count as current.

Generations: each GPU architecture (calibration.generation_key: Apple M1…M4, NVIDIA Ampere/Ada/Blackwell,
AMD RDNA 2/3/4, ...) with training decode rows gets a factor on η (GENERATION_PRIOR_ROWS pseudo-rows at
1.0 behind it), what the runs say about that architecture beyond its class and backend. A chip without runs
of its own then borrows it; cross-validation by configuration tests exactly that.

Machines: each catalog machine with training decode rows gets a factor on η (MACHINE_PRIOR_ROWS
pseudo-rows at 1.0 behind it), what published runs say about that one chip's memory system beyond its
class and backend. Held-out configurations on the same machine (another model, another quant) then
test whether it carries over, which is what a user asking about a new model on a machine with
published runs gets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import FLAT, Calibration, generation_key
from advisor.core.calibration import machine_key as chip_key
from advisor.core.efficiency import Engine
from advisor.core.hardware import HardwareClass
from advisor.core.inputs import backend_in_use, calibrated_fields
from advisor.core.roofline import Inputs, solve
from advisor.core.terms import (
    CURRENT_ERA,
    Backend,
    BackendTerms,
    BuildEra,
    ClassTerms,
    DecodeTerms,
    MachineTerms,
    PrefillTerms,
)
from advisor.validation.cases import Case
from advisor.validation.predict import case_inputs, measured_quantity

MIN_ROWS = 8  # rows a group needs before it gets terms of its own
LOSS_SCALE = 0.15  # soft-L1 knee in log units (~16 %): errors beyond it count linearly
PRIOR_WEIGHT = 0.02  # pull of each parameter toward its default, in transformed units
BAND_QUANTILES = (10.0, 90.0)
BAND_MIN_ROWS = 30
BACKEND_PRIOR_ROWS = 4.0  # pseudo-rows at factor 1.0 behind every backend factor (shrinkage)
# Build eras' factors on t₀ get only the weak pull every parameter gets (PRIOR_WEIGHT), as t₀ itself
# does: t₀ is 10-30 % of a step, so a factor on it moves a row's prediction several times less than a
# backend's factor on η does, and BACKEND_PRIOR_ROWS pseudo-rows on it held it at 1.01-1.03 (the
# unshrunk fit: 1.93 and 1.43; docs/accuracy.md).
ERA_PRIOR_ROWS = 0.0
# pseudo-rows at factor 1.0 behind every chip's own factor, the backend factors' pull. Cross-validated on
# the 735-row file (docs/accuracy.md): 2, 4 and 8 give all decode 7.05, 7.09 and 7.41 % median, depth 0
# 5.96 / 23.90, 6.38 / 24.22 and 6.62 / 24.57; 4 keeps most of 2's gain while one run moves a chip only
# a fifth of the way it points.
MACHINE_PRIOR_ROWS = 4.0
# pseudo-rows at 1.0 behind every architecture's factor. Cross-validated on the 735-row file
# (docs/accuracy.md): 2, 4 and 8 give all decode 6.65 / 31.19, 6.57 / 31.25 and 6.86 / 31.21 % (median
# / p90; without generations 7.09 / 31.36); 4, the backend and machine factors' pull.
GENERATION_PRIOR_ROWS = 4.0
REFERENCE_BACKEND = Backend.CUDA  # its factors stay 1.0: the class η is CUDA's

Group = tuple[HardwareClass, Engine]
Transform = Literal["share", "positive"]


@dataclass(frozen=True)
class Param:
    name: str
    term: str  # DecodeTerms / PrefillTerms attribute, or "host_eta" / "expert_spread"
    groups: tuple[Group, ...]  # where it applies; () = global
    transform: Transform
    default: float
    lo: float
    hi: float
    prior_rows: float = 0.0  # > 0: pulled toward `default` like this many rows measured there (same loss)
    backend: Backend | None = None  # for "backend.decode" / "backend.prefill"
    era: BuildEra | None = None  # for "era_token"
    machine: str | None = None  # for "machine": the catalog hardware name; for "generation": the architecture

    def value(self, x: float) -> float:
        if self.transform == "share":
            return self.lo + (self.hi - self.lo) / (1.0 + np.exp(-x))
        return float(np.clip(self.default * np.exp(x), self.lo, self.hi))

    def start(self) -> float:
        if self.transform == "share":
            p = (self.default - self.lo) / (self.hi - self.lo)
            p = min(max(p, 1e-3), 1 - 1e-3)
            return float(np.log(p / (1 - p)))
        return 0.0


@dataclass(frozen=True)
class FitResult:
    calibration: Calibration
    values: dict[str, float]  # fitted parameter values by name
    decode_rows: int
    prefill_rows: int
    cost: float


def _group(c: Case) -> Group:
    return (c.hw_class, c.engine)


def _backend(c: Case) -> Backend | None:
    """The llama.cpp backend a case runs (None for MLX and vLLM, which have no backend factor)."""
    return backend_in_use(c.scenario) if c.engine is Engine.LLAMA_CPP else None


def soft_l1(r: NDArray[np.float64], scale: float = LOSS_SCALE) -> NDArray[np.float64]:
    """Residuals whose squares sum to the soft-L1 loss (quadratic near 0, linear beyond `scale`)."""
    return np.sign(r) * scale * np.sqrt(2.0 * (np.sqrt(1.0 + (r / scale) ** 2) - 1.0))


def levenberg_marquardt(residuals: Callable[[NDArray[np.float64]], NDArray[np.float64]], x0: NDArray[np.float64],
                        max_iter: int = 200, tol: float = 1e-9) -> tuple[NDArray[np.float64], float]:
    """Minimise ‖residuals(x)‖² with a forward-difference Jacobian."""
    x = np.asarray(x0, float).copy()
    r = residuals(x)
    cost = float(r @ r)
    lam = 1e-2
    for _ in range(max_iter):
        J = np.empty((r.size, x.size))
        for j in range(x.size):
            h = 1e-6 * max(1.0, abs(x[j]))
            xp = x.copy()
            xp[j] += h
            J[:, j] = (residuals(xp) - r) / h
        A, g = J.T @ J, J.T @ r
        improved = False
        while lam < 1e10:
            step = np.linalg.solve(A + lam * (np.diag(np.diag(A)) + 1e-9 * np.eye(x.size)), -g)
            xn = x + step
            rn = residuals(xn)
            cn = float(rn @ rn)
            if np.isfinite(cn) and cn < cost:
                improved = cost - cn > tol * max(cost, 1e-12)
                x, r, cost, lam = xn, rn, cn, max(lam / 3, 1e-9)
                break
            lam *= 4
        if not improved:
            break
    return x, cost


# --- which parameters the data can carry --------------------------------------------------------


def _rows(cases: Sequence[Case], test: str, where: Callable[[Case], bool] = lambda c: True) -> list[Case]:
    return [c for c in cases if c.test == test and where(c)]


def decode_params(train: Sequence[Case], base: Calibration, min_rows: int = MIN_ROWS) -> list[Param]:
    tg = _rows(train, "tg")
    fitted = sorted({_group(c) for c in tg if sum(_group(d) == _group(c) for d in tg) >= min_rows})
    params: list[Param] = []
    for g in fitted:
        d = base.get(*g).decode
        label = f"{g[0].value}/{g[1].value}"
        params.append(Param(f"eta[{label}]", "decode.eta", (g,), "share", d.eta, 0.2, 1.0))
        params.append(Param(f"token_ms[{label}]", "decode.token_ms", (g,), "positive", 1.0, 0.0, 50.0))
    for kind in sorted({g[0] for g in fitted}):
        in_class = tuple(g for g in fitted if g[0] is kind)
        rows = [c for c in tg if _group(c) in in_class]
        contexts = {c.scenario.workload.context for c in rows}
        if len(contexts) >= 3:
            params.append(Param(f"kv_factor[{kind.value}]", "decode.kv_factor", in_class, "positive", 1.0, 0.2, 8.0))
        bits = {c.scenario.quant.bits_per_weight >= 15.9 for c in rows}
        if bits == {True, False}:
            params.append(Param(f"dequant_flop[{kind.value}]", "decode.dequant_flop", in_class, "positive", 2.0,
                                0.0, 200.0))
        if sum(c.row.batch > 1 for c in rows) >= 4:
            params.append(Param(f"stream_ms[{kind.value}]", "decode.stream_ms", in_class, "positive", 0.5, 0.0, 20.0))
    if sum(c.kind == "offload" for c in tg) >= min_rows:
        params.append(Param("host_eta", "host_eta", (), "share", base.host_eta, 0.1, 1.0))
    if sum(c.moe and c.row.batch > 1 for c in tg) >= 3:
        params.append(Param("expert_spread", "expert_spread", (), "share", 0.8, 0.2, 1.0))
    unfused = [c for c in tg if _unfused(c)]
    if len(unfused) >= min_rows and len({c.scenario.workload.context for c in unfused}) >= 3:
        params.append(Param("unfused_attn_eta", "unfused_attn_eta", (), "positive", 0.02, 1e-3, 1.0))
    params += backend_params([c for c in tg if _group(c) in fitted], "decode")  # a flat group takes no factor
    params += era_params(tg)
    params += generation_params([c for c in tg if _group(c) in fitted])
    params += machine_params([c for c in tg if _group(c) in fitted])
    if sum(c.moe and c.engine is Engine.LLAMA_CPP for c in tg if _group(c) in fitted) >= min_rows:
        params.append(Param("moe_token", "moe_token", (), "positive", 1.0, 0.2, 10.0))
    return params


@cache
def catalog_chips() -> frozenset[str]:
    """The machine keys of the shipped catalog's hardware: the chips a user can pick."""
    return frozenset(chip_key(to_hardware(e)) for e in shipped_catalog().hardware.values())


def catalog_chip(c: Case) -> str | None:
    """The catalog chip a row ran on (calibration.machine_key), None for a chip no catalog entry has
    (a hardware_specs.csv line of another chip): the app can only apply a factor to a chip a user can
    pick. A specs line of a catalog chip with another memory size counts for that chip."""
    key = chip_key(c.scenario.hardware)
    return key if key in catalog_chips() else None


def machine_params(rows: Sequence[Case]) -> list[Param]:
    """One factor on η per catalog machine the rows ran on, shrunk toward 1."""
    seen = sorted({k for c in rows if (k := catalog_chip(c)) is not None})
    return [Param(f"machine_eta[{k}]", "machine", (), "positive", 1.0, 0.3, 2.0,
                  prior_rows=MACHINE_PRIOR_ROWS, machine=k) for k in seen]


def generation_params(rows: Sequence[Case]) -> list[Param]:
    """One factor on η per GPU architecture the rows ran on, shrunk toward 1."""
    seen = sorted({g for c in rows if (g := generation_key(c.scenario.hardware)) is not None})
    return [Param(f"generation_eta[{g}]", "generation", (), "positive", 1.0, 0.3, 2.0,
                  prior_rows=GENERATION_PRIOR_ROWS, machine=g) for g in seen]


def era_params(rows: Sequence[Case]) -> list[Param]:
    """One factor on t₀ per build era the llama.cpp rows come from (the current era excepted), shrunk
    toward 1."""
    seen = sorted({e for c in rows if c.engine is Engine.LLAMA_CPP and (e := c.era) is not None
                   and e is not CURRENT_ERA}, key=list(BuildEra).index)
    return [Param(f"era_token[{e.value}]", "era_token", (), "positive", 1.0, 0.2, 5.0,
                  prior_rows=ERA_PRIOR_ROWS, era=e) for e in seen]


def _unfused(c: Case) -> bool:
    """llama.cpp run without flash attention (its attention then runs as separate kernels)."""
    return c.engine is Engine.LLAMA_CPP and not c.scenario.workload.flash_attention


def backend_params(rows: Sequence[Case], part: Literal["decode", "prefill"]) -> list[Param]:
    """One factor per backend the rows run (the reference backend excepted), shrunk toward 1."""
    seen = sorted({b for c in rows if (b := _backend(c)) is not None and b is not REFERENCE_BACKEND})
    label = "eta" if part == "decode" else "compute_eta"
    return [Param(f"backend_{label}[{b.value}]", f"backend.{part}", (), "positive", 1.0, 0.3, 2.0,
                  prior_rows=BACKEND_PRIOR_ROWS, backend=b) for b in seen]


def prefill_params(train: Sequence[Case], base: Calibration, min_rows: int = MIN_ROWS) -> list[Param]:
    pp = _rows(train, "pp")
    fitted = sorted({_group(c) for c in pp if sum(_group(d) == _group(c) for d in pp) >= min_rows})
    params: list[Param] = []
    for g in fitted:
        p = base.get(*g).prefill
        params.append(Param(f"compute_eta[{g[0].value}/{g[1].value}]", "prefill.eta", (g,), "share", p.eta, 0.02, 1.0))
    for kind in sorted({g[0] for g in fitted}):
        in_class = tuple(g for g in fitted if g[0] is kind)
        rows = [c for c in pp if _group(c) in in_class]
        if {c.scenario.quant.bits_per_weight >= 15.9 for c in rows} == {True, False}:
            params.append(Param(f"quant_factor[{kind.value}]", "prefill.quant_factor", in_class, "share", 0.8,
                                0.1, 1.0))
        if len({(c.row.prompt_tokens, c.row.depth) for c in rows}) >= 3:
            params.append(Param(f"attn_factor[{kind.value}]", "prefill.attn_factor", in_class, "positive", 1.0,
                                0.1, 20.0))
    fitted_all = tuple(fitted)
    if sum(c.moe for c in pp if _group(c) in fitted_all) >= 3:
        params.append(Param("moe_factor", "prefill.moe_factor", fitted_all, "share", 0.5, 0.05, 1.0))
    params += backend_params([c for c in pp if _group(c) in fitted_all], "prefill")
    return params


# --- parameters to calibration and to roofline fields -------------------------------------------


def apply_params(base: Calibration, params: Sequence[Param], x: NDArray[np.float64]) -> Calibration:
    terms = dict(base.terms)
    backends = dict(base.backends)
    eras = dict(base.era_token)
    host_eta, spread, attn_eta = base.host_eta, base.expert_spread, base.unfused_attn_eta
    moe_token = base.moe_token
    machines = dict(base.machines)
    generations = dict(base.generations)
    for p, xi in zip(params, x, strict=True):
        v = p.value(float(xi))
        if p.term.startswith("backend.") and p.backend is not None:
            old = backends.get(p.backend, BackendTerms())
            backends[p.backend] = (replace(old, decode=v) if p.term == "backend.decode"
                                   else replace(old, prefill=v))
            continue
        if p.term == "era_token" and p.era is not None:
            eras[p.era] = v
            continue
        if p.term == "host_eta":
            host_eta = v
            continue
        if p.term == "expert_spread":
            spread = v
            continue
        if p.term == "unfused_attn_eta":
            attn_eta = v
            continue
        if p.term == "machine" and p.machine is not None:
            machines[p.machine] = MachineTerms(decode=v)
            continue
        if p.term == "generation" and p.machine is not None:
            generations[p.machine] = MachineTerms(decode=v)
            continue
        if p.term == "moe_token":
            moe_token = v
            continue
        part, attr = p.term.split(".")
        change: dict[str, Any] = {attr: v}
        for g in p.groups:
            t = terms[g]
            if part == "decode":
                terms[g] = replace(t, decode=replace(t.decode, **change), fitted=True)
            else:
                terms[g] = replace(t, prefill=replace(t.prefill, **change), fitted=True)
    return replace(base, terms=terms, host_eta=host_eta, expert_spread=spread, backends=backends,
                   unfused_attn_eta=attn_eta, era_token=eras, moe_token=moe_token,
                   machines=machines, generations=generations)


def _field_arrays(cases: Sequence[Case], cal: Calibration) -> dict[str, Any]:
    """calibrated_fields with one value per case (what build_inputs would give each scenario)."""
    ts = [cal.get(*_group(c)) for c in cases]
    def a(f: Callable[[ClassTerms], float]) -> NDArray[np.float64]:
        return np.array([f(t) for t in ts], dtype=float)

    scaling = np.array([c.scenario.hardware.scaling_efficiency for c in cases], dtype=float)
    speedup = np.array([c.scenario.hardware.speedup for c in cases], dtype=float)
    bt = [cal.backend(c.engine, b) if (b := _backend(c)) is not None else BackendTerms() for c in cases]
    era = np.array([cal.token_factor(c.engine, c.era) for c in cases], dtype=float)
    machine = np.array([cal.hardware_factor(c.scenario.hardware) for c in cases], dtype=float)
    fields = calibrated_fields(
        a(lambda t: t.decode.eta) * machine, a(lambda t: t.prefill.eta), scaling, speedup,
        token_ms=a(lambda t: t.decode.token_ms) * era, kv_factor=a(lambda t: t.decode.kv_factor),
        dequant_flop=a(lambda t: t.decode.dequant_flop),
        stream_ms=a(lambda t: t.decode.stream_ms),
        quant_factor=a(lambda t: t.prefill.quant_factor), attn_factor=a(lambda t: t.prefill.attn_factor),
        moe_factor=a(lambda t: t.prefill.moe_factor),
        backend_decode=np.array([b.decode for b in bt], dtype=float),
        backend_prefill=np.array([b.prefill for b in bt], dtype=float),
        moe_token=np.array([cal.moe_factor(c.engine, True) for c in cases], dtype=float),
    )
    fields["host_eta"] = np.full(len(cases), cal.host_eta)
    fields["expert_spread"] = np.full(len(cases), cal.expert_spread)
    fields["unfused_attn_eta"] = np.array([cal.unfused_attn_eta if _unfused(c) else 0.0 for c in cases])
    return fields


def predict_with(cases: Sequence[Case], base_inputs: Inputs, cal: Calibration) -> NDArray[np.float64]:
    return measured_quantity(cases, solve(replace(base_inputs, **_field_arrays(cases, cal))))


# --- the fit ----------------------------------------------------------------------------------------


def _fit_part(cases: Sequence[Case], measured: NDArray[np.float64], base_inputs: Inputs, base: Calibration,
              params: Sequence[Param]) -> tuple[Calibration, float]:
    if not params or not cases:
        return base, 0.0
    log_meas = np.log(measured)
    x0 = np.array([p.start() for p in params])
    rows_prior = np.array([p.prior_rows for p in params])
    pseudo = rows_prior > 0

    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        pred = predict_with(cases, base_inputs, apply_params(base, params, x))
        r = np.log(np.maximum(pred, 1e-12)) - log_meas
        # a weak pull toward the defaults; parameters with prior_rows are pulled like that many rows
        # measured at the default (for a factor, x is its log, the same units as a row's residual)
        pull = np.where(pseudo, np.sqrt(rows_prior) * soft_l1(x - x0), PRIOR_WEIGHT * (x - x0))
        return np.concatenate([soft_l1(r), pull])

    x, cost = levenberg_marquardt(residuals, x0)
    return apply_params(base, params, x), cost


def bands(cases: Sequence[Case], measured: NDArray[np.float64], predicted: NDArray[np.float64],
          cal: Calibration, min_rows: int = MIN_ROWS) -> Calibration:
    """Each fitted group's band: 10th/90th percentile of measured ÷ predicted decode over its rows
    (the class's rows when the group alone has fewer than BAND_MIN_ROWS: a handful of rows from one
    or two sources would give a falsely narrow band)."""
    ratio = measured / np.maximum(predicted, 1e-12)
    tg = np.array([c.test == "tg" for c in cases])
    terms = dict(cal.terms)
    for g, t in cal.terms.items():
        if not t.fitted:
            continue
        m = tg & np.array([_group(c) == g for c in cases])
        if m.sum() < BAND_MIN_ROWS:
            m = tg & np.array([c.hw_class is g[0] for c in cases])
        if m.sum() < min_rows:
            continue
        lo, hi = np.percentile(ratio[m], BAND_QUANTILES)
        terms[g] = replace(t, decode=replace(t.decode, band=(round(float(min(lo, 1.0)), 3),
                                                             round(float(max(hi, 1.0)), 3))))
    return replace(cal, terms=terms)


def fit(cases: Sequence[Case], measured: NDArray[np.float64] | None = None, base: Calibration = FLAT,
        train: NDArray[np.bool_] | None = None, min_rows: int = MIN_ROWS) -> FitResult:
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
    cal = _tidy(cal)
    counts = {g: sum(1 for c in tr if c.test == "tg" and _group(c) == g) for g in cal.terms}
    cal = replace(cal, terms={g: (replace(t, rows=counts[g]) if t.fitted else t) for g, t in cal.terms.items()})
    cal = replace(cal, backends={b: replace(t, rows=sum(1 for c in tr if _backend(c) is b))
                                 for b, t in sorted(cal.backends.items())},
                  era_token=dict(sorted(cal.era_token.items(), key=lambda kv: list(BuildEra).index(kv[0]))),
                  machines={k: replace(t, rows=sum(1 for c in tr if c.test == "tg" and catalog_chip(c) == k))
                            for k, t in sorted(cal.machines.items())},
                  generations={g: replace(t, rows=sum(1 for c in tr if c.test == "tg"
                                                      and generation_key(c.scenario.hardware) == g))
                               for g, t in sorted(cal.generations.items())})
    everything = case_inputs(cases, base)
    cal = bands(cases, meas, predict_with(cases, everything, cal), cal, min_rows)
    values = _values(cal, base)
    return FitResult(calibration=replace(cal, name="fitted"), values=values, decode_rows=len(tg_idx),
                     prefill_rows=len(pp_idx), cost=cost)


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
        terms[g] = replace(t, decode=DecodeTerms(eta=r(d.eta) or d.eta, token_ms=r(d.token_ms) or 0.0,
                                                 kv_factor=r(d.kv_factor) or 1.0, dequant_flop=r(d.dequant_flop) or 0.0,
                                                 stream_ms=r(d.stream_ms) or 0.0, band=d.band),
                           prefill=PrefillTerms(eta=r(p.eta) or p.eta, quant_factor=r(p.quant_factor) or 1.0,
                                                attn_factor=r(p.attn_factor) or 1.0, moe_factor=r(p.moe_factor) or 1.0))
    backends = {b: replace(t, decode=r(t.decode) or 1.0, prefill=r(t.prefill) or 1.0)
                for b, t in cal.backends.items()}
    return replace(cal, terms=terms, host_eta=float(f"{cal.host_eta:.3g}"),
                   expert_spread=float(f"{cal.expert_spread:.3g}"), backends=backends,
                   unfused_attn_eta=float(f"{cal.unfused_attn_eta:.3g}"),
                   era_token={e: float(f"{v:.3g}") for e, v in cal.era_token.items()},
                   moe_token=float(f"{cal.moe_token:.3g}"),
                   machines={k: replace(t, decode=float(f"{t.decode:.3g}")) for k, t in cal.machines.items()},
                   generations={k: replace(t, decode=float(f"{t.decode:.3g}")) for k, t in cal.generations.items()})


def _values(cal: Calibration, base: Calibration) -> dict[str, float]:
    out: dict[str, float] = {"host_eta": cal.host_eta, "expert_spread": cal.expert_spread,
                             "unfused_attn_eta": cal.unfused_attn_eta, "moe_token": cal.moe_token}
    for era, v in cal.era_token.items():
        out[f"era_token[{era.value}]"] = v
    for m, mt in cal.machines.items():
        out[f"machine.decode[{m}]"] = mt.decode
    for g, gt in cal.generations.items():
        out[f"generation.decode[{g}]"] = gt.decode
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
