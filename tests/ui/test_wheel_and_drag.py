"""The wheel scrolls the panel unless a field has the focus; one slider drag is one undo step."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from advisor.ui.main_window import MainWindow


def _wheel(widget: QWidget, notches: int = -3) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_wheel_over_an_unfocused_field_scrolls_the_panel(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.resize(1100, 560)  # a short window: the Workload panel has to scroll
    area = window.docks["workload"].widget()
    assert isinstance(area, QScrollArea)
    bar = area.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    panel = window.workload_panel
    before = window.store.session.scenario.workload
    steps = len(window.store._undo)
    for field in (panel.spins["context"], panel.spins["prompt_tokens"], panel.slider, panel.engine):
        bar.setValue(0)
        _wheel(field)
        assert bar.value() > 0, f"{field.objectName() or type(field).__name__}: the panel did not scroll"
    assert window.store.session.scenario.workload == before
    assert len(window.store._undo) == steps, "a wheel turn over an unfocused field is not an edit"
    # A field with the focus still takes the wheel.
    spin = panel.spins["prompt_tokens"]
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    _wheel(spin, notches=1)
    assert window.store.session.scenario.workload.prompt_tokens > before.prompt_tokens


def test_a_slider_drag_is_one_undo_step(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    slider = window.workload_panel.slider
    start = window.store.session.scenario.workload.context
    steps = len(window.store._undo)
    slider.setSliderDown(True)
    for pos in range(slider.value() + 20, slider.value() + 320, 30):
        slider.setValue(pos)
    slider.setSliderDown(False)
    dragged = window.store.session.scenario.workload.context
    assert dragged > start
    assert len(window.store._undo) == steps + 1
    window.store.undo()
    assert window.store.session.scenario.workload.context == start
    # Two drags are two steps; a key press on the slider (not held) is its own step.
    for _ in range(2):
        slider.setSliderDown(True)
        slider.setValue(slider.value() + 50)
        slider.setValue(slider.value() + 50)
        slider.setSliderDown(False)
    slider.setValue(slider.value() + 10)
    assert len(window.store._undo) == steps + 3
