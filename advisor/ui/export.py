"""Slide exports: a plot or the whole dashboard as PNG at slide size, curve data as CSV.

Exports draw the current snapshot into fresh widgets at the asked size: they capture what is
shown and never recompute."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from advisor.atomic import write_atomic
from advisor.core.curves import Axis
from advisor.core.fmt import num
from advisor.ui import theme
from advisor.ui.plots.base import TokPlot
from advisor.ui.plots.batch_plot import BatchPlot
from advisor.ui.plots.context_plot import ContextPlot
from advisor.ui.plots.labels import Label, Labels
from advisor.ui.plots.params_plot import ParamsPlot
from advisor.ui.plots.titles import scenario_title
from advisor.ui.plots.view import PlotView
from advisor.ui.store import Extras, Snapshot

SLIDE_SIZE = (1920, 1080)
# The smallest type on a 1080-line slide, readable from the back of a room: 28 px, which at the 96 dpi
# the slide is laid out at is 21 pt.
SLIDE_MIN_PT = 28 * 72 / 96
SLIDE_TEXT_SCALE = SLIDE_MIN_PT / theme.SMALL_PT  # the legend's and zones' type (the smallest) at that size
X_COLUMNS = {"context": "context_tokens", "params": "model_params_b", "batch": "streams"}
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


def slide_plot(
    axis: Axis,
    snap: Snapshot,
    extras: Extras | None = None,
    text_scale: float = SLIDE_TEXT_SCALE,
    min_pt: float = SLIDE_MIN_PT,
) -> PlotView:
    """A plot drawn for a slide, in a view of its own: bigger type (none below `min_pt`), the
    scenario's decode speed written at its marker, same data."""
    plot = PLOT_CLASSES[axis]()
    view = PlotView(plot)
    plot.show_snapshot(snap)  # type: ignore[attr-defined]
    if extras is not None and hasattr(plot, "show_extras"):
        plot.show_extras(extras)
    plot.set_title(f"{plot.base_title} — {scenario_title(snap.session)}", size_pt=max(22, round(min_pt) + 2))
    speed = snap.result.decode_tok_s
    if plot.marker.at is not None and speed is not None:
        x, y = plot.marker.at
        below = axis == "params"  # above the point the model-size plot names the chosen model
        plot.labels.set_labels(
            [
                *plot.labels.labels,
                Label(x, y, f"  {num(speed)} tok/s", theme.REALISTIC, (0.0, -0.15 if below else 1.15), bold=True),
            ]
        )
    plot.scale_text(text_scale)
    for item in plot.items:  # smaller label sets (the catalog models' names) up to the minimum too
        if isinstance(item, Labels) and item.point_size < min_pt:
            item.scale(min_pt / item.point_size)
    plot.smooth_lines(1.5)
    return view


def headline(snap: Snapshot) -> str:
    """The dashboard slide's numbers, under its title."""
    r = snap.result
    if r.decode_tok_s is None:
        return f"Does not run: needs {num(r.total_gb)} GB"
    lo, hi = r.decode_low_tok_s, r.decode_high_tok_s
    band = f" ({num(lo)}–{num(hi)})" if lo is not None and hi is not None else ""
    room = (
        f"{num(r.total_gb)} of {num(r.fast_capacity_gb)} GB"
        if r.fast_capacity_gb is not None
        else f"{num(r.total_gb)} GB"
    )
    parts = [f"Decode {num(r.decode_tok_s)} tok/s{band}"]
    if r.ttft_s is not None:
        parts.append(f"first token {num(r.ttft_s)} s")
    if r.prefill_tok_s is not None:
        parts.append(f"prefill {num(r.prefill_tok_s)} tok/s")
    parts.append(room + (f", {r.offloaded_fraction:.0%} in host RAM" if r.offloaded_fraction > 0 else ""))
    return " · ".join(parts)


def plot_image(axis: Axis, snap: Snapshot, extras: Extras | None = None, size: tuple[int, int] = SLIDE_SIZE) -> QImage:
    """The slide PNG's image; the type scales with the height (28 px at 1080 lines)."""
    k = size[1] / SLIDE_SIZE[1]
    plot = slide_plot(axis, snap, extras, text_scale=k * SLIDE_TEXT_SCALE, min_pt=k * SLIDE_MIN_PT)
    try:
        return paint_widget(plot, size)
    finally:
        plot.deleteLater()


def dashboard_image(snap: Snapshot, extras: Extras | None, title: str, size: tuple[int, int] = SLIDE_SIZE) -> QImage:
    """All three plots laid out for a slide (context large on the left), under a title."""
    from PySide6.QtWidgets import QGridLayout

    page = QWidget()
    page.setStyleSheet("background: white")
    grid = QGridLayout(page)
    grid.setContentsMargins(0, 0, 0, 0)
    # Three plots share the slide: the type a step smaller than a single plot's.
    plots = {
        axis: slide_plot(axis, snap, extras, text_scale=0.75 * SLIDE_TEXT_SCALE, min_pt=0.75 * SLIDE_MIN_PT)
        for axis in PLOT_CLASSES
    }
    for view in plots.values():
        view.plot.set_title(view.plot.base_title, size_pt=20)
    grid.addWidget(plots["context"], 0, 0, 2, 1)
    grid.addWidget(plots["params"], 0, 1)
    grid.addWidget(plots["batch"], 1, 1)
    grid.setColumnStretch(0, 3)
    grid.setColumnStretch(1, 2)
    head = 140
    try:
        body = paint_widget(page, (size[0], size[1] - head))
    finally:
        page.deleteLater()
    image = QImage(size[0], size[1], QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    try:
        painter.setFont(QFont("DejaVu Sans", 26))
        painter.drawText(QRect(0, 0, size[0], 76), Qt.AlignmentFlag.AlignCenter, title)
        painter.setFont(QFont("DejaVu Sans", round(SLIDE_MIN_PT), QFont.Weight.Bold))
        painter.setPen(QColor(theme.REALISTIC))
        painter.drawText(QRect(0, 70, size[0], 64), Qt.AlignmentFlag.AlignCenter, headline(snap))
        painter.drawImage(0, head, body)
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
    """The curve behind a plot: a '#' line naming the scenario, then columns named with their units;
    token and stream counts are whole numbers."""
    rows = snap.curves[axis].as_rows()
    x_name = X_COLUMNS[axis]
    out = io.StringIO()
    out.write(f"# LLM speed advisor: tok/s vs {axis} for {scenario_title(snap.session)}\n")
    names = [x_name if k == "x" else k for k in rows[0]]
    writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        cells = {(x_name if k == "x" else k): (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()}
        if axis != "params":
            cells[x_name] = str(round(float(row["x"])))
        writer.writerow(cells)
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
