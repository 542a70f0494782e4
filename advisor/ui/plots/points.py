"""Marker symbols at data points, drawn as one path in device pixels.

pyqtgraph's scatter item serves every kind of scatter (per-point styles, hover, picking) and
re-derives all of it on each repaint; a plot here shows a few dozen diamonds of one style. The
diamonds are built once per data or view change and then filled in one call."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen, QPolygonF

from advisor.ui.plots.spans import to_device


class Points(pg.GraphicsObject):
    """Diamonds (or squares) of `size` pixels at (x, y) given in data units, drawn on log–log axes."""

    def __init__(self, brush: QBrush, pen: QPen, size: float, square: bool = False) -> None:
        super().__init__()
        self.brush, self.pen, self.size, self.square = brush, pen, size, square
        self.opts = {
            "pen": pen,
            "brush": brush,
            "symbol": "s" if square else "d",
            "size": size,
            "antialias": True,
        }  # legend sample
        self.data_xy: tuple[NDArray[np.float64], NDArray[np.float64]] = (np.zeros(0), np.zeros(0))
        self._xy = np.zeros((0, 2))
        self._half: tuple[float, float] | None = None  # half a symbol in view units, per view change
        self._path: tuple[tuple[float, ...], QPainterPath] | None = None  # device path, per transform

    def setData(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> None:  # noqa: N802 - pyqtgraph's name
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        ok = (x > 0) & (y > 0)
        self.prepareGeometryChange()
        self.data_xy = (x[ok], y[ok])
        self._xy = np.column_stack([np.log10(x[ok]), np.log10(y[ok])])
        self._path = None
        self.setVisible(bool(ok.any()))  # an empty item still costs the scene a visit per repaint
        self.update()

    def set_size(self, size: float) -> None:
        """Symbols `size` pixels across (slides draw them bigger)."""
        self.prepareGeometryChange()
        self.size = self.opts["size"] = size
        self._half = None
        self._path = None
        self.update()

    def view_xy(self) -> list[tuple[float, float]]:
        """The points in view coordinates (log10 of each axis), in data order."""
        return [(float(a), float(b)) for a, b in self._xy]

    def getData(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:  # noqa: N802 - pyqtgraph's name
        return self.data_xy

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        super().viewTransformChanged()
        self.prepareGeometryChange()
        self._half = None

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        if not len(self._xy):
            return QRectF()
        if self._half is None:
            px = self.pixelVectors()
            if px is None or px[0] is None:
                return QRectF()
            reach = self.size / 2 + self.pen.widthF() + 1
            self._half = (abs(px[0].x()) * reach, abs(px[1].y()) * reach)
        (x0, y0), (x1, y1) = self._xy.min(axis=0), self._xy.max(axis=0)
        w, h = self._half
        return QRectF(x0 - w, y0 - h, x1 - x0 + 2 * w, y1 - y0 + 2 * h)

    def paint(self, p: QPainter, *args: object) -> None:
        if not len(self._xy):
            return
        t = p.transform()
        key = (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())
        if self._path is None or self._path[0] != key:
            dev_x, dev_y = to_device(p, self._xy)
            r = self.size / 2
            path = QPainterPath()
            path.setFillRule(Qt.FillRule.WindingFill)  # two models at one spot: still a filled diamond
            for cx, cy in zip(dev_x.tolist(), dev_y.tolist(), strict=True):
                if self.square:
                    path.addRect(QRectF(cx - r, cy - r, 2 * r, 2 * r))
                else:
                    path.addPolygon(
                        QPolygonF(
                            [
                                QPointF(cx, cy - r),
                                QPointF(cx + r, cy),
                                QPointF(cx, cy + r),
                                QPointF(cx - r, cy),
                                QPointF(cx, cy - r),
                            ]
                        )
                    )
            self._path = (key, path)
        p.save()
        p.resetTransform()
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(self.pen)
        p.setBrush(self.brush)
        p.drawPath(self._path[1])
        p.restore()
