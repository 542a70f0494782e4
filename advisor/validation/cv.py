"""Cross-validation inside the training rows, for judging a change to the model's terms without
letting the held-out rows choose it.

    .venv/bin/python benchmarks/validate.py --cv              # 5 folds, seeds 0, 1, 2
    .venv/bin/python benchmarks/validate.py --cv 5 --cv-seeds 3 --json

Only the training rows (not `held_out`) take part. They are split into K folds by configuration
(`data.config_key`: machine × GPU count × model × quant × bits × engine, the unit the held-out split
keeps whole), so a configuration's rows are never on both sides. The fold assignment for seed s:
order the configurations by sha256(f"cv|{s}|{config_key}") (hex digest, ascending), then give each in
turn to the fold holding the fewest rows so far (ties: the lowest fold number). That is a different
shuffle per seed, identical on every machine and run, with folds within one configuration's rows of
each other in size.

For each fold the existing fitter (`fit.fit`) refits on the other K−1 folds, from the same flat start,
and the left-out fold is predicted with the result; every training row is predicted once per seed,
by a fit that never saw its configuration. Reported: median and 90th percentile absolute % error of
those predictions for the groups `validate` reports (decode: all, depth 0, depth sweep, offload,
batch, MoE; prefill: all), per seed and as the median over seeds. Nothing is written."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.validation import fit as _fit
from advisor.validation.cases import Case, config_key
from advisor.validation.predict import predict
from advisor.validation.stats import ErrorStats, ape, groups

DEFAULT_K = 5
DEFAULT_SEEDS = 3

# (test, group as `validate` names it, key in the key=value line)
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("tg", "all", "decode_all"),
    ("tg", "depth 0", "decode_depth0"),
    ("tg", "depth sweep", "decode_depth_sweep"),
    ("tg", "offload", "decode_offload"),
    ("tg", "batch", "decode_batch"),
    ("tg", "MoE", "decode_moe"),
    ("pp", "all", "prefill_all"),
)


def training_cases(cases: Sequence[Case]) -> list[Case]:
    """The rows cross-validation may use: never a held-out one."""
    return [c for c in cases if not c.held_out]


def fold_order_key(seed: int, key: str) -> str:
    return hashlib.sha256(f"cv|{seed}|{key}".encode()).hexdigest()


def assign_folds(cases: Sequence[Case], k: int = DEFAULT_K, seed: int = 0) -> list[int]:
    """The fold (0..k−1) of each case; all rows of a configuration share one. See the module text."""
    if any(c.held_out for c in cases):
        raise ValueError("cross-validation takes training rows only; held-out rows were given")
    rows = Counter(config_key(c.row) for c in cases)
    if not 2 <= k <= len(rows):
        raise ValueError(f"k must be between 2 and the number of configurations ({len(rows)}), got {k}")
    load = [0] * k
    fold_of: dict[str, int] = {}
    for key in sorted(rows, key=lambda key: fold_order_key(seed, key)):
        f = min(range(k), key=lambda i: (load[i], i))
        fold_of[key] = f
        load[f] += rows[key]
    return [fold_of[config_key(c.row)] for c in cases]


@dataclass(frozen=True)
class SeedResult:
    seed: int
    fold_rows: tuple[int, ...]
    fold_configs: tuple[int, ...]
    predicted: NDArray[np.float64]  # out-of-fold prediction of every training row
    stats: dict[str, ErrorStats]  # by GROUPS key


@dataclass(frozen=True)
class CVResult:
    k: int
    rows: int
    configs: int
    seeds: tuple[SeedResult, ...]

    def summary(self) -> dict[str, tuple[float | None, float | None]]:
        """Per group: the median over seeds of the median and of the p90 absolute % error."""
        out: dict[str, tuple[float | None, float | None]] = {}
        for _, _, key in GROUPS:
            med = [m for s in self.seeds if (m := s.stats[key].median) is not None]
            p90 = [p for s in self.seeds if (p := s.stats[key].p90) is not None]
            out[key] = (float(np.median(med)) if med else None, float(np.median(p90)) if p90 else None)
        return out


def group_stats(cases: Sequence[Case], predicted: NDArray[np.float64]) -> dict[str, ErrorStats]:
    err = ape(predicted, np.array([c.measured for c in cases], dtype=float))
    preds = dict(groups(cases))
    out: dict[str, ErrorStats] = {}
    for test, group, key in GROUPS:
        m = np.array([c.test == test and preds[group](c) for c in cases], dtype=bool)
        out[key] = ErrorStats.of(err[m])
    return out


def out_of_fold(
    cases: Sequence[Case], folds: Sequence[int], k: int, fitter: Callable[..., _fit.FitResult] | None = None
) -> NDArray[np.float64]:
    """Each case predicted by a fit on the other folds (`fitter` defaults to fit.fit)."""
    fitter = fitter or _fit.fit
    pred = np.full(len(cases), np.nan)
    for f in range(k):
        inside = [c for c, g in zip(cases, folds, strict=True) if g != f]
        out_idx = [i for i, g in enumerate(folds) if g == f]
        result = fitter(inside, train=np.ones(len(inside), bool))
        pred[out_idx] = predict([cases[i] for i in out_idx], result.calibration)
    return pred


def cross_validate(
    cases: Sequence[Case],
    k: int = DEFAULT_K,
    seeds: int = DEFAULT_SEEDS,
    fitter: Callable[..., _fit.FitResult] | None = None,
) -> CVResult:
    """K-fold cross-validation by configuration over the training rows of `cases`, seeds 0..seeds−1."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    train = training_cases(cases)
    results = []
    for seed in range(seeds):
        folds = assign_folds(train, k, seed)
        pred = out_of_fold(train, folds, k, fitter)
        configs = [{config_key(c.row) for c, g in zip(train, folds, strict=True) if g == f} for f in range(k)]
        results.append(
            SeedResult(
                seed=seed,
                fold_rows=tuple(folds.count(f) for f in range(k)),
                fold_configs=tuple(len(s) for s in configs),
                predicted=pred,
                stats=group_stats(train, pred),
            )
        )
    return CVResult(k=k, rows=len(train), configs=len({config_key(c.row) for c in train}), seeds=tuple(results))


