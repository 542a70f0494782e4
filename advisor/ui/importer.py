"""Import a model from a GGUF header or a Hugging Face config.json, save it as a custom catalog
entry, and switch to it (with the GGUF's own bits per weight as the quant). The window reads the file
in a worker thread (start_import), so a slow header never freezes it, and Cancel leaves nothing changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from advisor.catalog.convert import to_model
from advisor.catalog.loader import load_catalog
from advisor.catalog.schema import ModelEntry
from advisor.core.quant import Quant
from advisor.paths import user_catalog_dir
from advisor.ui.context_window import clamp_to_window
from advisor.ui.workers import Task, busy_dialog, failure_message

FILTER = "Model files (*.gguf config.json *.json);;GGUF (*.gguf);;Hugging Face config (config.json *.json)"


def read_model_file(path: Path) -> tuple[ModelEntry, Quant | None]:
    """(entry, the file's weight format): only a GGUF knows the latter."""
    from advisor.catalog.gguf_import import import_gguf
    from advisor.catalog.hf_import import import_hf_config

    if path.suffix.lower() == ".gguf":
        g = import_gguf(path)
        return g.entry, g.quant()
    return import_hf_config(path).entry, None


def import_model_file(window: QWidget, path: Path) -> bool:
    """Read, save and switch to the model in `path`, in the calling thread (scripts and tests; the
    window's File → Import runs start_import)."""
    try:
        entry, quant = read_model_file(path)
    except (ValueError, OSError) as err:  # GGUFError and HFImportError are ValueErrors
        window.error("Cannot import model", failure_message(err, path.name))  # type: ignore[attr-defined]
        return False
    return apply_import(window, path, entry, quant)


def apply_import(window: QWidget, path: Path, entry: ModelEntry, quant: Quant | None) -> bool:
    """Save the read entry in the user's catalog and switch the window to it (on the GUI thread)."""
    from advisor.catalog.user_store import save_entry

    store = window.store  # type: ignore[attr-defined]
    try:
        save_entry("models", entry, user_catalog_dir())
    except (OSError, ValueError) as err:
        window.error("Cannot import model", failure_message(err, path.name))  # type: ignore[attr-defined]
        return False
    store.set_catalog(load_catalog(user_catalog_dir()))
    window.model_panel.refresh_entries()  # type: ignore[attr-defined]
    data = store.session.model_dump()
    data["scenario"]["model"] = to_model(entry).model_dump()
    data["model_id"] = entry.id
    if quant is not None:
        data["scenario"]["quant"] = quant.model_dump()
        data["quant_id"] = None
    note = clamp_to_window(data, entry.name)  # an imported model's window may be shorter than the context
    if store.set_session(data, f"Import {entry.name}") and note:
        store.noted.emit(note)
    return True


def start_import(window: QWidget, path: Path, on_done: Callable[[ModelEntry], object] | None = None) -> Task:
    """Read `path` in a worker thread behind a busy dialog with Cancel; save and switch only when the
    read finished uncancelled, so a cancel changes nothing (no entry saved, no undo step)."""
    task = Task(lambda: read_model_file(path), window)

    def done(result: object) -> None:
        entry, quant = cast(tuple[ModelEntry, Quant | None], result)
        if apply_import(window, path, entry, quant) and on_done is not None:
            on_done(entry)

    task.succeeded.connect(done)
    task.failed.connect(
        lambda err: window.error(  # type: ignore[attr-defined]
            "Cannot import model", failure_message(err, path.name)
        )
    )
    busy_dialog(window, "Import model", f"Reading {path.name}…", task)
    task.start()
    return task


def import_model_dialog(window: QWidget) -> None:
    path, _ = QFileDialog.getOpenFileName(window, "Import model", "", FILTER)
    if path:
        start_import(
            window,
            Path(path),
            lambda _entry: QMessageBox.information(
                window, "Model imported", f"Saved as a custom catalog entry in {user_catalog_dir()}."
            ),
        )
