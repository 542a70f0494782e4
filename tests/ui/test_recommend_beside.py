"""The recommendation is in view beside the numbers (no tab to switch), and marks the current pick."""

from __future__ import annotations

from PySide6.QtCore import Qt

from advisor.ui.main_window import MainWindow


def test_recommendation_is_beside_the_numbers(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    numbers, recommend = window.docks["numbers"], window.docks["recommend"]
    assert window.tabifiedDockWidgets(numbers) == []
    assert not numbers.visibleRegion().isEmpty() and not recommend.visibleRegion().isEmpty()
    assert recommend.y() > numbers.y(), "under the numbers, in the same column"
    assert abs(recommend.x() - numbers.x()) < 5
    assert recommend.height() > 150


def test_the_current_pick_is_marked_after_apply(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    rec = window.store.flush().recommendation
    assert rec.pick is not None
    text, button = window.recommend_panel.rows[0]
    if (window.store.session.model_id, window.store.session.quant_id) != (rec.pick.model_key, rec.pick.quant_key):
        assert button.isEnabled() and "current" not in text.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    window.store.flush()
    rows = window.recommend_panel.rows
    marked = [i for i, (t, _b) in enumerate(rows) if t.isVisible() and "current" in t.text()]
    assert len(marked) == 1, "exactly one candidate is the current pick"
    current = window.recommend_panel.candidates[marked[0]]
    assert (current.model_key, current.quant_key) == (window.store.session.model_id, window.store.session.quant_id)
    assert not rows[marked[0]][1].isEnabled()
    assert all(b.isEnabled() for i, (t, b) in enumerate(rows) if t.isVisible() and i != marked[0])