def _fmt(v: float | None) -> str:
    return "nan" if v is None else f"{v:.2f}"


def cv_line(result: CVResult) -> str:
    """One key=value line: the median over seeds of each group's median and p90 (per cent)."""
    parts = [f"cv_k={result.k}", f"cv_seeds={len(result.seeds)}"]
    for key, (med, p90) in result.summary().items():
        parts += [f"cv_{key}_median={_fmt(med)}", f"cv_{key}_p90={_fmt(p90)}"]
    return " ".join(parts)


def cv_dict(result: CVResult) -> dict[str, Any]:
    summary = result.summary()
    return {
        "k": result.k,
        "rows": result.rows,
        "configurations": result.configs,
        "seeds": [
            {
                "seed": s.seed,
                "fold_rows": list(s.fold_rows),
                "fold_configurations": list(s.fold_configs),
                "groups": {key: st.as_dict() for key, st in s.stats.items()},
            }
            for s in result.seeds
        ],
        "median_over_seeds": {
            key: {"median_pct": None if m is None else round(m, 2), "p90_pct": None if p is None else round(p, 2)}
            for key, (m, p) in summary.items()
        },
        "line": cv_line(result),
    }


def cv_text(result: CVResult, extra: str = "") -> str:
    """The per-seed table, then `extra` (more text), then the key=value line last."""
    seeds = result.seeds
    lines = [
        f"Cross-validation inside the training rows: {result.rows} rows, {result.configs} configurations, "
        f"{result.k} folds by configuration, seeds {', '.join(str(s.seed) for s in seeds)} "
        "(held-out rows not used).",
    ]
    for s in seeds:
        lines.append(
            f"  seed {s.seed}: fold rows {' '.join(map(str, s.fold_rows))}, "
            f"configurations {' '.join(map(str, s.fold_configs))}"
        )
    lines += ["", "Absolute percentage error of the out-of-fold predictions, median / p90 (%):", ""]
    head = f"{'':9}{'group':13}{'n':>5}" + "".join(f"{'seed ' + str(s.seed):>16}" for s in seeds)
    lines.append(head + f"{'median over seeds':>20}")
    summary = result.summary()
    for test, group, key in GROUPS:
        n = seeds[0].stats[key].n
        cells = "".join(f"{_fmt(s.stats[key].median):>8}/{_fmt(s.stats[key].p90):<7}" for s in seeds)
        med, p90 = summary[key]
        lines.append(
            f"{'decode' if test == 'tg' else 'prefill':9}{group:13}{n:5d}{cells}{_fmt(med):>12}/{_fmt(p90):<7}"
        )
    if extra:
        lines.append(extra)
    lines += ["", cv_line(result)]
    return "\n".join(line.rstrip() for line in lines)
