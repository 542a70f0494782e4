"""First start on a machine detection did not recognise: ask which hardware it is, rather than
silently starting on the default entry."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from advisor.core.hardware import HARDWARE_CLASS_LABELS
from advisor.ui.panels.catalog_list import CatalogList
from advisor.ui.panels.hardware_panel import hardware_group, hardware_row, hardware_tooltip
from advisor.ui.screen import fit_to_screen


class HardwarePicker(QDialog):
    """A search over the hardware catalog; picking an entry switches the window to it and closes."""

    def __init__(self, window: Any, found: str, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.setWindowTitle("Which hardware is this?")
        self.window_ = window
        store = window.store
        intro = QLabel(
            f"The advisor could not match this machine to a catalog entry.<br>"
            f"It found: <i>{escape(found)}</i>.<br><br>"
            "Pick the closest hardware (search by name); you can change it any time in the Hardware panel."
        )
        intro.setWordWrap(True)
        self.list = CatalogList(
            "Search hardware: 4060 laptop, m3 max, strix, ryzen…",
            ["Hardware", "Memory", "Bandwidth"],
            group=hardware_group,
            row=hardware_row,
            tooltip=hardware_tooltip,
        )
        order = list(HARDWARE_CLASS_LABELS)
        self.list.set_entries(
            sorted(store.catalog.hardware.values(), key=lambda e: (order.index(e.kind), -e.bandwidth_gbps))
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("Not now")
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.list, 1)
        lay.addWidget(buttons)
        self.list.picked.connect(self._picked)
        fit_to_screen(self, (620, 560), center=False)

    def _picked(self, hid: str) -> None:
        self.window_.hardware_panel.pick(hid)
        self.accept()


def ask_for_hardware(window: Any, found: str) -> HardwarePicker:
    dialog = HardwarePicker(window, found)
    dialog.setObjectName("hardware-picker")
    dialog.open()
    return dialog
