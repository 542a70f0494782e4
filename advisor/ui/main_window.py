"""The main window: four panels on the left, three live plots in the middle, numbers and the
recommendation on the right. It composes widgets and routes menu actions; it computes nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from html import escape
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QWidget,
)

import advisor
from advisor.core.curves import AXES, Axis
from advisor.paths import config_dir, user_catalog_dir
from advisor.session import SessionFileError, load_session, save_session
from advisor.settings import Settings, add_recent
from advisor.ui import theme
from advisor.ui.feel_dialog import FeelDialog
from advisor.ui.file_actions import SavesToFile
from advisor.ui.numbers_panel import NumbersPanel
from advisor.ui.panels.hardware_panel import HardwarePanel
from advisor.ui.panels.model_panel import ModelPanel
from advisor.ui.panels.quant_panel import QuantPanel
from advisor.ui.panels.workload_panel import WorkloadPanel
from advisor.ui.plots.base import TokPlot
from advisor.ui.plots.batch_plot import BatchPlot
from advisor.ui.plots.context_plot import ContextPlot
from advisor.ui.plots.params_plot import ParamsPlot
from advisor.ui.recommend_panel import RecommendPanel
from advisor.ui.screen import clamp_to, fit_to_screen
from advisor.ui.store import NO_POINTS, Snapshot, Store
from advisor.ui.wheel import wheel_scrolls_panel
from advisor.ui.window_files import ExportsToFiles, suggested_stem

SCENARIO_FILTER = "Advisor scenario (*.json)"


def about_text() -> str:
    """Version, the one formula, and where the user's own files live (never inside the app bundle)."""
    return (
        f"<b>LLM speed advisor</b> {escape(advisor.__version__)}<br>"
        "tok/s ≈ η × bandwidth ÷ bytes read per token.<br>"
        "Catalog figures cite their sources; estimates are marked.<br><br>"
        f"Settings: {escape(str(config_dir()))}<br>"
        f"Your catalog entries: {escape(str(user_catalog_dir()))}"
    )


