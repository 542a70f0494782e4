"""Slide exports: a plot or the whole dashboard as PNG at slide size, curve data as CSV.

Exports draw the current snapshot into fresh widgets at the asked size: they capture what is
shown and never recompute."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect, Qt
from PySide6.QtGui import QFont, QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from advisor.atomic import write_atomic
from advisor.core.curves import Axis
from advisor.ui.plots.base import PlotView, TokPlot
from advisor.ui.plots.batch_plot import BatchPlot
from advisor.ui.plots.context_plot import ContextPlot
from advisor.ui.plots.params_plot import ParamsPlot
from advisor.ui.plots.titles import scenario_title
from advisor.ui.store import Extras, Snapshot

SLIDE_SIZE = (1920, 1080)
PLOT_CLASSES: dict[Axis, Callable[[], TokPlot]] = {"context": ContextPlot, "params": ParamsPlot, "batch": BatchPlot}


class ExportError(Exception):
    """An export that could not be written; the message names the path."""


def paint_widget(widget: QWidget, size: tuple[int, int], prepare: Callable[[], None] | None = None) -> QImage:
    """Lay `widget` out off screen at `size` and paint it into an image. `prepare` runs once the
    layout has happened (for work that needs final sizes)."""
    widget.resize(*size)
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.show()
    QApplication.processEvents()
    if prepare is not None:
        prepare()
        QApplication.processEvents()
    image = QImage(size[0], size[1], QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    try:
        QWidget.render(widget, painter, QPoint(0, 0))  # the widget path, not QGraphicsView.render
    finally:
        painter.end()
        widget.hide()
    return image


def slide_plot(axis: Axis, snap: Snapshot, extras: Extras | None = None, text_scale: float = 1.7) -> PlotView:
    """A plot drawn for a slide, in a view of its own: bigger type, same data."""
    plot = PLOT_CLASSES[axis]()
    view = PlotView(plot)
    plot.show_snapshot(snap)  # type: ignore[attr-defined]
    if extras is not None and hasattr(plot, "show_extras"):
        plot.show_extras(extras)
    plot.set_title(f"{plot.base_title} — {scenario_title(snap.session)}", size_pt=22)
    plot.scale_text(text_scale)
    plot.smooth_lines(1.5)
    return view


def plot_image(axis: Axis, snap: Snapshot, extras: Extras | None = None,
               size: tuple[int, int] = SLIDE_SIZE) -> QImage:
    plot = slide_plot(axis, snap, extras)
    try:
        return paint_widget(plot, size)
    finally:
        plot.deleteLater()


def dashboard_image(snap: Snapshot, extras: Extras | None, title: str,
                    size: tuple[int, int] = SLIDE_SIZE) -> QImage:
    """All three plots laid out for a slide (context large on the left), under a title."""
    from PySide6.QtWidgets import QGridLayout

    page = QWidget()
    page.setStyleSheet("background: white")
    grid = QGridLayout(page)
    grid.setContentsMargins(0, 0, 0, 0)
    plots = {axis: slide_plot(axis, snap, extras, text_scale=1.25) for axis in PLOT_CLASSES}
    for view in plots.values():
        view.plot.set_title(view.plot.base_title, size_pt=16)
    grid.addWidget(plots["context"], 0, 0, 2, 1)
    grid.addWidget(plots["params"], 0, 1)
    grid.addWidget(plots["batch"], 1, 1)
    grid.setColumnStretch(0, 3)
    grid.setColumnStretch(1, 2)
    try:
        body = paint_widget(page, (size[0], size[1] - 80))
    finally:
        page.deleteLater()
    image = QImage(size[0], size[1], QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    try:
        painter.setFont(QFont("DejaVu Sans", 26))
        painter.drawText(QRect(0, 0, size[0], 80), Qt.AlignmentFlag.AlignCenter, title)
        painter.drawImage(0, 80, body)
    finally:
        painter.end()
    return image


def save_png(image: QImage, path: Path) -> None:
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):  # type: ignore[call-overload]  # the stub says bytes; PySide wants str
        raise ExportError(f"{path}: could not encode the image")
    write_export(path, bytes(buf.data().data()))


def copy_image(image: QImage) -> None:
    QGuiApplication.clipboard().setImage(image)


def curve_csv(snap: Snapshot, axis: Axis) -> str:
    rows = snap.curves[axis].as_rows()
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()


def save_csv(snap: Snapshot, axis: Axis, path: Path) -> None:
    write_export(path, curve_csv(snap, axis))


def write_export(path: Path, data: str | bytes) -> None:
    """Write atomically; any failure becomes one ExportError naming the path. A folder that does not
    exist is refused, not created: a typo in it would otherwise leave the file somewhere unexpected."""
    if not path.parent.is_dir():
        why = "is not a folder" if path.parent.exists() else "does not exist: create it first"
        raise ExportError(f"{path}: cannot write ({path.parent} {why})")
    try:
        write_atomic(path, data)
    except (OSError, ValueError) as err:  # ValueError: a name the OS cannot take (a NUL byte)
        reason = getattr(err, "strerror", None) or str(err)
        raise ExportError(f"{path}: cannot write ({reason})") from None
