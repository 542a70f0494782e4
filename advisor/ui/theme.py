"""Colours and type for a light, projector-readable look (the same theme exports to slides).

Okabe–Ito colours, which stay distinct for the common forms of colour blindness."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor

from advisor.core.feel import Feel

FONT = "DejaVu Sans"
TICK_PT = 10
SMALL_PT = 9
TITLE_PT = 12

BACKGROUND = "#ffffff"
AXIS = "#222222"
GRID = "#888888"
REALISTIC = "#0072B2"  # blue
AGGREGATE = "#009E73"  # bluish green
CEILING = "#555555"
THRESHOLD = "#000000"
CLIFF = "#D55E00"  # vermillion
POINTS = "#CC79A7"  # reddish purple
PUBLISHED = "#000000"  # hollow squares: published measurements
FEEL_TEXT = "#6b6b6b"

# Machines in compare mode, in order (Okabe–Ito without yellow, which vanishes on white).
SERIES = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")

FEEL_COLOR: dict[Feel, QColor] = {
    Feel.BROKEN: QColor(213, 94, 0),
    Feel.PAINFUL: QColor(230, 159, 0),
    Feel.CHAT: QColor(240, 228, 66),
    Feel.SNAPPY: QColor(86, 180, 233),
    Feel.INSTANT: QColor(0, 158, 115),
}


def over_white(c: QColor, alpha: float) -> QColor:
    """The colour `c` at `alpha` blended onto white, as an opaque colour: opaque fills paint several
    times faster than translucent ones, and the bands sit behind everything anyway."""
    return QColor(*(round(255 + (v - 255) * alpha) for v in (c.red(), c.green(), c.blue())))


FEEL_BRUSH = {f: pg.mkBrush(over_white(c, 0.11)) for f, c in FEEL_COLOR.items()}
BAND_BRUSH = pg.mkBrush(over_white(QColor(REALISTIC), 0.25))
CLIFF_BRUSH = pg.mkBrush(over_white(QColor(CLIFF), 0.20))
NO_RUN_BRUSH = pg.mkBrush(over_white(QColor(60, 60, 60), 0.30))
# Past host RAM, weights stream from disk: a deeper shade of the cliff's vermillion.
DISK_TEXT = "#8F3A00"
DISK_BRUSH = pg.mkBrush(over_white(QColor(CLIFF), 0.45))
ALTERNATIVE = REALISTIC  # the best other placement: the realistic line's colour, dashed and thinner
