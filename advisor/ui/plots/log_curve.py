"""A line on log–log axes, drawn as polylines in device pixels.

pyqtgraph's PlotCurveItem serves every kind of curve (fills, shadows, segments, downsampling) and
recomputes its pixel-padded bounds whenever the scene asks, which it does many times per repaint.
A plot here needs a plain line with gaps where the model does not run: this item keeps its bounds
from the data, pads them by its pen width in pixels once per view change, and paints in one pass."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPen

from advisor.ui.plots.spans import to_device


def finite_runs(ok: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """[start, stop) index pairs of the runs of True in `ok` (a NaN breaks the line)."""
    edges = np.diff(np.concatenate([[0], ok.astype(np.int8), [0]]))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), stops.tolist(), strict=True))


class LogCurve(pg.GraphicsObject):
    """Keeps the data as given (for readouts and tests) and draws its log10."""

    def __init__(self, pen: QPen) -> None:
        super().__init__()
        self.pen = pen
        self.opts = {"pen": pen, "antialias": False}  # what a legend sample reads
        self.data_xy: tuple[NDArray[np.float64], NDArray[np.float64]] = (np.zeros(0), np.zeros(0))
        self._xy = np.zeros((0, 2))
        self._runs: list[tuple[int, int]] = []
        self._data_rect = QRectF()
        self._bounds: QRectF | None = None  # data rect padded by the pen, for the current view
        self._pad: tuple[float, float] | None = None  # half the pen in view units: once per view change

    def set_xy(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> None:
        self.data_xy = (x, y)
        with np.errstate(divide="ignore", invalid="ignore"):
            lx, ly = np.log10(x), np.log10(y)
        ok = np.isfinite(lx) & np.isfinite(ly)
        self.prepareGeometryChange()
        self._xy = np.column_stack([lx, ly])
        self._runs = [(a, b) for a, b in finite_runs(ok) if b - a >= 2]
        if ok.any():  # (1-d reductions: along an axis of an (n, 2) array they cost several times more)
            ox, oy = lx[ok], ly[ok]
            x0, x1, y0, y1 = ox.min(), ox.max(), oy.min(), oy.max()
            self._data_rect = QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._data_rect = QRectF()
        self._bounds = None
        self.update()

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        super().viewTransformChanged()
        self.prepareGeometryChange()
        self._bounds = self._pad = None

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        if self._bounds is None:
            rect = QRectF(self._data_rect)
            if self._pad is None:
                px = self.pixelVectors()
                if px is not None and px[0] is not None:
                    half = self.pen.widthF() / 2 + 1
                    self._pad = (abs(px[0].x()) * half, abs(px[1].y()) * half)
            if not rect.isNull() and self._pad is not None:
                dx, dy = self._pad
                rect.adjust(-dx, -dy, dx, dy)
            view = self.viewRect()
            # The view clips what it draws: bounds past it would only make the axes repaint too.
            self._bounds = rect.intersected(view) if view is not None else rect
        return self._bounds

    def paint(self, p: QPainter, *args: object) -> None:
        if not self._runs:
            return
        dev_x, dev_y = to_device(p, self._xy)
        p.save()
        p.resetTransform()
        if self.opts["antialias"]:
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(self.pen)
        for a, b in self._runs:
            p.drawPolyline(pg.functions.arrayToQPolygonF(dev_x[a:b], dev_y[a:b]))
        p.restore()
