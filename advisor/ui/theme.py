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
BAND_BRUSH = pg.mkBrush(0, 114, 178, 60)
CLIFF_BRUSH = pg.mkBrush(213, 94, 0, 45)
NO_RUN_BRUSH = pg.mkBrush(60, 60, 60, 70)
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
FEEL_BRUSH = {f: pg.mkBrush(c.red(), c.green(), c.blue(), 28) for f, c in FEEL_COLOR.items()}
