"""Leave-one-source-out cross-validation: the yardstick for how the advisor does on a source it never saw.

For each source (advisor.validation.sources) the fitter refits on every usable row of every other source,
from the same flat start, and predicts that source's rows. A source's machine, build and method are so
never on both sides of a fit, which a split by configuration cannot promise: the held-out rows of
`validate` share their sources with the training rows.

Reported per kind (depth 0, depth sweep, offload, batch, MoE, multi-GPU, CPU only; prefill) and per vendor:
the median and 90th percentile absolute % error, how often the measurement fell inside the band the
fold's fit drew, and the same figures for the best simple formula fitted the same way (decode: two
constants, a share of the bandwidth ceiling and a fixed time per token; prefill: one share of the FLOP
ceiling), so every kind shows whether the model earns its terms.

    .venv/bin/python benchmarks/loso.py             # one fit per source; writes catalogs/published/loso.json
    .venv/bin/python benchmarks/loso.py --folds 8   # 8 folds of whole sources (what the bands use)

The published figures hold out one source at a time: with folds of several sources, which sources share a
fold decides how much of a machine's or a method's evidence a fit loses, and adding one source to the data
reshuffles every fold (one model on one set of rows reads 12.5 % and 14.5 % median decode error under two
assignments).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.core.hardware import HardwareClass
from advisor.core.hardware_keys import hardware_vendor
from advisor.core.roofline import solve
from advisor.validation import fit as _fit
from advisor.validation.cases import Case
from advisor.validation.predict import case_inputs, predict
from advisor.validation.source_bands import by_source_bands
from advisor.validation.sources import source_of
from advisor.validation.stats import ErrorStats, ape

Pred = Callable[[Case], bool]
SHIPPED_FOLDS = 8  # folds of whole sources the shipped bands come from (a refit reruns them: few and cheap)
REPORTED_FOLDS = 0  # benchmarks/loso.py's default: 0, one fit per source


def kinds() -> list[tuple[str, str, Pred]]:
    """(test, group, which rows) in the order reported."""
    tg: list[tuple[str, Pred]] = [
        ("all", lambda c: True),
        ("depth 0", lambda c: c.kind == "depth 0"),
        ("depth sweep", lambda c: c.kind == "depth sweep"),
        ("offload", lambda c: c.kind == "offload"),
        ("  layers", lambda c: c.kind == "offload" and placement_of(c) == "layers"),
        ("  experts", lambda c: c.kind == "offload" and placement_of(c) == "experts"),
        ("  KV -nkvo", lambda c: c.kind == "offload" and placement_of(c) == "kv"),
        ("batch", lambda c: c.kind == "batch"),
        ("MoE", lambda c: c.moe),
        ("multi-GPU", lambda c: c.scenario.hardware.devices > 1),
        ("CPU only", lambda c: c.hw_class is HardwareClass.CPU),
    ]
    return [("tg", g, p) for g, p in tg] + [("pp", "all", lambda c: True)]


def placement_of(c: Case) -> str:
    """How an offload row placed things: the KV cache on the host, experts first, or whole layers."""
    w = c.scenario.workload
    if w.offload == "kv":
        return "kv"
    return "experts" if w.cpu_moe_layers is not None or w.offload == "experts" else "layers"


def vendor_of(c: Case) -> str:
    return hardware_vendor(c.scenario.hardware) or "cpu"


@dataclass(frozen=True)
class LosoResult:
    sources: tuple[str, ...]  # per case
    predicted: NDArray[np.float64]
    low: NDArray[np.float64]  # the band the fold's fit draws around each prediction
    high: NDArray[np.float64]
    simple: NDArray[np.float64]  # the best simple formula, fitted on the same folds


def _ceilings(cases: Sequence[Case]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per case: the decode ceiling (aggregate rows: times the streams) and the prefill FLOP ceiling."""
    inp = case_inputs(cases)
    out = solve(inp)
    streams = np.array([c.scenario.workload.streams if c.aggregate else 1 for c in cases], dtype=float)
    decode = np.asarray(out.ceiling, dtype=float) * streams
    prefill = np.asarray(inp.flops, dtype=float) / np.asarray(out.prefill_matmul_flops, dtype=float)
    return decode * np.ones(len(cases)), prefill * np.ones(len(cases))


