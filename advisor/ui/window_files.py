"""The main window's exports (plot and dashboard PNGs, curve CSVs, the clipboard) and the file names
and folder its dialogs suggest: the last folder used (else the most recent file's, else home), and a
name that says the hardware, model, quant and context."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from advisor.core.curves import Axis
from advisor.session import Session
from advisor.ui import export
from advisor.ui.plots.titles import scenario_title


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._]+", "-", text.lower()).strip("-.") or "x"


def context_text(tokens: int) -> str:
    """16384 -> '16k', 4000 -> '4000': the way people say a context length."""
    return f"{tokens // 1024}k" if tokens >= 1024 and tokens % 1024 == 0 else str(tokens)


def suggested_stem(session: Session) -> str:
    """'rtx-4090_llama-3.1-8b_q4_k_m_4k-ctx': hardware (and set size), model, quant and context."""
    s = session.scenario
    hw = session.hardware_id or _slug(s.hardware.name)
    if s.hardware.devices > 1:
        hw = f"{s.hardware.devices}x-{hw}"
    model = session.model_id or _slug(s.model.name)
    quant = session.quant_id or _slug(s.quant.name)
    return f"{hw}_{model}_{quant}_{context_text(s.workload.context)}-ctx"


def start_folder(window: object) -> Path:
    """Where a file dialog opens: the last folder the window used, while it still exists; else home."""
    folder = getattr(window, "last_folder", None)
    return folder if isinstance(folder, Path) and folder.is_dir() else Path.home()


class ExportsToFiles:
    """Mixed into the main window (which supplies store, shown(), settings, error() and statusBar())."""

    last_folder: Path | None = None

    def remember_folder(self, path: Path) -> None:
        self.last_folder = path.parent

    def _ask_path(self, title: str, name: str, filt: str) -> Path | None:
        assert isinstance(self, QWidget)
        path, _ = QFileDialog.getSaveFileName(self, title, str(start_folder(self) / name), filt)
        if not path:
            return None
        self.remember_folder(Path(path))
        return Path(path)

    def _stem(self) -> str:
        return suggested_stem(self.store.session)  # type: ignore[attr-defined]

    def export_plot(self, axis: Axis, path: Path | None = None) -> bool:
        path = path or self._ask_path("Export plot", f"tok-s-vs-{axis}_{self._stem()}.png", "PNG image (*.png)")
        if path is None:
            return False
        store = self.store  # type: ignore[attr-defined]
        extras, snap = store.flush(), self.shown(store.snapshot)  # type: ignore[attr-defined]
        return self._try(lambda: export.save_png(export.plot_image(axis, snap, extras), path), path)

    def export_dashboard(self, path: Path | None = None) -> bool:
        path = path or self._ask_path("Export dashboard", f"dashboard_{self._stem()}.png", "PNG image (*.png)")
        if path is None:
            return False
        store = self.store  # type: ignore[attr-defined]
        extras = store.flush()
        title = f"LLM speed — {scenario_title(store.session)}"
        snap = self.shown(store.snapshot)  # type: ignore[attr-defined]
        return self._try(lambda: export.save_png(export.dashboard_image(snap, extras, title), path), path)

    def export_csv(self, axis: Axis, path: Path | None = None) -> bool:
        path = path or self._ask_path("Export curve data", f"tok-s-vs-{axis}_{self._stem()}.csv", "CSV (*.csv)")
        if path is None:
            return False
        return self._try(lambda: export.save_csv(self.store.snapshot, axis, path), path)  # type: ignore[attr-defined]

    def copy_plot(self, axis: Axis) -> None:
        store = self.store  # type: ignore[attr-defined]
        export.copy_image(export.plot_image(axis, self.shown(store.snapshot), store.flush()))  # type: ignore[attr-defined]
        self.statusBar().showMessage(f"Copied the {axis} plot to the clipboard", 4000)  # type: ignore[attr-defined]

    def _try(self, work: Callable[[], None], path: Path) -> bool:
        try:
            work()
        except export.ExportError as err:
            self.error("Export failed", str(err))  # type: ignore[attr-defined]
            return False
        self.remember_folder(path)
        self.statusBar().showMessage(f"Wrote {path}", 5000)  # type: ignore[attr-defined]
        return True
