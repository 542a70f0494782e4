"""Every usable row predicted by a fit that never saw it, and how sure a 90th percentile can be.

The held-out rows (about 30 % of configurations) are predicted by the fit on all training rows, the
committed model; each training row by the cross-validation fit that left its fold out (cv.py). Pooled,
that is an out-of-sample prediction of every row, about three times as many rows as the held-out part
alone. It is reported beside the held-out figures, not instead of them: the training rows also chose
which terms the model has (each trial was judged by cross-validation on them), so their out-of-fold
errors lean optimistic, while the held-out rows did not choose anything.

A 90th percentile over a few dozen rows is about the fifth-worst row, and the rows of one
configuration (tg512 … tg8192 of one machine and model) miss together. `p90_interval` says how much
that matters: it resamples configurations with replacement and gives the 5th–95th percentile range
of the p90 over the resamples.

The bands the app draws come from a stricter split: predictions by fits that never saw the row's
source (`shipped_fit`, what `benchmarks/validate.py --write` commits; advisor.validation.source_bands)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from advisor.core.calibration import Calibration
from advisor.validation.cases import Case, config_key
from advisor.validation.cv import GROUPS, CVResult, assign_folds, out_of_fold, training_cases
from advisor.validation.fit import bands, fit
from advisor.validation.loso import SHIPPED_FOLDS, leave_one_source_out
from advisor.validation.predict import predict
from advisor.validation.stats import ErrorStats, ape, groups

BOOTSTRAP_DRAWS = 2000


def p90_interval(
    cases: Sequence[Case], errors: NDArray[np.float64], draws: int = BOOTSTRAP_DRAWS, seed: int = 0
) -> tuple[float, float]:
    """5th and 95th percentile of the 90th-percentile error when whole configurations are resampled."""
    keys = [config_key(c.row) for c in cases]
    names = sorted(set(keys))
    rows = [np.array([e for k, e in zip(keys, errors, strict=True) if k == n]) for n in names]
    rng = np.random.default_rng(seed)
    p90s = [
        np.percentile(np.concatenate([rows[i] for i in rng.integers(0, len(rows), len(rows))]), 90)
        for _ in range(draws)
    ]
    lo, hi = np.percentile(p90s, [5, 95])
    return float(lo), float(hi)


@dataclass(frozen=True)
class PooledResult:
    seed: int
    stats: dict[str, ErrorStats]  # by cv.GROUPS key, over held-out and out-of-fold training rows
    depth0_interval: tuple[float, float]  # of the depth-0 decode p90


def _mask(cases: Sequence[Case], test: str, group: str) -> NDArray[np.bool_]:
    where = dict(groups(cases))[group]
    return np.array([c.test == test and where(c) for c in cases], dtype=bool)


def pooled(cases: Sequence[Case], cv: CVResult, calibration: Calibration | None = None) -> list[PooledResult]:
    """Per cross-validation seed: every usable row out of sample (held out: `calibration`, the committed
    model by default; training rows: that seed's out-of-fold prediction)."""
    held = [c for c in cases if c.held_out]
    train = training_cases(cases)
    every = held + train
    measured = np.array([c.measured for c in every], dtype=float)
    held_pred = predict(held, calibration)
    out = []
    for s in cv.seeds:
        err = ape(np.concatenate([held_pred, s.predicted]), measured)
        stats = {key: ErrorStats.of(err[_mask(every, test, group)]) for test, group, key in GROUPS}
        d0 = _mask(every, "tg", "depth 0")
        interval = p90_interval([c for c, m in zip(every, d0, strict=True) if m], err[d0])
        out.append(PooledResult(seed=s.seed, stats=stats, depth0_interval=interval))
    return out


def predictions(cases: Sequence[Case], calibration: Calibration, k: int = 5, seed: int = 0) -> NDArray[np.float64]:
    """Every case predicted out of sample, in the order given: a held-out row by `calibration` (the fit
    on all training rows), a training row by the cross-validation fit that left its fold out."""
    train_idx = [i for i, c in enumerate(cases) if not c.held_out]
    held_idx = [i for i, c in enumerate(cases) if c.held_out]
    train = [cases[i] for i in train_idx]
    out = np.full(len(cases), np.nan)
    out[train_idx] = out_of_fold(train, assign_folds(train, k, seed), k)
    out[held_idx] = predict([cases[i] for i in held_idx], calibration)
    return out


def shipped_fit(cases: Sequence[Case], fitted: Calibration | None = None) -> Calibration:
    """What `benchmarks/validate.py --write` commits: the fit on the training rows (`fitted`, when the
    caller already ran `fit(cases)`), with each group's band taken from predictions by fits that never
    saw the row's source (eight folds of whole sources, advisor.validation.loso): the spread a person's
    own machine and build meet, not the fit's residuals on its own rows."""
    cal = fitted or fit(cases).calibration
    measured = np.array([c.measured for c in cases], dtype=float)
    return bands(cases, measured, leave_one_source_out(cases, k=SHIPPED_FOLDS).predicted, cal)


def held_out_interval(cases: Sequence[Case], calibration: Calibration | None = None) -> tuple[float, float]:
    """The same interval for the held-out depth-0 decode rows alone (the figure the target is read on)."""
    held = [c for c in cases if c.held_out and c.test == "tg" and c.kind == "depth 0"]
    return p90_interval(held, ape(predict(held, calibration), np.array([c.measured for c in held], dtype=float)))


def pooled_text(results: Sequence[PooledResult], held_interval: tuple[float, float]) -> str:
    def f(v: float | None) -> str:
        return "nan" if v is None else f"{v:.2f}"

    lines = [
        "",
        "Every usable row out of sample (held-out rows by the committed fit, training rows out of fold; "
        "the training rows also chose the model's terms, so lean optimistic), median / p90 (%):",
        "",
    ]
    lines.append(f"{'':9}{'group':13}{'n':>5}" + "".join(f"{'seed ' + str(r.seed):>16}" for r in results))
    for test, group, key in GROUPS:
        cells = "".join(f"{f(r.stats[key].median):>8}/{f(r.stats[key].p90):<7}" for r in results)
        lines.append(f"{'decode' if test == 'tg' else 'prefill':9}{group:13}{results[0].stats[key].n:5d}{cells}")
    lines.append("")
    lines.append(
        "depth-0 decode p90, 5th-95th percentile over resampled configurations: held-out rows alone "
        f"{held_interval[0]:.1f}-{held_interval[1]:.1f} %; every row "
        + ", ".join(f"seed {r.seed} {r.depth0_interval[0]:.1f}-{r.depth0_interval[1]:.1f} %" for r in results)
    )
    return "\n".join(line.rstrip() for line in lines)
