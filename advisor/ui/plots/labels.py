"""Plot labels drawn by one item in screen pixels.

A pyqtgraph TextItem is a rich-text document that re-computes its transform whenever the view
changes; a plot needs a dozen plain labels, so one item draws them all with drawText."""

from __future__ import annotations

from typing import NamedTuple

import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStaticText, QTransform

from advisor.ui import theme
from advisor.ui.plots.spans import ViewOverlay


def readout_item() -> pg.TextItem:
    """The hover readout's box (hidden until the mouse is over the data): exact values, which need
    a multi-line text item rather than a Label."""
    item = pg.TextItem(
        "", color=theme.AXIS, anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 230), border=pg.mkPen(theme.GRID)
    )
    item.setFont(QFont(theme.FONT, theme.SMALL_PT))
    item.setZValue(100)
    item.hide()
    return item


HALO = QColor(255, 255, 255)
HALO_OFFSETS = ((-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0))


class Label(NamedTuple):
    x: float  # view coordinates (log10 on log axes)
    y: float
    text: str
    color: str
    anchor: tuple[float, float] = (0.0, 0.0)  # (0, 0): the text's top-left at (x, y); (1, 1): bottom-right
    bold: bool = False
    optional: bool = False  # left out where it would overlap a label that is not
    zone: tuple[float, float] | None = None  # view x range the text must stay inside; left out when too narrow


class Box(NamedTuple):
    """A label's text rectangle in device pixels."""

    x: float
    y: float
    w: float
    h: float

    def overlaps(self, o: Box) -> bool:
        return self.x < o.x + o.w and o.x < self.x + self.w and self.y < o.y + o.h and o.y < self.y + self.h


class Labels(ViewOverlay):
    def __init__(self, point_size: float) -> None:
        super().__init__()
        self.labels: list[Label] = []
        self.point_size = point_size
        self._fonts: dict[tuple[float, bool], tuple[QFont, QFontMetricsF]] = {}
        self._texts: dict[tuple[str, bool, float], tuple[QStaticText, float, float]] = {}
        self.avoid: list[Labels] = []  # other label items in the same view whose text optional labels avoid
        self.version = 0  # counts changes of the labels or their size, for the placement cache below
        # Where the labels went, for one device transform: most repaints (a marker moving) change neither.
        self._placed: tuple[tuple[object, ...], list[tuple[Label, Box]]] | None = None
        self._rects: tuple[tuple[object, ...], list[tuple[Label, Box]]] | None = None

    def set_labels(self, labels: list[Label]) -> None:
        if labels != self.labels:
            self.prepareGeometryChange()
            self.labels = labels
            self.version += 1
            self.update()

    def scale(self, factor: float) -> None:  # type: ignore[override]
        self.point_size *= factor
        self.version += 1
        self.update()

    def _font(self, bold: bool) -> tuple[QFont, QFontMetricsF]:
        key = (self.point_size, bold)
        if key not in self._fonts:
            font = QFont("DejaVu Sans")
            font.setPointSizeF(self.point_size)
            font.setBold(bold)
            self._fonts[key] = (font, QFontMetricsF(font))
        return self._fonts[key]

    def _static(self, text: str, bold: bool) -> tuple[QStaticText, float, float]:
        """Laid-out text, kept between repaints (labels repaint far more often than they change)."""
        key = (text, bold, self.point_size)
        if key not in self._texts:
            font, metrics = self._font(bold)
            static = QStaticText(text)
            static.prepare(QTransform(), font)
            self._texts[key] = (static, metrics.horizontalAdvance(text) + 2, metrics.height())
            if len(self._texts) > 500:
                self._texts.pop(next(iter(self._texts)))
        return self._texts[key]

    def rects(self, to_device: QTransform) -> list[tuple[Label, Box]]:
        """Where each label's text lands, in device pixels (kept while neither changes: another
        item's labels avoid these on every repaint of theirs). Plain floats: a Qt point and rect per
        label cost more than the arithmetic."""
        t = to_device
        m11, m12, m21, m22, dx, dy = t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()
        key = (m11, m12, m21, m22, dx, dy, self.version)
        if self._rects is not None and self._rects[0] == key:
            return self._rects[1]
        out = []
        for lab in self.labels:
            _, w, h = self._static(lab.text, lab.bold)
            x, y = m11 * lab.x + m21 * lab.y + dx, m12 * lab.x + m22 * lab.y + dy
            out.append((lab, Box(x - lab.anchor[0] * w, y - lab.anchor[1] * h, w, h)))
        self._rects = (key, out)
        return out

    def placed(self, to_device: QTransform) -> list[tuple[Label, Box]]:
        """The labels that are drawn and where: optional ones give way to the others and to the
        labels of other items in the same view (`avoid`)."""
        t = to_device
        key = (
            t.m11(),
            t.m12(),
            t.m21(),
            t.m22(),
            t.dx(),
            t.dy(),
            self.version,
            *(other.version for other in self.avoid),
        )
        if self._placed is not None and self._placed[0] == key:
            return self._placed[1]
        taken = [box for other in self.avoid for _, box in other.rects(to_device)]
        view = self.viewRect()
        right = to_device.mapRect(view).right() if view is not None else float("inf")
        placed: list[tuple[Label, Box]] = []
        for lab, box in sorted(self.rects(to_device), key=lambda lb: lb[0].optional):  # must-show ones first
            if lab.zone is not None:  # a shaded zone's name: inside the zone, or not at all
                lo, hi = (to_device.map(QPointF(x, lab.y)).x() for x in lab.zone)
                hi = min(hi, right)
                if box.w > hi - lo:
                    continue
                box = box._replace(x=min(max(box.x, lo), hi - box.w))
            elif box.x + box.w > right:  # would be cut off at the plot's right edge
                if lab.optional:
                    continue  # a name cut mid-word reads worse than none (hovering a point names it)
                box = box._replace(x=box.x + lab.anchor[0] * box.w - box.w)  # left of its point instead
            if lab.optional and any(box.overlaps(other) for other in taken):
                continue
            placed.append((lab, box))
            taken.append(box)
        self._placed = (key, placed)
        return placed

    def paint(self, p: QPainter, *args: object) -> None:
        placed = self.placed(p.transform())
        p.save()
        p.resetTransform()
        for bold in (False, True):
            p.setFont(self._font(bold)[0])
            # A halo first: the text drawn a pixel off each way in the background colour, so a curve or
            # the threshold line running through a label is cut around its letters, not across them.
            p.setPen(HALO)
            for lab, box in placed:
                if lab.bold == bold:
                    static = self._static(lab.text, bold)[0]
                    for dx, dy in HALO_OFFSETS:
                        p.drawStaticText(QPointF(round(box.x) + dx, round(box.y) + dy), static)
            color = ""
            for lab, box in placed:
                if lab.bold == bold:
                    if lab.color != color:
                        color = lab.color
                        p.setPen(QColor(color))
                    # on whole pixels, so a cached repaint and a fresh one shade the glyphs alike
                    p.drawStaticText(QPointF(round(box.x), round(box.y)), self._static(lab.text, bold)[0])
        p.restore()