def _scroll(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    wheel_scrolls_panel(widget)
    return area


class MainWindow(ExportsToFiles, SavesToFile, QMainWindow):
    open_title = "Open scenario"
    save_title, default_name, file_filter = "Save scenario", "scenario.json", SCENARIO_FILTER

    def __init__(
        self, store: Store, settings: Settings | None = None, importer: Callable[[QWidget], None] | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.settings = settings or Settings()
        self.current_file: Path | None = None
        recent = [Path(f).parent for f in self.settings.recent_files[:1]]
        self.last_folder = recent[0] if recent and recent[0].is_dir() else None
        self._saved_session = store.session  # what the file (or the start) held: the title marks edits since
        self.update_title()
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)

        self.plots: dict[Axis, TokPlot] = {"context": ContextPlot(), "params": ParamsPlot(), "batch": BatchPlot()}
        for axis in ("params", "batch"):
            self.plots[axis].compact_legend()
            self.plots[axis].cache_legend()  # its entries are final now
        for plot in self.plots.values():
            plot.store = store
        # One view and one scene for the three plots: an edit then repaints them in one pass.
        self.dashboard = pg.GraphicsLayoutWidget()
        self.dashboard.setBackground(theme.BACKGROUND)
        grid = self.dashboard.ci
        grid.setContentsMargins(4, 4, 4, 4)
        grid.setSpacing(6)
        grid.addItem(self.plots["context"], row=0, col=0, colspan=2)
        grid.addItem(self.plots["params"], row=1, col=0)
        grid.addItem(self.plots["batch"], row=1, col=1)
        grid.layout.setRowStretchFactor(0, 52)
        grid.layout.setRowStretchFactor(1, 38)
        self.setCentralWidget(self.dashboard)

        self.hardware_panel = HardwarePanel(store)
        self.model_panel = ModelPanel(store, importer=(lambda: importer(self)) if importer else None)
        self.quant_panel = QuantPanel(store)
        self.workload_panel = WorkloadPanel(store)
        self.numbers_panel = NumbersPanel(store)
        self.recommend_panel = RecommendPanel(store)
        self.docks: dict[str, QDockWidget] = {}
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        right = Qt.DockWidgetArea.RightDockWidgetArea
        for key, title, widget, area in (
            # Every panel scrolls: on a laptop screen a panel's full height must not fix the splitters.
            ("hardware", "Hardware", _scroll(self.hardware_panel), left),
            ("model", "Model", _scroll(self.model_panel), left),
            ("quant", "Quant", _scroll(self.quant_panel), left),
            ("workload", "Workload", _scroll(self.workload_panel), left),
            ("numbers", "Numbers", _scroll(self.numbers_panel), right),
            ("recommend", "Recommendation", _scroll(self.recommend_panel), right),
        ):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{key}")
            dock.setWidget(widget)
            self.addDockWidget(area, dock)
            self.docks[key] = dock
        self.tabifyDockWidget(self.docks["hardware"], self.docks["model"])
        self.tabifyDockWidget(self.docks["model"], self.docks["quant"])
        self.docks["hardware"].raise_()
        # The recommendation sits under the numbers, not behind a tab: its answer is read beside them.
        self.splitDockWidget(self.docks["numbers"], self.docks["recommend"], Qt.Orientation.Vertical)
        self.arrange_docks(QSize(1600, 1000))

        self.status = QLabel()
        self.status.setFixedWidth(440)  # a fixed width: changing text must not re-lay out the window
        self.statusBar().addPermanentWidget(self.status)
        self._build_menus()
        store.changed.connect(self.show_snapshot)
        store.extras_changed.connect(self.plots["params"].show_extras)  # type: ignore[attr-defined]
        store.extras_changed.connect(self.show_status)
        for plot in self.plots.values():
            store.extras_changed.connect(plot.settle_range)
        store.rejected.connect(lambda msg: self.statusBar().showMessage(f"Not applied — {msg}", 8000))
        store.noted.connect(lambda msg: self.statusBar().showMessage(msg, 10000))
        store.history_changed.connect(self._history)
        self.show_snapshot(store.snapshot)
        self.plots["params"].show_extras(store.extras)  # type: ignore[attr-defined]
        self.show_status()
        self._history()

    # --- menus ----------------------------------------------------------------------------
    def _action(
        self,
        menu: object,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
        tip: str = "",
    ) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.setStatusTip(tip)
        act.setToolTip(tip)
        act.triggered.connect(lambda _checked=False: slot())
        menu.addAction(act)  # type: ignore[attr-defined]
        return act

    def _build_menus(self) -> None:
        bar = self.menuBar()
        f = bar.addMenu("&File")
        self._action(f, "&Open scenario…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = f.addMenu("Open &recent")
        self._action(f, "&Save scenario", self.save, QKeySequence.StandardKey.Save)
        self._action(f, "Save scenario &as…", self.save_as, QKeySequence.StandardKey.SaveAs)
        f.addSeparator()
        for axis, key in zip(AXES, ("1", "2", "3"), strict=True):
            self._action(
                f,
                f"Export {axis} plot as PNG…",
                partial(self.export_plot, axis),
                f"Ctrl+{key}",
                "1920×1080 PNG for slides",
            )
        self._action(f, "Export &dashboard as PNG…", self.export_dashboard, "Ctrl+E")
        self._action(f, "&Copy context plot to clipboard", lambda: self.copy_plot("context"), "Ctrl+Shift+C")
        for axis in AXES:
            self._action(f, f"Export {axis} curve as CSV…", partial(self.export_csv, axis))
        f.addSeparator()
        self._action(f, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        e = bar.addMenu("&Edit")
        self.undo_action = self._action(e, "&Undo", self.store.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(e, "&Redo", self.store.redo, QKeySequence.StandardKey.Redo)
        t = bar.addMenu("&Tools")
        self._action(
            t,
            "&Compare machines…",
            self.compare,
            "Ctrl+M",
            "Machines side by side with price, best under a budget, what it would take",
        )
        self._action(
            t,
            "&Measure your own…",
            self.measure,
            "Ctrl+B",
            "Paste llama-bench output (or a measured tok/s) to fit η for this machine; test RAM bandwidth",
        )
        v = bar.addMenu("&View")
        self._action(v, "&Feel it…", self.feel_it, "F5", "Stream sample text at the predicted speed")
        self.published_action = self._action(
            v,
            "Show &published runs",
            lambda: self.set_show_published(self.published_action.isChecked()),
            "Ctrl+Shift+P",
            "Squares for published llama-bench runs on this machine, on the plots and their exports",
        )
        self.published_action.setCheckable(True)
        self.published_action.setChecked(self.settings.show_published)
        for key, dock in self.docks.items():
            act = dock.toggleViewAction()
            act.setText(f"Show {dock.windowTitle()}")
            v.addAction(act)
            _ = key
        h = bar.addMenu("&Help")
        self._action(
            h,
            "How &accurate is it?…",
            self.accuracy,
            None,
            "Every catalog machine's published runs against the model, and the fitted terms",
        )
        self._action(h, "&About", self.about)
        self._fill_recent()

    def _history(self) -> None:
        self.undo_action.setEnabled(self.store.can_undo())
        self.redo_action.setEnabled(self.store.can_redo())
        self.undo_action.setText(f"&Undo {self.store.undo_text()}".strip())
        self.redo_action.setText(f"&Redo {self.store.redo_text()}".strip())

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files:
            self._action(self.recent_menu, path, partial(self.open_file, Path(path)))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    # --- drawing --------------------------------------------------------------------------
    def update_title(self) -> None:
        name = self.current_file.name if self.current_file else "untitled"
        self.setWindowTitle(f"{name}[*] — LLM speed advisor")  # [*]: Qt's place for the unsaved mark
        self.setWindowModified(self.store.session != self._saved_session)

    def suggested_name(self) -> str:
        return f"{suggested_stem(self.store.session)}.json"

    def show_snapshot(self, snap: Snapshot) -> None:
        self.setWindowModified(snap.session != self._saved_session)
        shown = self.shown(snap)
        for plot in self.plots.values():
            plot.show_snapshot(shown)  # type: ignore[attr-defined]

    def shown(self, snap: Snapshot) -> Snapshot:
        """What the plots and exports draw of a snapshot: without the published runs when they are off."""
        return snap if self.settings.show_published else replace(snap, published=NO_POINTS)

    def set_show_published(self, on: bool) -> None:
        self.settings = self.settings.model_copy(update={"show_published": on})
        self.published_action.setChecked(on)
        self.show_snapshot(self.store.snapshot)

    def show_status(self, _extras: object = None) -> None:
        """The status line follows once edits pause: repainting it repaints the window behind it."""
        snap = self.store.snapshot
        r = snap.result
        speed = f"{r.decode_tok_s:.1f} tok/s" if r.decode_tok_s is not None else "does not run"
        name = self.current_file.name if self.current_file else "untitled"
        room = (
            f"{r.total_gb:.1f} of {r.fast_capacity_gb:.1f} GB"
            if r.fast_capacity_gb is not None
            else f"{r.total_gb:.1f} GB (memory size not given)"
        )
        self.status.setText(f"{name} · {speed} · {room}")

    # --- files ----------------------------------------------------------------------------
    def open_file(self, path: Path) -> bool:
        try:
            session = load_session(path)
        except SessionFileError as err:
            self.error("Cannot open scenario", str(err))
            return False
        self.store.set_session(session, f"Open {path.name}")
        self.current_file = path
        self._saved_session = self.store.session
        self._remember(path)
        self.show_status()
        return True

    def save_to(self, path: Path) -> bool:
        try:
            save_session(self.store.session, path)
        except SessionFileError as err:
            self.error("Cannot save scenario", str(err))
            return False
        self.current_file = path
        self._saved_session = self.store.session
        self._remember(path)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def _remember(self, path: Path) -> None:
        self.settings = add_recent(self.settings, str(path))
        self.remember_folder(path)
        self._fill_recent()
        self.update_title()

    # --- misc -----------------------------------------------------------------------------
    def compare(self) -> None:
        from advisor.ui.compare import open_compare_window

        open_compare_window(self)

    def measure(self) -> None:
        from advisor.ui.measure_dialog import open_measure_dialog

        open_measure_dialog(self)

    def feel_it(self) -> None:
        r = self.store.snapshot.result
        FeelDialog(r.decode_tok_s, r.ttft_s, self).exec()

    def accuracy(self) -> None:
        from advisor.ui.accuracy_dialog import AccuracyDialog  # loads when asked: no cost at start

        AccuracyDialog(self.store.catalog, self).open()

    def about(self) -> None:
        QMessageBox.about(self, "About LLM speed advisor", about_text())

    def error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 10000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("error-box")
        box.open()

    def restore_layout(self, geometry: str | None, state: str | None) -> None:
        if geometry:
            self.restoreGeometry(QByteArray.fromBase64(geometry.encode()))
            clamp_to(self)  # saved on a larger screen: pulled back inside this one
        if state:
            self.restoreState(QByteArray.fromBase64(state.encode()))

    def fit_to_screen(self, preferred: tuple[int, int], arrange: bool = True, avail: QRect | None = None) -> None:
        """The preferred size or the available screen, whichever is smaller; the docks shared out for it."""
        fit_to_screen(self, preferred, avail)
        if arrange:
            self.arrange_docks(self.size())

    def arrange_docks(self, size: QSize) -> None:
        """Side columns about a quarter of the width each; the workload, edited all the time, half the
        left column's height."""
        side = max(min(400, size.width() * 27 // 100), 260)
        self.resizeDocks([self.docks["hardware"], self.docks["numbers"]], [side, side], Qt.Orientation.Horizontal)
        column = max(size.height() - 80, 300)  # less the menu and status bars
        self.resizeDocks(
            [self.docks["hardware"], self.docks["workload"]],
            [column // 2, column - column // 2],
            Qt.Orientation.Vertical,
        )
        self.resizeDocks(
            [self.docks["numbers"], self.docks["recommend"]],
            [column * 3 // 5, column * 2 // 5],
            Qt.Orientation.Vertical,
        )

    def layout_state(self) -> tuple[str, str]:
        return (
            bytes(self.saveGeometry().toBase64().data()).decode(),
            bytes(self.saveState().toBase64().data()).decode(),
        )

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        geometry, state = self.layout_state()
        self.settings = self.settings.model_copy(
            update={"session": self.store.session, "window_geometry": geometry, "window_state": state}
        )
        self.closed_settings = self.settings
        event.accept()
