"""One tok/s plot in a widget of its own (slide exports, the command line's plot), and small helpers the
plots share."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from advisor.core.feel import Feel
from advisor.ui import theme
from advisor.ui.plots.base import TokPlot


def feel_color(feel: Feel) -> QColor:
    return theme.FEEL_COLOR[feel]


class PlotView(pg.GraphicsView):
    """One plot in a widget of its own (slide exports, the command line's plot)."""

    def __init__(self, plot: TokPlot, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background=theme.BACKGROUND)
        self.plot = plot
        self.setCentralItem(plot)
