"""Numbers as a person reads them in shown work: three significant figures, thousands separated."""

from __future__ import annotations

import math


def num(x: float, sig: int = 3) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(sig - 1 - mag, 0)
    return f"{x:,.{decimals}f}"


def pct(x: float) -> str:
    return f"{x * 100:.0f} %"
