"""The lean curve item: gaps where the model does not run, bounds from the data."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from advisor.ui.plots.log_curve import LogCurve, finite_runs


def test_finite_runs_split_at_gaps() -> None:
    ok = np.array([True, True, False, True, True, True, False, False, True])
    assert finite_runs(ok) == [(0, 2), (3, 6), (8, 9)]
    assert finite_runs(np.zeros(3, dtype=bool)) == []


def test_curve_keeps_data_draws_log_and_skips_lone_points(qtbot) -> None:  # type: ignore[no-untyped-def]
    curve = LogCurve(pg.mkPen("k", width=3))
    x = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    y = np.array([5.0, 50.0, np.nan, 20.0, 0.0])  # 0 is "does not run": no log, a gap
    curve.set_xy(x, y)
    assert curve.data_xy[0] is x and curve.data_xy[1] is y
    assert curve._runs == [(0, 2)]  # the lone point at 1000 draws nothing
    rect = curve._data_rect
    assert (rect.left(), rect.right()) == pytest.approx((0.0, 3.0))
    assert (rect.top(), rect.bottom()) == pytest.approx((np.log10(5), np.log10(50)))


def test_points_keep_data_skip_non_positive_and_hide_when_empty(qtbot) -> None:  # type: ignore[no-untyped-def]
    from advisor.ui.plots.points import Points

    pts = Points(pg.mkBrush("r"), pg.mkPen("w"), 9)
    pts.setData(np.array([1.0, 10.0, 0.0]), np.array([100.0, 0.0, 5.0]))  # only (1, 100) can be drawn
    xs, ys = pts.getData()
    assert list(xs) == [1.0] and list(ys) == [100.0] and pts.isVisible()
    pts.setData(np.zeros(0), np.zeros(0))
    assert not pts.isVisible()


def test_optional_labels_give_way_to_the_ones_that_must_show(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A band's name is left out where the cliff's label would sit on it; apart, both show."""
    from PySide6.QtGui import QImage, QPainter

    from advisor.ui.plots.labels import Label, Labels

    def drawn(labels: list[Label]) -> int:
        item = Labels(9)
        item.set_labels(labels)
        img = QImage(400, 100, QImage.Format.Format_ARGB32)
        img.fill(0)
        p = QPainter(img)
        item.paint(p)
        p.end()
        return sum(1 for x in range(0, 400, 2) for y in range(0, 100, 2) if img.pixel(x, y) != 0)

    cliff = Label(10, 10, "offload cliff", "#D55E00", bold=True)
    band_on_it = Label(20, 12, "instant", "#6b6b6b", optional=True)
    band_apart = Label(300, 60, "instant", "#6b6b6b", optional=True)
    alone = drawn([cliff])
    assert drawn([cliff, band_on_it]) == alone
    assert drawn([cliff, band_apart]) > alone


def test_label_placement_follows_changes_to_its_labels_and_to_those_it_avoids(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Placement is kept between repaints: it must still be redone when either item's labels change."""
    from PySide6.QtGui import QTransform

    from advisor.ui.plots.labels import Label, Labels

    band, models = Labels(9), Labels(9)
    band.avoid.append(models)
    t = QTransform()
    band.set_labels([Label(20, 12, "instant", "#6b6b6b", optional=True)])
    assert [lab.text for lab, _ in band.placed(t)] == ["instant"]
    models.set_labels([Label(10, 10, "Llama 3 8B", "#000000")])  # lands on the band's name
    assert band.placed(t) == []
    models.set_labels([Label(300, 60, "Llama 3 8B", "#000000")])
    assert [lab.text for lab, _ in band.placed(t)] == ["instant"]
    band.set_labels([Label(300, 62, "snappy", "#6b6b6b", optional=True)])
    assert band.placed(t) == []
    assert [lab.text for lab, _ in band.placed(QTransform.fromTranslate(0, 100))] == []  # moved together
    assert [lab.text for lab, _ in band.placed(QTransform.fromScale(1, 30))] == ["snappy"]  # pulled apart


def test_points_at_the_same_spot_stay_filled(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Two catalog models can land on one spot (Qwen3 30B-A3B and its Coder twin); odd-even filling
    would punch the shared diamond out."""
    from PySide6.QtGui import QColor, QImage, QPainter, QTransform

    from advisor.ui.plots.points import Points

    pts = Points(pg.mkBrush("#CC79A7"), pg.mkPen("w"), 12)
    pts.setData(np.array([10.0, 10.0]), np.array([10.0, 10.0]))  # log10: (1, 1) twice
    img = QImage(40, 40, QImage.Format.Format_ARGB32)
    img.fill(0)
    p = QPainter(img)
    p.setTransform(QTransform.fromTranslate(20, 20) * QTransform())  # view (1, 1) -> pixel (21, 21)
    pts.paint(p)
    p.end()
    assert QColor(img.pixel(21, 21)).name().upper() == "#CC79A7"
