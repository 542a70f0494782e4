"""Plot labels drawn by one item in screen pixels.

A pyqtgraph TextItem is a rich-text document that re-computes its transform whenever the view
changes; a plot needs a dozen plain labels, so one item draws them all with drawText."""

from __future__ import annotations

from typing import NamedTuple

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter


class Label(NamedTuple):
    x: float  # view coordinates (log10 on log axes)
    y: float
    text: str
    color: str
    anchor: tuple[float, float] = (0.0, 0.0)  # (0, 0): the text's top-left at (x, y); (1, 1): bottom-right
    bold: bool = False


class Labels(pg.GraphicsObject):
    def __init__(self, point_size: float) -> None:
        super().__init__()
        self.labels: list[Label] = []
        self.point_size = point_size

    def set_labels(self, labels: list[Label]) -> None:
        if labels != self.labels:
            self.prepareGeometryChange()
            self.labels = labels
            self.update()

    def scale(self, factor: float) -> None:  # type: ignore[override]
        self.point_size *= factor
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        view = self.viewRect()
        return QRectF() if view is None else view

    def viewRangeChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        self.prepareGeometryChange()

    def paint(self, p: QPainter, *args: object) -> None:
        to_device = p.transform()
        p.save()
        p.resetTransform()
        for bold in (False, True):
            font = QFont("DejaVu Sans")
            font.setPointSizeF(self.point_size)
            font.setBold(bold)
            p.setFont(font)
            metrics = QFontMetricsF(font)
            for lab in self.labels:
                if lab.bold != bold:
                    continue
                at = to_device.map(QPointF(lab.x, lab.y))
                w, h = metrics.horizontalAdvance(lab.text) + 2, metrics.height()
                p.setPen(QColor(lab.color))
                p.drawText(QRectF(at.x() - lab.anchor[0] * w, at.y() - lab.anchor[1] * h, w, h), lab.text)
        p.restore()
