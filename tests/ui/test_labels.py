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
    item = _labels(
        qtbot,
        Label(9.5, 5, long, "#000", (0.0, 1.0), optional=True),
        Label(2.0, 5, long, "#000", (0.0, 1.0), optional=True),
        Label(9.5, 8, " Chosen model", "#000", (0.0, 1.0), bold=True),
    )
    placed = item.placed(to_device)
    texts = [(lab.text, lab.x) for lab, _ in placed]
    assert (long, 9.5) not in texts and (long, 2.0) in texts  # the one near the edge gives way
    chosen = next(box for lab, box in placed if lab.bold)
    assert chosen.x + chosen.w <= 9.5 * 50 + 1e-6  # drawn left of its point, inside the plot
    assert all(box.x + box.w <= 500 + 1e-6 for _, box in placed)


def test_a_line_through_a_label_is_cut_around_its_letters(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The halo: a black line drawn under a grey label keeps fewer black pixels inside the label's box
    than without it, so the text stays readable where a curve or the threshold crosses it."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QColor, QImage, QPainter, QPen

    from advisor.ui.plots import labels as labels_module

    item = _labels(qtbot, Label(1.0, 5.0, "Command R 35B (v01)", "#808080", (0.0, 0.5)))
    to_device = QTransform.fromScale(50, 50)
    box = item.placed(to_device)[0][1]

    def black_in_box(offsets: tuple[tuple[float, float], ...]) -> int:
        monkeypatch.setattr(labels_module, "HALO_OFFSETS", offsets)
        img = QImage(500, 500, QImage.Format.Format_RGB32)
        img.fill(QColor("white"))
        p = QPainter(img)
        p.setPen(QPen(QColor("black"), 2))
        p.drawLine(QPointF(0, 250), QPointF(500, 250))  # through the label's middle
        p.setTransform(to_device)
        item.paint(p)
        p.end()
        return sum(
            1
            for x in range(int(box.x), int(box.x + box.w))
            for y in range(int(box.y), int(box.y + box.h))
            if QColor(img.pixel(x, y)).lightness() < 40
        )

    offsets = labels_module.HALO_OFFSETS
    plain, halo = black_in_box(()), black_in_box(offsets)
    assert plain > 100 and halo < 0.8 * plain


def test_a_zone_name_stays_inside_its_zone_or_is_left_out(qtbot) -> None:  # type: ignore[no-untyped-def]
    to_device = QTransform.fromScale(50, 50)  # 500 px across the view's 10 units
    wide = Label(8.0, 5, " does not run ", "#000", zone=(8.0, 11.0))  # from 400 px to past the right edge
    narrow = Label(9.6, 2, " does not run ", "#000", zone=(9.6, 11.0))  # 20 px of zone in view
    placed = dict((lab.y, box) for lab, box in _labels(qtbot, wide, narrow).placed(to_device))
    assert 2 not in placed, "no room in the zone: no label rather than one outside it"
    box = placed[5]
    assert box.x >= 8.0 * 50 - 1e-6 and box.x + box.w <= 500 + 1e-6


def test_the_hover_readout_follows_every_change(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    plot = window.plots["context"]
    c = plot.curve_data
    i = len(c.x) // 3
    plot.show_readout(i)
    before = plot.readout.textItem.toPlainText()
    window.store.update(
        "hardware", "Edit bandwidth", bandwidth_gbps=window.store.session.scenario.hardware.bandwidth_gbps / 2
    )
    after = plot.readout.textItem.toPlainText()
    assert after != before and after.splitlines()[0] == before.splitlines()[0]  # same context, new speed
    window.store.undo()
    assert plot.readout.textItem.toPlainText() == before
