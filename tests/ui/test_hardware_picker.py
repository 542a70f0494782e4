"""First start on an unrecognised machine: the picker asks, and picking switches the window's hardware."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from advisor.ui.hardware_picker import HardwarePicker
from advisor.ui.main_window import MainWindow


def test_picking_hardware_switches_the_window(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    assert window.store.session.hardware_id != "rtx-4060-laptop"
    picker = HardwarePicker(window, "Mystery Semiconductor X1, 7.6 GB RAM, no GPU found")
    qtbot.addWidget(picker)
    picker.open()
    qtbot.keyClicks(picker.list.search, "4060 laptop")
    qtbot.keyClick(picker.list.search, Qt.Key.Key_Return)
    assert window.store.session.hardware_id == "rtx-4060-laptop"
    assert (
        window.store.session.scenario.hardware.bandwidth_gbps
        == window.store.catalog.hardware["rtx-4060-laptop"].bandwidth_gbps
    )
    assert picker.result() == QDialog.DialogCode.Accepted


def test_not_now_keeps_the_session(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    before = window.store.session
    picker = HardwarePicker(window, "nothing detected")
    qtbot.addWidget(picker)
    picker.open()
    picker.reject()
    assert window.store.session == before
