"""A fixed-height strip of rich text (the verdict, the legend). Changing its text only repaints it:
a word-wrapped QLabel re-lays out the whole window on every change, which cost more than the plots."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QPainter, QPaintEvent, QTextDocument
from PySide6.QtWidgets import QSizePolicy, QWidget


class TextStrip(QWidget):
    def __init__(self, lines: int = 2, font: QFont | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._doc = QTextDocument(self)
        self._doc.setDocumentMargin(2)
        if font is not None:
            self.setFont(font)
        self._doc.setDefaultFont(self.font())
        self._html = ""
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 8)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def setText(self, html: str) -> None:  # noqa: N802 - the QLabel name, so callers read alike
        if html != self._html:
            self._html = html
            self._doc.setHtml(html)
            self.setToolTip(self._doc.toPlainText())
            self.update()

    def text(self) -> str:
        return self._html

    def plain_text(self) -> str:
        return self._doc.toPlainText()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        self._doc.setTextWidth(self.width())
        self._doc.drawContents(painter, QRectF(0, 0, self.width(), self.height()))
        painter.end()
