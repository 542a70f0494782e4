"""Log axes with a few friendly ticks (512, 1k, 2k … or 1, 3, 10, 30 …) instead of pyqtgraph's crowded minor labels."""

from __future__ import annotations

import math

import pyqtgraph as pg

# Mantissas for the 1-3-10 ladder; the binary ladder doubles.
DECADE_STEPS = (1.0, 2.0, 5.0)


def friendly(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    if value >= 1:
        return f"{value:g}"
    return f"{value:.2g}"


def decade_ticks(lo: float, hi: float, steps: tuple[float, ...] = DECADE_STEPS) -> list[float]:
    out = []
    for e in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in steps:
            v = m * 10.0**e
            if 10**lo <= v <= 10**hi:
                out.append(v)
    return out


def binary_ticks(lo: float, hi: float) -> list[float]:
    start, stop = math.floor(lo / math.log10(2)), math.ceil(hi / math.log10(2))
    vals = [2.0**k for k in range(start, stop + 1) if 10**lo <= 2.0**k <= 10**hi]
    while len(vals) > 9:  # keep labels readable on narrow plots: every other power of two
        vals = vals[::2]
    return vals


class LogAxis(pg.AxisItem):
    """An axis in log10 view coordinates that labels real values."""

    def __init__(self, orientation: str, binary: bool = False, **kw: object) -> None:
        super().__init__(orientation, **kw)
        self.binary = binary

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:  # noqa: N802,N803
        lo, hi = sorted((minVal, maxVal))
        vals = binary_ticks(lo, hi) if self.binary else decade_ticks(lo, hi)
        if not self.binary and len(vals) > 10:
            vals = decade_ticks(lo, hi, (1.0, 3.0))
        return [(1.0, [math.log10(v) for v in vals])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        if self.binary:
            return [binary_label(10.0**v) for v in values]
        return [friendly(10.0**v) for v in values]


def binary_label(value: float) -> str:
    """Token counts as people say them: 512, 1k, 4k, 128k, 1M (powers of two)."""
    v = round(value)
    if v >= 1 << 20:
        return f"{v / (1 << 20):g}M"
    if v >= 1024:
        return f"{v / 1024:g}k"
    return f"{v:g}"
