"""Plot labels near the plot's right edge: a name that would be cut off is left out (optional) or put
left of its point (the chosen model's)."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QTransform

from advisor.ui.plots.labels import Label, Labels


def _labels(qtbot, *labels: Label) -> Labels:  # type: ignore[no-untyped-def]
    item = Labels(9.0)
    item.viewRect = lambda: QRectF(0, 0, 10, 10)  # type: ignore[method-assign]
    item.set_labels(list(labels))
    return item


def test_cut_off_names_are_left_out_or_moved_left(qtbot) -> None:  # type: ignore[no-untyped-def]
    to_device = QTransform.fromScale(50, 50)  # the view's 10 units are 500 px wide
    long = " DeepSeek R1 Distill Qwen 32B"
    item = _labels(qtbot, Label(9.5, 5, long, "#000", (0.0, 1.0), optional=True),
                   Label(2.0, 5, long, "#000", (0.0, 1.0), optional=True),
                   Label(9.5, 8, " Chosen model", "#000", (0.0, 1.0), bold=True))
    placed = item.placed(to_device)
    texts = [(lab.text, lab.x) for lab, _ in placed]
    assert (long, 9.5) not in texts and (long, 2.0) in texts  # the one near the edge gives way
    chosen = next(box for lab, box in placed if lab.bold)
    assert chosen.x + chosen.w <= 9.5 * 50 + 1e-6  # drawn left of its point, inside the plot
    assert all(box.x + box.w <= 500 + 1e-6 for _, box in placed)
