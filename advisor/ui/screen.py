"""Windows that fit the screen they open on: a preferred size shrunk to the available area (the
screen less panels and docks), a restored geometry pulled back inside it, and an application-wide
filter that does the same for every window and dialog the moment it is first shown.

    fit_to_screen(window, (1600, 1000))       # at most the available area, centred when it was off
    QApplication.instance().installEventFilter(ScreenFit())   # every window and dialog, on first show
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

# Room kept for a title bar and borders the window manager adds once the window is shown (the frame
# is not known before): without it a window of exactly the available height has its bottom cut off.
FRAME_ALLOWANCE = QSize(16, 40)
FITTED = "screen_fitted"  # widget property: the filter fits each window once


def available_rect(widget: QWidget | None = None) -> QRect:
    """The available geometry of the widget's screen (the primary one when it has none yet)."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1366, 768)


def _frame(widget: QWidget) -> QSize:
    """The decoration around the client area: the real one once shown, else the allowance."""
    fg, g = widget.frameGeometry(), widget.geometry()
    extra = QSize(fg.width() - g.width(), fg.height() - g.height())
    return extra if widget.isVisible() and extra.height() > 0 else FRAME_ALLOWANCE


def fitted_size(want: QSize, avail: QRect, frame: QSize = FRAME_ALLOWANCE) -> QSize:
    """`want` shrunk so that it, with its frame, fits `avail`."""
    return QSize(
        max(min(want.width(), avail.width() - frame.width()), 200),
        max(min(want.height(), avail.height() - frame.height()), 150),
    )


def clamp_to(widget: QWidget, avail: QRect | None = None) -> None:
    """Shrink the window to the available area and move it so that its frame lies inside it; a window
    that already fits stays where it is."""
    avail = avail or available_rect(widget)
    frame = _frame(widget)
    size = fitted_size(widget.size(), avail, frame)
    if size != widget.size():
        widget.resize(size)
    w, h = widget.width() + frame.width(), widget.height() + frame.height()
    pos = widget.frameGeometry().topLeft() if widget.isVisible() else widget.pos()
    x = min(max(pos.x(), avail.left()), avail.right() + 1 - w)
    y = min(max(pos.y(), avail.top()), avail.bottom() + 1 - h)
    if (x, y) != (pos.x(), pos.y()):
        widget.move(max(x, avail.left()), max(y, avail.top()))


def fit_to_screen(widget: QWidget, preferred: tuple[int, int], avail: QRect | None = None, center: bool = True) -> None:
    """Resize to `preferred` or the available area, whichever is smaller; centred on the screen unless
    `center` is False (a dialog: Qt centres it over its parent when shown)."""
    avail = avail or available_rect(widget)
    size = fitted_size(QSize(*preferred), avail)
    widget.resize(size)
    if not center:
        return
    widget.move(
        avail.left() + max((avail.width() - size.width() - FRAME_ALLOWANCE.width()) // 2, 0),
        avail.top() + max((avail.height() - size.height() - FRAME_ALLOWANCE.height()) // 2, 0),
    )


class ScreenFit(QObject):
    """Installed on the QApplication: every top-level window or dialog is clamped to its screen's
    available area when it is first shown (its own code may have asked for more)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if (
            event.type() == QEvent.Type.Show
            and isinstance(watched, QWidget)
            and watched.windowType() in (Qt.WindowType.Window, Qt.WindowType.Dialog)  # not menus, tooltips
            and not watched.property(FITTED)
            and not watched.isMaximized()
            and not watched.isFullScreen()
        ):
            watched.setProperty(FITTED, True)
            clamp_to(watched)
        return False
