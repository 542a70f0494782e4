"""Slides readable from the back of a room: no type under 28 px at 1080p, the marker's value written
on the plot, the dashboard's headline numbers, and a curve CSV that says what it is."""

from __future__ import annotations

import csv
import io

from PySide6.QtGui import QFont, QFontInfo

from advisor.core.fmt import num
from advisor.ui import export
from advisor.ui.main_window import MainWindow
from advisor.ui.plots.labels import Labels

MIN_PX = 28


def _px(font: QFont) -> float:
    return QFontInfo(font).pixelSize()


def test_slide_type_is_at_least_28_px(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    snap = window.store.snapshot
    for axis in ("context", "params", "batch"):
        view = export.slide_plot(axis, snap, window.store.flush())
        plot = view.plot
        try:
            for side in ("left", "bottom"):
                ax = plot.getAxis(side)
                assert _px(ax.style["tickFont"]) >= MIN_PX and _px(ax.label.font()) >= MIN_PX, (axis, side)
            for _sample, label in plot.legend.items:  # a LabelItem's size is its html's, in points
                assert float(label.opts["size"].removesuffix("pt")) * 96 / 72 >= MIN_PX, (axis, label.text)
            for item in plot.items:
                if isinstance(item, Labels):
                    font = QFont("DejaVu Sans")
                    font.setPointSizeF(item.point_size)
                    assert _px(font) >= MIN_PX - 0.5, (axis, item.labels[:1])
        finally:
            view.deleteLater()


def test_the_marker_value_is_written_on_the_plot(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    snap = window.store.snapshot
    speed = snap.result.decode_tok_s
    assert speed is not None
    view = export.slide_plot("context", snap)
    texts = [lab.text.strip() for lab in view.plot.labels.labels]
    view.deleteLater()
    assert f"{num(speed)} tok/s" in texts


def test_dashboard_headline_has_the_numbers(window: MainWindow) -> None:
    r = window.store.snapshot.result
    line = export.headline(window.store.snapshot)
    assert r.decode_tok_s is not None and r.ttft_s is not None and r.prefill_tok_s is not None
    for figure in (r.decode_tok_s, r.ttft_s, r.prefill_tok_s, r.total_gb):
        assert num(figure) in line


def test_curve_csv_names_columns_with_units_and_the_scenario(window: MainWindow) -> None:
    snap = window.store.snapshot
    for axis, first in (("context", "context_tokens"), ("params", "model_params_b"), ("batch", "streams")):
        text = export.curve_csv(snap, axis)  # type: ignore[arg-type]
        head, body = text.split("\n", 1)
        assert head.startswith("# ") and snap.session.scenario.hardware.name in head
        rows = list(csv.DictReader(io.StringIO(body)))
        assert list(rows[0])[0] == first and len(rows) == len(snap.curves[axis].x)  # type: ignore[index]
        assert all(k.endswith(("_tok_s", "_gb", "_tokens", "_b", "streams")) or k in ("fits", "runs") for k in rows[0])
        if axis != "params":
            assert all(r[first].isdigit() for r in rows)
