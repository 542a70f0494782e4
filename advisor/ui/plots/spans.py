"""Shaded spans (interactivity bands, the offload cliff) as one light item per plot.

pyqtgraph's LinearRegionItem is interactive: two draggable lines and hover logic per region, which
costs more to repaint than the fill itself. These spans only fill rectangles, in view coordinates
(log10 on log axes)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap


def to_device(p: QPainter, xy: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points in the painter's (view) coordinates mapped to device pixels with numpy: drawing them
    after resetTransform() costs far less than letting Qt map a path through the view's scale."""
    t = p.transform()
    x, y = xy[:, 0], xy[:, 1]
    return t.m11() * x + t.m21() * y + t.dx(), t.m12() * x + t.m22() * y + t.dy()


class ViewOverlay(pg.GraphicsObject):
    """An item that draws over the whole visible view (its bounds follow the view range)."""

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        view = self.viewRect()
        return QRectF() if view is None else view

    def viewRangeChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        self.prepareGeometryChange()


class Spans(ViewOverlay):
    def __init__(self, horizontal: bool) -> None:
        super().__init__()
        self.horizontal = horizontal  # True: spans of y (bands across the plot); False: spans of x
        self.spans: list[tuple[float, float, QBrush, QPen | None]] = []

    def set_spans(self, spans: list[tuple[float, float, QBrush, QPen | None]]) -> None:
        if spans != self.spans:
            self.prepareGeometryChange()
            self.spans = spans
            self.update()

    def paint(self, p: QPainter, *args: object) -> None:
        view = self.viewRect()
        if view is None:
            return
        for lo, hi, brush, edge in self.spans:
            if self.horizontal:
                rect = QRectF(view.left(), lo, view.width(), hi - lo)
            else:
                rect = QRectF(lo, view.top(), hi - lo, view.height())
            p.fillRect(rect.intersected(view), brush)
            if edge is not None:
                p.setPen(edge)
                p.drawLine(
                    QLineF(lo, view.top(), lo, view.bottom())
                    if not self.horizontal
                    else QLineF(view.left(), lo, view.right(), lo)
                )


class Grid(ViewOverlay):
    """Grid lines at the axes' ticks, drawn inside the view.

    pyqtgraph draws its grid from the axis items, which makes every axis cover the whole plot: any
    change inside the view then repaints both axes too."""

    def __init__(self, x_axis: pg.AxisItem, y_axis: pg.AxisItem, pen: QPen) -> None:
        super().__init__()
        self.axes = (x_axis, y_axis)
        self.pen = pen
        self._lines: tuple[QRectF, list[QLineF]] | None = None  # for the view they were made for

    def _lines_for(self, view: QRectF) -> list[QLineF]:
        if self._lines is None or self._lines[0] != view:  # ticks move only when the range does
            x_axis, y_axis = self.axes
            lines = [
                QLineF(x, view.top(), x, view.bottom())
                for _, xs in x_axis.tickValues(view.left(), view.right(), view.width())
                for x in xs
            ]
            lines += [
                QLineF(view.left(), y, view.right(), y)
                for _, ys in y_axis.tickValues(view.top(), view.bottom(), view.height())
                for y in ys
            ]
            self._lines = (QRectF(view), lines)
        return self._lines[1]

    def paint(self, p: QPainter, *args: object) -> None:
        view = self.viewRect()
        if view is None:
            return
        p.setPen(self.pen)
        p.drawLines(self._lines_for(view))


class Dot(pg.GraphicsObject):
    """One round marker of a fixed pixel size at a point in view coordinates (a scatter item's
    machinery is heavy for a single point that moves on every edit)."""

    def __init__(self, brush: QBrush, radius_px: float = 6.0) -> None:
        super().__init__()
        self.brush = brush
        self.radius = radius_px
        self.at: tuple[float, float] | None = None
        self._half: tuple[float, float] | None = None
        self._sprites: dict[float, QPixmap] = {}

    def set_point(self, at: tuple[float, float] | None) -> None:
        if at != self.at:
            self.prepareGeometryChange()
            self.at = at
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        if self.at is None:
            return QRectF()
        if self._half is None:  # the dot's half size in view units: once per view change
            px = self.pixelVectors()
            if px is None or px[0] is None:
                return QRectF()
            self._half = (abs(px[0].x()) * (self.radius + 2), abs(px[1].y()) * (self.radius + 2))
        w, h = self._half
        return QRectF(self.at[0] - w, self.at[1] - h, 2 * w, 2 * h)

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        super().viewTransformChanged()
        self.prepareGeometryChange()
        self._half = None

    def _sprite(self, ratio: float) -> QPixmap:
        """The dot drawn once per device pixel ratio; each repaint then blits it (drawing an
        antialiased circle with an outline costs several times more)."""
        if self._sprites.get(ratio) is None:
            side = 2 * math.ceil(self.radius + 2)
            pix = QPixmap(round(side * ratio), round(side * ratio))
            pix.setDevicePixelRatio(ratio)
            pix.fill(Qt.GlobalColor.transparent)
            q = QPainter(pix)
            q.setRenderHint(QPainter.RenderHint.Antialiasing)
            q.setPen(QPen(QColor("white"), 2))
            q.setBrush(self.brush)
            q.drawEllipse(QPointF(side / 2, side / 2), self.radius, self.radius)
            q.end()
            self._sprites[ratio] = pix
        return self._sprites[ratio]

    def paint(self, p: QPainter, *args: object) -> None:
        if self.at is None:
            return
        centre = p.transform().map(QPointF(*self.at))
        sprite = self._sprite(p.device().devicePixelRatioF())
        half = sprite.deviceIndependentSize().width() / 2
        p.save()
        p.resetTransform()
        p.drawPixmap(QPointF(round(centre.x() - half), round(centre.y() - half)), sprite)
        p.restore()


class Band(pg.GraphicsObject):
    """A filled band between two curves, drawn as one polygon in device pixels.

    Filling a path in log10 view coordinates (QGraphicsPathItem) re-transforms and re-rasterizes it
    through the view's non-uniform scale on every repaint; mapping the vertices with numpy first is
    several times cheaper."""

    def __init__(self, brush: QBrush) -> None:
        super().__init__()
        self.brush = brush
        self.xy = np.zeros((0, 2))
        self._bounds = QRectF()

    def set_outline(self, xs: NDArray[np.float64], ys: NDArray[np.float64]) -> None:
        """The closed outline in view coordinates (log10 on log axes)."""
        self.prepareGeometryChange()
        self.xy = np.column_stack([xs, ys])
        ok = np.isfinite(xs) & np.isfinite(ys)
        if ok.any():  # 1-d reductions: along an axis of an (n, 2) array they cost several times more
            fx, fy = xs[ok], ys[ok]
            x0, x1, y0, y1 = fx.min(), fx.max(), fy.min(), fy.max()
            self._bounds = QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(self, p: QPainter, *args: object) -> None:
        if len(self.xy) < 3:
            return
        dev_x, dev_y = to_device(p, self.xy)
        p.save()
        p.resetTransform()
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self.brush)
        p.drawPolygon(pg.functions.arrayToQPolygonF(dev_x, dev_y))
        p.restore()
