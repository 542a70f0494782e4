"""Wiring: settings, catalogs, QApplication and the main window."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication(sys.argv if argv is None else argv)
    label = QLabel("LLM speed advisor")
    label.show()
    return app.exec()
