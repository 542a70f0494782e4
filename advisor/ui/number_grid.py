"""Name/value rows painted by one widget.

A grid of QLabels re-lays out its dock on every new number (each setText posts a layout request),
and a slider drag changes every number on every step. This widget has a fixed height, so new values
only repaint the rows that changed. Each row keeps its tooltip, and the numbers copy as text
(right-click, or Ctrl+C once clicked)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import (
    QAction,
    QColor,
    QContextMenuEvent,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QHelpEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import QMenu, QSizePolicy, QToolTip, QWidget

ROW_PAD = 4  # pixels between rows
COLUMN_GAP = 12  # pixels between the name and the value


@dataclass
class Row:
    key: str
    title: str
    tip: str
    bold: bool = False
    value: str = ""
    color: QColor | None = None  # None: the palette's text colour


class NumberGrid(QWidget):
    def __init__(
        self, rows: list[tuple[str, str, str]], bold: tuple[str, ...] = (), parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.rows = [Row(key, title, tip, key in bold) for key, title, tip in rows]
        self._index = {r.key: i for i, r in enumerate(self.rows)}
        self._bold = QFont(self.font())
        self._bold.setBold(True)
        metrics = self.fontMetrics()
        self._row_h = metrics.height() + ROW_PAD
        self._name_w = max(metrics.horizontalAdvance(r.title) for r in self.rows) + COLUMN_GAP
        self.setFixedHeight(self._row_h * len(self.rows))
        self._titles = [QStaticText(r.title) for r in self.rows]  # laid out once: the names never change
        for t in self._titles:
            t.setTextFormat(Qt.TextFormat.PlainText)
            t.prepare(QTransform(), self.font())
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(self._name_w + 120)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        copy = QAction("Copy numbers", self)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self.copy)
        self.addAction(copy)
        self._copy = copy

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self._name_w + 260, self.height())

    # --- values ---------------------------------------------------------------------------
    def set_value(self, key: str, text: str, color: QColor | None = None) -> None:
        i = self._index[key]
        row = self.rows[i]
        if row.value != text or row.color != color:
            row.value, row.color = text, color
            self.update(self._row_rect(i))

    def value(self, key: str) -> str:
        return self.rows[self._index[key]].value

    def as_text(self) -> str:
        return "\n".join(f"{r.title}: {r.value}" for r in self.rows)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.as_text())

    # --- drawing and events ---------------------------------------------------------------
    def _row_rect(self, i: int) -> QRect:
        return QRect(0, i * self._row_h, self.width(), self._row_h)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        # Plain drawText at a baseline: the rectangle-and-flags form lays every string out again.
        p = QPainter(self)
        text = self.palette().windowText().color()
        plain, bold = self.fontMetrics(), QFontMetrics(self._bold)
        value_w = self.width() - self._name_w
        for i, row in enumerate(self.rows):
            rect = self._row_rect(i)
            if not rect.intersects(event.rect()):
                continue
            metrics = bold if row.bold else plain
            baseline = rect.top() + (rect.height() + metrics.ascent() - metrics.descent()) // 2
            p.setFont(self.font())
            p.setPen(text)
            p.drawStaticText(QPoint(0, rect.top() + (rect.height() - plain.height()) // 2), self._titles[i])
            shown = row.value
            if len(shown) * metrics.averageCharWidth() > 0.7 * value_w:  # only long values can overflow
                shown = metrics.elidedText(shown, Qt.TextElideMode.ElideRight, value_w)
            if row.bold:
                p.setFont(self._bold)
            p.setPen(row.color or text)
            p.drawText(QPoint(self._name_w, baseline), shown)
        p.end()

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip and isinstance(e, QHelpEvent):
            i = e.pos().y() // self._row_h
            if 0 <= i < len(self.rows):
                row = self.rows[i]
                QToolTip.showText(e.globalPos(), f"{row.title}: {row.value}\n{row.tip}", self, self._row_rect(i))
            else:
                QToolTip.hideText()
            return True
        return super().event(e)

    def contextMenuEvent(self, e: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        menu = QMenu(self)
        menu.addAction(self._copy)
        menu.exec(e.globalPos() if e.globalPos() != QPoint() else self.mapToGlobal(e.pos()))
