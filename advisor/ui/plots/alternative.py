"""The best other placement's curve, dashed beside the chosen one where the chosen one spills and the
two differ, named in the legend by its placement (e.g. "experts (--n-cpu-moe)"; a label on the line
would land on the legend or the chosen line as often as not). The curve is the core's
(advisor.core.curves.alternative); this only draws it."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from advisor.core.curves import Alternative
from advisor.ui import theme
from advisor.ui.plots.geometry import cache_pixmaps
from advisor.ui.plots.log_curve import LogCurve


class AlternativeLine(LogCurve):
    def __init__(self) -> None:
        super().__init__(pg.mkPen(theme.ALTERNATIVE, width=2, style=Qt.PenStyle.DashLine))
        self.alternative: Alternative | None = None
        self._named: str | None = None  # the name it has in the legend, while it is drawn

    def show_alternative(self, alt: Alternative | None, legend: pg.LegendItem) -> None:
        """Draw `alt` where it is shown (nothing for None) and name it in the legend while it is drawn."""
        self.alternative = alt
        if alt is None:
            self.set_xy(np.zeros(0), np.zeros(0))
        else:
            c = alt.curve
            self.set_xy(c.x, np.where(alt.shown & (c.decode > 0), c.decode, np.nan))
        name = alt.label if self._runs and alt is not None else None
        if name != self._named:  # re-laying out the legend costs more than the line: only when its name changes
            self._named = name
            legend.removeItem(self)
            if name is not None:
                legend.addItem(self, name)
                cache_pixmaps(*legend.items[-1])

    def readout(self, i: int) -> str:
        """The alternative's speed at point i of the same sweep, for the hover readout ('' where not shown)."""
        alt = self.alternative
        if alt is None or i >= len(alt.shown) or not alt.shown[i]:
            return ""
        return f"\n{alt.curve.decode[i]:.1f} tok/s with {alt.label}"
