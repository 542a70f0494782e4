"""The mouse wheel scrolls the panel under it: over a spin box, combo box or slider that does not have
the keyboard focus, a wheel notch scrolls the enclosing scroll area instead of editing the value
(each notch would otherwise be an edit and an undo step). Click or Tab into a field to wheel it.

    wheel_scrolls_panel(panel)     # every field below `panel`, now and as built
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

FIELDS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


class _WheelToPanel(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget) or watched.hasFocus():
            return False
        parent = watched.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        if parent is not None:
            QApplication.sendEvent(parent.verticalScrollBar(), event)
        return True  # never an edit: with no scroll area around it, the wheel does nothing


def wheel_scrolls_panel(root: QWidget) -> None:
    """Every field under `root` passes unfocused wheel turns to the scroll area around it; wheeling no
    longer focuses a field either (StrongFocus: click or Tab)."""
    filt = _WheelToPanel(root)
    for w in root.findChildren(QWidget):
        if isinstance(w, FIELDS) and not isinstance(w, QScrollBar):
            w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            w.installEventFilter(filt)
