"""Error statistics: absolute percentage error, its median and 90th percentile, per group of rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from advisor.validation.cases import KINDS, Case

TESTS = {"tg": "decode", "pp": "prefill"}


def ape(predicted: NDArray[np.float64], measured: NDArray[np.float64]) -> NDArray[np.float64]:
    """|predicted ÷ measured − 1| in per cent (a prediction of 0 counts as 100 %)."""
    return np.abs(np.asarray(predicted, float) / np.asarray(measured, float) - 1.0) * 100.0


@dataclass(frozen=True)
class ErrorStats:
    n: int
    median: float | None
    p90: float | None

    @staticmethod
    def of(errors: NDArray[np.float64]) -> ErrorStats:
        if errors.size == 0:
            return ErrorStats(0, None, None)
        return ErrorStats(int(errors.size), float(np.median(errors)), float(np.percentile(errors, 90)))

    def as_dict(self) -> dict[str, float | int | None]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 2)

        return {"n": self.n, "median_pct": r(self.median), "p90_pct": r(self.p90)}


def _kind_is(kind: str) -> Callable[[Case], bool]:
    return lambda c: c.kind == kind


def _class_is(value: str) -> Callable[[Case], bool]:
    return lambda c: c.hw_class.value == value


def _engine_is(value: str) -> Callable[[Case], bool]:
    return lambda c: c.engine.value == value


# Groups reported for each test: all rows, each kind of row, MoE rows, and each hardware class.
def groups(cases: Sequence[Case]) -> list[tuple[str, Callable[[Case], bool]]]:
    out: list[tuple[str, Callable[[Case], bool]]] = [("all", lambda c: True)]
    out += [(k, _kind_is(k)) for k in KINDS]
    out.append(("MoE", lambda c: c.moe))
    classes = sorted({c.hw_class.value for c in cases})
    out += [(f"class {k}", _class_is(k)) for k in classes]
    engines = sorted({c.engine.value for c in cases})
    out += [(f"engine {e}", _engine_is(e)) for e in engines]
    return out


def group_table(
    cases: Sequence[Case], predictions: dict[str, NDArray[np.float64]], mask: NDArray[np.bool_] | None = None
) -> list[dict[str, object]]:
    """One row per (test, group): n and median/p90 APE for each named prediction set."""
    measured = np.array([c.measured for c in cases], dtype=float)
    base = np.ones(len(cases), bool) if mask is None else mask
    errors = {name: ape(p, measured) for name, p in predictions.items()}
    rows: list[dict[str, object]] = []
    for test, label in TESTS.items():
        is_test = np.array([c.test == test for c in cases]) & base
        for gname, pred in groups(cases):
            m = is_test & np.array([pred(c) for c in cases], dtype=bool)
            if not m.any():
                continue
            row: dict[str, object] = {"test": label, "group": gname, "n": int(m.sum())}
            for name, e in errors.items():
                row[name] = ErrorStats.of(e[m]).as_dict()
            rows.append(row)
    return rows
