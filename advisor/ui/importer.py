"""Import a model from a GGUF header or a Hugging Face config.json, save it as a custom catalog
entry, and switch to it (with the GGUF's own bits per weight as the quant)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from advisor.catalog.convert import to_model
from advisor.catalog.loader import load_catalog
from advisor.catalog.schema import ModelEntry
from advisor.core.quant import Quant
from advisor.paths import user_catalog_dir
from advisor.ui.context_window import clamp_to_window

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
    from advisor.catalog.gguf_import import GGUFError
    from advisor.catalog.hf_import import HFImportError
    from advisor.catalog.user_store import save_entry

    store = window.store  # type: ignore[attr-defined]
    try:
        entry, quant = read_model_file(path)
        save_entry("models", entry, user_catalog_dir())
    except (GGUFError, HFImportError, OSError, ValueError) as err:
        window.error("Cannot import model", str(err))  # type: ignore[attr-defined]
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


def import_model_dialog(window: QWidget) -> None:
    path, _ = QFileDialog.getOpenFileName(window, "Import model", "", FILTER)
    if path and import_model_file(window, Path(path)):
        QMessageBox.information(window, "Model imported",
                                f"Saved as a custom catalog entry in {user_catalog_dir()}.")
