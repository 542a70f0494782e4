"""The real window, offscreen, while edits stream in: the worked arithmetic follows once they pause (greyed
until then), the tok/s axis holds during a drag, and what a drag leaves on screen is a full repaint's picture."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from advisor.core.evaluate import evaluate
from advisor.ui.main_window import MainWindow


def test_worked_arithmetic_follows_once_edits_pause(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.numbers_panel
    assert "Decode ceiling" in panel.steps.toPlainText()
    assert window.store.snapshot.result.steps == ()  # the store leaves the text out while edits come in
    window.store.update("workload", context=32768)
    expected = next(st.text for st in evaluate(window.store.session.scenario).steps if st.label == "KV cache")
    assert "33,024 tokens" in expected  # 32,768 of context + 256 of output
    qtbot.waitUntil(lambda: expected in panel.steps.toPlainText(), timeout=2000)


def test_worked_arithmetic_is_greyed_while_it_lags_behind(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Mid-drag the numbers are current and the arithmetic is not yet: it shows greyed until it is."""
    steps = window.numbers_panel.steps
    assert steps.isEnabled()
    window.store.update("workload", context=65536)
    assert not steps.isEnabled()
    qtbot.waitUntil(steps.isEnabled, timeout=2000)
    assert "65,792 tokens" in steps.toPlainText()  # 65,536 of context + 256 of output


def test_tok_s_axis_holds_during_a_drag_and_settles_after(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Dragging to a long context needs a lower top on the batch plot: it holds while edits stream
    in (no axis re-layout per edit), then tightens once they pause."""
    plot = window.plots["batch"]
    window.store.update("workload", context=512)
    window.store.flush()
    top_short = plot.vb.viewRange()[1][1]
    window.store.update("workload", context=131072)
    tight = plot._tight_y_hi
    assert tight is not None and tight < top_short - 0.4  # the long context wants at least a half decade less
    assert plot.vb.viewRange()[1][1] == pytest.approx(top_short)  # held
    qtbot.waitUntil(lambda: plot.vb.viewRange()[1][1] == pytest.approx(tight), timeout=2000)
    # After settling, the range is the one a fresh plot of the same scenario gets.
    fresh = type(plot)()
    fresh.show_snapshot(window.store.snapshot)
    assert fresh.vb.viewRange()[1][1] == pytest.approx(tight)
    # An edit on its own, a while after the last, is not held: no jump once the pause timer fires.
    window.store.update("workload", context=512)
    assert plot.vb.viewRange()[1][1] == pytest.approx(top_short)  # a higher top is never held
    plot._rendered_at -= 10
    window.store.update("workload", context=131072)
    assert plot.vb.viewRange()[1][1] == pytest.approx(tight)


def test_a_drag_leaves_the_same_pixels_as_a_full_repaint(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Edits repaint only what changed, partly from pixmap caches: the plots on screen after a drag
    must be what drawing them from scratch, without the caches, gives. A cached pixmap sits on whole
    pixels, so antialiased edges shade a little differently (by 1-4 of 255 levels: the labels' halos
    composed in a transparent pixmap round differently, over about 0.2 % of the plots) and a thin line's
    end can land a pixel off (a handful of pixels); a stale or missing repaint (the marker's trail, a
    curve left behind) differs at full contrast over hundreds."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QApplication, QGraphicsItem

    def pixels(img: QImage) -> np.ndarray:
        img = img.convertToFormat(QImage.Format.Format_RGB32)
        return np.frombuffer(bytes(img.constBits()), np.uint8).reshape(img.height(), img.width(), 4).astype(int)

    slider = window.workload_panel.slider
    for i in range(12):
        slider.setValue((i * 37) % slider.maximum())
        QApplication.processEvents()
    plots = QRect(window.dashboard.mapTo(window, window.dashboard.rect().topLeft()), window.dashboard.size())
    # Offscreen, grabbing the window reads its backing store: what the edits left there.
    on_screen = pixels(QApplication.primaryScreen().grabWindow(window.winId()).toImage().copy(plots))
    for item in window.dashboard.scene().items():
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    drawn = pixels(window.dashboard.grab().toImage())
    assert on_screen.shape == drawn.shape
    diff = np.abs(on_screen - drawn).max(axis=2)
    assert np.count_nonzero(diff > 48) <= 20
    assert np.count_nonzero(diff > 4) < 0.002 * diff.size  # visible at all
    assert np.count_nonzero(diff) < 0.005 * diff.size
