"""Save / Save as for a window that keeps one document file (the main window's scenario, the
compare window's comparison). The window supplies `save_to(path)` and the dialog wording."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget


class SavesToFile:
    current_file: Path | None = None
    save_title = "Save"
    default_name = "untitled.json"
    file_filter = "JSON (*.json)"

    def save_to(self, path: Path) -> bool:  # pragma: no cover - each window implements it
        raise NotImplementedError

    def save(self) -> None:
        if self.current_file is None:
            self.save_as()
        else:
            self.save_to(self.current_file)

    def save_as(self) -> None:
        assert isinstance(self, QWidget)
        path, _ = QFileDialog.getSaveFileName(self, self.save_title, self.default_name, self.file_filter)
        if path:
            self.save_to(Path(path))
