"""Open / Save / Save as for a window that keeps one document file (the main window's scenario, the
compare window's comparison). The window supplies `open_file(path)`, `save_to(path)` and the wording."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from advisor.ui.window_files import start_folder


class SavesToFile:
    current_file: Path | None = None
    open_title = "Open"
    save_title = "Save"
    default_name = "untitled.json"
    file_filter = "JSON (*.json)"
    last_folder: Path | None = None  # where the last dialog was answered: the next one opens there

    def open_file(self, path: Path) -> bool:  # pragma: no cover - each window implements it
        raise NotImplementedError

    def save_to(self, path: Path) -> bool:  # pragma: no cover - each window implements it
        raise NotImplementedError

    def open_dialog(self) -> None:
        assert isinstance(self, QWidget)
        path, _ = QFileDialog.getOpenFileName(self, self.open_title, str(start_folder(self)), self.file_filter)
        if path:
            self.last_folder = Path(path).parent
            self.open_file(Path(path))

    def save(self) -> None:
        if self.current_file is None:
            self.save_as()
        else:
            self.save_to(self.current_file)

    def save_as(self) -> None:
        assert isinstance(self, QWidget)
        path, _ = QFileDialog.getSaveFileName(
            self, self.save_title, str(start_folder(self) / self.suggested_name()), self.file_filter
        )
        if path:
            self.last_folder = Path(path).parent
            self.save_to(Path(path))

    def suggested_name(self) -> str:
        """The name Save as offers (the main window's names the hardware, model, quant and context)."""
        return self.default_name