def simple_formula(
    train: Sequence[int], cases: Sequence[Case], ceilings: tuple[NDArray[np.float64], ...]
) -> NDArray[np.float64]:
    """The best two-constant decode formula, 1 / (1 / (a × ceiling) + t₀), and a one-constant prefill
    formula, b × FLOP ceiling, fitted on `train` (relative least squares), for every case."""
    decode_ceiling, prefill_ceiling = ceilings
    meas = np.array([c.measured for c in cases], dtype=float)
    tg = np.array([c.test == "tg" for c in cases])
    tr = np.zeros(len(cases), bool)
    tr[list(train)] = True
    out = np.full(len(cases), np.nan)
    d = tr & tg & (decode_ceiling > 0)
    if d.sum() >= 2:
        # 1 / measured = p / ceiling + t₀, weighted so each row's relative error counts alike
        y, x = 1 / meas[d], 1 / decode_ceiling[d]
        w = 1 / y
        a_mat = np.stack([x * w, w], axis=1)
        (p, t0), *_ = np.linalg.lstsq(a_mat, y * w, rcond=None)
        out[tg] = 1 / (np.maximum(p, 1e-9) / decode_ceiling[tg] + max(t0, 0.0))
    pf = tr & ~tg & (prefill_ceiling > 0)
    if pf.any():
        b = float(np.exp(np.median(np.log(meas[pf] / prefill_ceiling[pf]))))
        out[~tg] = b * prefill_ceiling[~tg]
    return out


def source_folds(cases: Sequence[Case], k: int | None = None) -> dict[str, int]:
    """The fold of each source. k None: one fold per source (leave-one-source-out). Otherwise k folds of
    whole sources, each source in turn (largest first, then by name) to the fold holding the fewest rows:
    the same few fits cover every source, and no fold splits one."""
    rows = Counter(source_of(c.row.source_url) for c in cases)
    names = sorted(rows)
    if k is None or k >= len(names):
        return {s: i for i, s in enumerate(names)}
    if k < 2:
        raise ValueError(f"k must be at least 2, got {k}")
    load = [0] * k
    fold: dict[str, int] = {}
    for s in sorted(names, key=lambda s: (-rows[s], s)):
        f = min(range(k), key=lambda i: (load[i], i))
        fold[s] = f
        load[f] += rows[s]
    return fold


def leave_one_source_out(
    cases: Sequence[Case],
    fitter: Callable[..., _fit.FitResult] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    only: int | None = None,
    k: int | None = None,
) -> LosoResult:
    """Every case predicted by a fit on the rows of all the other sources (see the module text); with `k`,
    k folds of whole sources (`source_folds`) instead of one per source. With `only`, just that fold (its
    rows predicted, the rest NaN), for running folds in parallel (`merge`)."""
    fitter = fitter or _fit.fit
    cases = list(cases)
    srcs = tuple(source_of(c.row.source_url) for c in cases)
    folds = source_folds(cases, k)
    fold_of = [folds[s] for s in srcs]
    pred = np.full(len(cases), np.nan)
    low, high, simple = pred.copy(), pred.copy(), pred.copy()
    ceilings = _ceilings(cases)
    todo = sorted(set(folds.values())) if only is None else [only]
    for n, f in enumerate(todo):
        if progress:
            progress(n, len(todo), ", ".join(s for s, g in folds.items() if g == f))
        inside = [i for i, g in enumerate(fold_of) if g != f]
        left = [i for i, g in enumerate(fold_of) if g == f]
        cal = fitter([cases[i] for i in inside], train=np.ones(len(inside), bool)).calibration
        held = [cases[i] for i in left]
        pred[left] = predict(held, cal)
        bands = np.array([cal.get(c.hw_class, c.engine).decode.band for c in held], dtype=float)
        low[left], high[left] = pred[left] * bands[:, 0], pred[left] * bands[:, 1]
        simple[left] = simple_formula(inside, cases, ceilings)[left]
    return LosoResult(sources=srcs, predicted=pred, low=low, high=high, simple=simple)


