"""The shaded zones along a plot's x axis, from the curve's own boundaries: the offload cliff (past fast
memory), where weights stream from disk (past host RAM, llama.cpp's mmap), and where nothing runs.
Each zone's name stays inside its zone."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QPen

from advisor.core.curves import Curve
from advisor.ui import theme
from advisor.ui.plots.geometry import log10
from advisor.ui.plots.labels import Label

CLIFF_TEXT, DISK_TEXT, NO_RUN_TEXT = "offload cliff →", "streams from disk", "does not run"
DISK_SHORT = "disk"
DISK_DROP = 0.3  # decades below the top: under the cliff's name


def zones(
    c: Curve, end: float, y_hi: float, cliff_pen: QPen
) -> tuple[list[tuple[float, float, QBrush, QPen | None]], list[Label]]:
    """(spans in log10 x, their labels) for the curve `c`; `end` lies past the view's right edge."""

    def at(x: float | None) -> float:
        return log10(x) if x else end

    # the disk zone starts past the cliff (weights reach disk only once they spill) and ends where
    # nothing runs; a disk zone that starts at the cliff leaves no room for the cliff's own name
    disk_x = c.disk_x if c.disk_x is not None and (c.no_run_x is None or c.disk_x < c.no_run_x) else None
    spans: list[tuple[float, float, QBrush, QPen | None]] = []
    if c.cliff_x is not None:
        spans.append((log10(c.cliff_x), at(c.no_run_x), theme.CLIFF_BRUSH, cliff_pen))
    if disk_x is not None:
        spans.append((log10(disk_x), at(c.no_run_x), theme.DISK_BRUSH, None))
    if c.no_run_x is not None:
        spans.append((log10(c.no_run_x), end, theme.NO_RUN_BRUSH, None))
    labels = []
    # the cliff's name may run on into the disk zone (that is past the cliff too); the disk's sits under it
    for start, stop, text, color, bold, dy in (
        (c.cliff_x, c.no_run_x, CLIFF_TEXT, theme.CLIFF, True, 0.0),
        (disk_x, c.no_run_x, DISK_TEXT, theme.DISK_TEXT, True, DISK_DROP),
        (c.no_run_x, None, NO_RUN_TEXT, theme.AXIS, False, 0.4),
    ):
        if start is not None:
            zone = (log10(start), at(stop))
            labels.append(Label(zone[0], y_hi - dy, f" {text} ", color, (0.0, 0.0), bold, zone=zone))
            if text == DISK_TEXT:  # a narrow disk zone still says what it is, in one word
                labels.append(Label(zone[0], y_hi - dy, f" {DISK_SHORT} ", color, (0.0, 0.0), bold, True, zone))
    return spans, labels