def merge(parts: Sequence[LosoResult]) -> LosoResult:
    """Folds run apart, put together: each row from the fold that predicted it."""
    first = parts[0]
    fields = {k: np.full(len(first.sources), np.nan) for k in ("predicted", "low", "high", "simple")}
    for part in parts:
        done = np.isfinite(part.predicted)
        for k, arr in fields.items():
            arr[done] = getattr(part, k)[done]
    return LosoResult(sources=first.sources, **fields)


def _group_row(cases: Sequence[Case], res: LosoResult, mask: NDArray[np.bool_], banded: bool = True) -> dict[str, Any]:
    """One group's figures; `banded` False where the app draws no band (prefill): no band-held share."""
    meas = np.array([c.measured for c in cases], dtype=float)
    err = ape(res.predicted[mask], meas[mask])
    simple = ape(res.simple[mask], meas[mask])
    inside = (meas[mask] >= res.low[mask] * (1 - 1e-9)) & (meas[mask] <= res.high[mask] * (1 + 1e-9))
    srcs = {s for s, m in zip(res.sources, mask, strict=True) if m}
    return {
        **ErrorStats.of(err).as_dict(),
        "sources": len(srcs),
        "band_held_pct": round(100 * float(inside.mean()), 1) if mask.any() and banded else None,
        "simple": ErrorStats.of(simple[np.isfinite(simple)]).as_dict(),
    }


def with_source_bands(cases: Sequence[Case], res: LosoResult) -> LosoResult:
    """The result with each row's band drawn as the app's are: from the by-source residuals of the other
    sources' rows (advisor.validation.source_bands), where enough of them exist; else the fold's."""
    lo, hi = by_source_bands(cases, res.sources, res.predicted)
    known = np.isfinite(lo)
    return replace(
        res,
        low=np.where(known, res.predicted * lo, res.low),
        high=np.where(known, res.predicted * hi, res.high),
    )


def loso_dict(cases: Sequence[Case], res: LosoResult) -> dict[str, Any]:
    """Per kind and per vendor (decode): n, median and p90 % error, band held (bands from the other
    sources' residuals), sources, the simple formula."""
    cases = list(cases)
    res = with_source_bands(cases, res)
    is_tg = np.array([c.test == "tg" for c in cases])
    rows = []
    for test, group, which in kinds():
        m = np.array([c.test == test and which(c) for c in cases], dtype=bool)
        if m.any():
            rows.append({"test": test, "group": group, **_group_row(cases, res, m, banded=test == "tg")})
    vendors = []
    for v in sorted({vendor_of(c) for c in cases}):
        m = is_tg & np.array([vendor_of(c) == v for c in cases], dtype=bool)
        if m.any():
            vendors.append({"vendor": v, **_group_row(cases, res, m)})
    return {"sources": len(set(res.sources)), "rows": len(cases), "kinds": rows, "vendors": vendors}


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1f}"


def _band(v: float | None) -> str:
    return f"{'—':>6}  " if v is None else f"{v:>6.1f} %"


def loso_text(d: dict[str, Any]) -> str:
    def cell(s: dict[str, Any]) -> str:
        return f"{_pct(s['median_pct']):>6} / {_pct(s['p90_pct']):<6}"

    folds = d.get("folds")
    by = (
        f"a fit on the sources of the other {folds - 1} of {folds} folds of whole sources"
        if folds and folds < d["sources"]
        else "a fit on all the others"
    )
    lines = [
        f"Leave-one-source-out: {d['rows']} rows from {d['sources']} sources; each source predicted by {by}.",
        "",
        f"{'':9}{'group':13}{'n':>5}{'src':>5}   model med / p90   band held   simple formula med / p90",
    ]
    for r in d["kinds"]:
        test = "decode" if r["test"] == "tg" else "prefill"
        lines.append(
            f"{test:9}{r['group']:13}{r['n']:5d}{r['sources']:5d}   {cell(r)}    "
            f"{_band(r['band_held_pct'])}    {cell(r['simple'])}"
        )
    lines += ["", "decode by vendor:"]
    for r in d["vendors"]:
        lines.append(
            f"{'':9}{r['vendor']:13}{r['n']:5d}{r['sources']:5d}   {cell(r)}    "
            f"{r['band_held_pct']:>6.1f} %    {cell(r['simple'])}"
        )
    return "\n".join(lines)
