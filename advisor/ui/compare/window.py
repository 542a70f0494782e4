"""The compare window: machines on the left; the model, quant and workload across the top; then
the side-by-side comparison (three overlaid plots, the verdict and the table), the budget ranking
and what it would take. It composes widgets and routes actions; the core computes."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QAction, QFont, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from advisor.catalog.loader import Catalog
from advisor.core.curves import AXES, Axis
from advisor.core.hardware import Hardware
from advisor.core.machines import CompareSetup, Machine
from advisor.core.presets import PRESETS
from advisor.core.scenario import Workload
from advisor.present.compare_text import comparison_verdict
from advisor.present.figures import PRICE_NOTE
from advisor.session import Session
from advisor.ui import export
from advisor.ui.compare.costs_bar import CostsBar
from advisor.ui.compare.files import COMPARE_FILTER, CompareFileError, load_setup, save_setup
from advisor.ui.compare.machines import MachinesPanel
from advisor.ui.compare.plots import ComparePlot
from advisor.ui.compare.slide import fill_table, freeze_machine_column, legend_text, save_csv, save_slide, show_plot
from advisor.ui.compare.state import CompareSnapshot, CompareStore
from advisor.ui.compare.tabs import BudgetTab
from advisor.ui.compare.take_tab import TakeTab
from advisor.ui.fields import read_value, show_value, spin_for
from advisor.ui.file_actions import SavesToFile
from advisor.ui.text_strip import TextStrip

# Figures that come from a catalog entry: if the main window's machine differs in one, it is "edited".
TABLE_ROWS_SHOWN = 5  # machines the comparison table shows without scrolling, at any window size
ENTRY_FIELDS = ("memory_gb", "bandwidth_gbps", "fp16_tflops", "gpu_memory_fraction", "host_link_gbps")
WORKLOAD_SPINS = (("context", 0), ("prompt_tokens", 0), ("streams", 0), ("interactive_tok_s", 1))


def current_machine(catalog: Catalog, session: Session) -> Machine:
    """The main window's machine: its catalog price (per device) when it came from the catalog."""
    hw: Hardware = session.scenario.hardware
    entry = catalog.hardware.get(session.hardware_id) if session.hardware_id else None
    edited = entry is None or any(getattr(hw, f) != getattr(entry, f) for f in ENTRY_FIELDS)
    name = entry.name if entry is not None else hw.name
    label = f"{hw.devices}× {name}" if hw.devices > 1 else name
    label = f"{label} (mine{', edited' if edited and entry is not None else ''})"
    price = entry.price_usd * hw.devices if entry is not None and entry.price_usd and not edited else None
    power = entry.power_w * hw.devices if entry is not None and entry.power_w else None
    return Machine(
        label=label,
        hardware=hw,
        price_usd=price,
        power_w=power,
        price_kind=entry.price_kind if price and entry is not None else None,
        price_seen=entry.price_seen if price and entry is not None else None,
        price_estimate=entry.price_estimate if entry is not None else True,
        catalog_id=entry.id if entry is not None else None,
        origin="current",
    )


def setup_from_session(catalog: Catalog, session: Session) -> CompareSetup:
    """A comparison that starts from the main window: its model, quant, workload and machine."""
    s = session.scenario
    mine = current_machine(catalog, session)
    return CompareSetup(
        machines=(mine,),
        model=s.model,
        quant=s.quant,
        workload=s.workload,
        model_id=session.model_id,
        quant_id=session.quant_id,
        current=mine,
    )


class CompareWindow(SavesToFile, QMainWindow):
    open_title = "Open comparison"
    save_title, default_name, file_filter = "Save comparison", "comparison.json", COMPARE_FILTER

    def __init__(self, catalog: Catalog, setup: CompareSetup, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setObjectName("compare-window")
        self.setWindowTitle("Compare machines — LLM speed advisor")
        self.store = CompareStore(catalog, setup, self)
        self.current_file: Path | None = None

        self.machines = MachinesPanel(self.store)
        self.machines.setMinimumWidth(360)

        # Model, quant and workload: what every tab is about.
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        for key, e in sorted(catalog.models.items(), key=lambda kv: (kv[1].total_params_b, kv[1].name)):
            self.model.addItem(e.name, key)
        completer = QCompleter(self.model.model(), self.model)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.model.setCompleter(completer)
        self.model.setToolTip("The model to compare on: type any part of its name")
        self.model.setMinimumContentsLength(16)
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.quant = QComboBox()
        for key, q in catalog.quants.items():
            self.quant.addItem(q.name, key)
        self.quant.setToolTip("Weight format")
        self.preset = QComboBox()
        self.preset.addItem("Preset…", None)
        for name in PRESETS:
            self.preset.addItem(name, name)
        self.preset.setToolTip(
            "Fill context, prompt, output, streams and threshold for a common situation; every tab uses it"
        )
        self.spins = {name: spin_for(Workload, name, decimals=d) for name, d in WORKLOAD_SPINS}
        for box in self.spins.values():
            box.setMaximumWidth(125)
        self.quant.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # Two rows, so the window fits a 1366-pixel laptop screen.
        bar = QVBoxLayout()
        for row_items in (
            (("Model", self.model), ("Quant", self.quant), ("", self.preset)),
            (
                ("Context", self.spins["context"]),
                ("Prompt", self.spins["prompt_tokens"]),
                ("Streams", self.spins["streams"]),
                ("Interactive ≥", self.spins["interactive_tok_s"]),
            ),
        ):
            row = QHBoxLayout()
            for text, widget in row_items:
                if text:
                    row.addWidget(QLabel(text))
                row.addWidget(widget)
            row.addStretch(1)
            bar.addLayout(row)

        # The comparison: verdict, plots, table.
        # Fixed-height strips: a verdict or legend that grows by a line must not re-lay out the window.
        bold = QFont(self.font())
        bold.setPointSizeF(11)
        bold.setBold(True)
        self.verdict = TextStrip(lines=3, font=bold)
        self.legend = TextStrip(lines=3)
        self.plots: dict[Axis, ComparePlot] = {axis: ComparePlot(axis) for axis in AXES}
        plot_row = QSplitter(Qt.Orientation.Horizontal)
        for axis in AXES:
            plot_row.addWidget(self.plots[axis])
        self.table = QTableWidget()
        # one text line a row (long cells elide; their tooltips say all), so a laptop screen shows five rows
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        row_h = self.table.fontMetrics().height() + 10
        self.table.verticalHeader().setDefaultSectionSize(row_h)
        note = QLabel(PRICE_NOTE + " Double-click a price on the left to use your own.")
        note.setStyleSheet("color: #6b6b6b")
        note.setWordWrap(True)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.table)
        self.costs = CostsBar(self.store)
        foot = QHBoxLayout()
        foot.addWidget(note, 1)
        foot.addWidget(self.costs)
        ll.addLayout(foot)
        self.table.setMinimumHeight(row_h * (TABLE_ROWS_SHOWN + 2))  # the header and five machines
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(plot_row)
        split.addWidget(lower)
        split.setSizes([430, 260])
        compare_tab = QWidget()
        cl = QVBoxLayout(compare_tab)
        cl.setContentsMargins(4, 4, 4, 4)
        cl.addWidget(self.verdict)
        cl.addWidget(self.legend)
        cl.addWidget(split, 1)

        self.budget = BudgetTab(self.store)
        self.take = TakeTab(self.store)
        self.tabs = QTabWidget()
        self.tabs.addTab(compare_tab, "Side by side")
        self.tabs.addTab(self.budget, "Best under a budget")
        self.tabs.addTab(self.take, "What would it take")

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(bar)
        rl.addWidget(self.tabs, 1)
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(self.machines)
        main.addWidget(right)
        main.setStretchFactor(1, 1)
        main.setSizes([370, 1130])
        self.setCentralWidget(main)
        self._build_actions()

        self.model.activated.connect(lambda _i: self._model_chosen())
        self.quant.activated.connect(lambda _i: self.store.set_quant(self.quant.currentData()))
        self.preset.activated.connect(lambda _i: self._preset())
        for name, box in self.spins.items():
            box.valueChanged.connect(lambda _v, n=name: self.store.update_workload(**{n: read_value(self.spins[n])}))
        self.store.changed.connect(self.show_snapshot)
        self.store.rejected.connect(lambda msg: self.statusBar().showMessage(f"Not applied — {msg}", 8000))
        self.show_snapshot(self.store.snapshot)
        self.resize(1500, 950)

    # --- actions ------------------------------------------------------------------------------
    def _action(self, menu: Any, text: str, slot: Callable[[], object], shortcut: Any = None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.setStatusTip(tip)
        act.setToolTip(tip or text)
        act.triggered.connect(lambda _checked=False: slot())
        menu.addAction(act)
        return act

    def _build_actions(self) -> None:
        f = self.menuBar().addMenu("&Comparison")
        tools = self.addToolBar("Comparison")
        tools.setObjectName("compare-tools")
        tools.setMovable(False)
        for text, slot, key, tip in (
            ("&Open comparison…", self.open_dialog, QKeySequence.StandardKey.Open, "Open a saved comparison"),
            ("&Save comparison", self.save, QKeySequence.StandardKey.Save, "Save machines, model and workload"),
            ("Save comparison &as…", self.save_as, QKeySequence.StandardKey.SaveAs, ""),
            ("Export &slide (PNG)…", self.export_png_dialog, "Ctrl+E", "Plots, verdict and table at 1920×1080"),
            ("Export &table (CSV)…", self.export_csv_dialog, "Ctrl+Shift+E", "The comparison table as CSV"),
        ):
            act = self._action(f, text, slot, key, tip)
            if "as…" not in text:
                tools.addAction(act)
        f.addSeparator()
        self._action(f, "&Close", self.close, QKeySequence.StandardKey.Close)

    # --- scenario bar ---------------------------------------------------------------------------
    def set_model(self, model_id: str) -> bool:
        return self.store.set_model(model_id)

    def _model_chosen(self) -> None:
        key = self.model.currentData()
        if key is None:  # typed text that names no model: find it, or put the old one back
            text = self.model.currentText().lower()
            key = next(
                (
                    self.model.itemData(i)
                    for i in range(self.model.count())
                    if text and text in self.model.itemText(i).lower()
                ),
                None,
            )
        if key is None or not self.store.set_model(key):
            self.show_snapshot(self.store.snapshot)

    def _preset(self) -> None:
        name = self.preset.currentData()
        if name:
            self.store.apply_preset(name)
            self.statusBar().showMessage(f"Preset: {name}", 4000)
        with QSignalBlocker(self.preset):
            self.preset.setCurrentIndex(0)

    # --- drawing --------------------------------------------------------------------------------
    def show_snapshot(self, snap: CompareSnapshot) -> None:
        s = snap.setup
        with QSignalBlocker(self.model):
            i = self.model.findData(s.model_id) if s.model_id else -1
            if i >= 0:
                self.model.setCurrentIndex(i)
            else:
                self.model.setEditText(s.model.name)
        with QSignalBlocker(self.quant):
            i = self.quant.findData(s.quant_id) if s.quant_id else -1
            self.quant.setCurrentIndex(i)
            if i < 0:
                self.quant.setPlaceholderText(s.quant.name)
        for name, box in self.spins.items():
            show_value(box, getattr(s.workload, name))
        self.spins["context"].setMaximum(s.model.max_context)
        for plot in self.plots.values():
            show_plot(plot, snap)
        self.legend.setText(legend_text(snap))
        fill_table(self.table, snap)
        freeze_machine_column(self.table, snap)
        self.verdict.setText(escape(comparison_verdict(snap.comparison)))
        name = self.current_file.name if self.current_file else "unsaved"
        self.setWindowTitle(f"Compare machines ({name}) — LLM speed advisor")

    # --- files ----------------------------------------------------------------------------------
    def open_file(self, path: Path) -> bool:
        try:
            setup = load_setup(path)
        except CompareFileError as err:
            self.error("Cannot open comparison", str(err))
            return False
        if setup.current is None and self.store.setup.current is not None:
            setup = setup.model_copy(update={"current": self.store.setup.current})
        self.current_file = path
        self.store.apply(setup)
        self.machines.current = self.store.setup.current
        self.show_snapshot(self.store.snapshot)
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def save_to(self, path: Path) -> bool:
        try:
            save_setup(self.store.setup, path)
        except CompareFileError as err:
            self.error("Cannot save comparison", str(err))
            return False
        self.current_file = path
        self.show_snapshot(self.store.snapshot)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    # --- exports --------------------------------------------------------------------------------
    def _ask(self, title: str, default: str, filt: str) -> Path | None:
        path, _ = QFileDialog.getSaveFileName(self, title, default, filt)
        return Path(path) if path else None

    def export_png_dialog(self) -> None:
        path = self._ask("Export comparison slide", "comparison.png", "PNG image (*.png)")
        if path is not None:
            self.export_png(path)

    def export_csv_dialog(self) -> None:
        path = self._ask("Export comparison table", "comparison.csv", "CSV (*.csv)")
        if path is not None:
            self.export_csv(path)

    def export_png(self, path: Path) -> bool:
        return self._export(lambda: save_slide(self.store.snapshot, path), path)

    def export_csv(self, path: Path) -> bool:
        return self._export(lambda: save_csv(self.store.snapshot, path), path)

    def _export(self, work: Callable[[], None], path: Path) -> bool:
        if not self.store.setup.machines:
            self.error("Nothing to export", "Add machines to the comparison first.")
            return False
        try:
            work()
        except export.ExportError as err:
            self.error("Export failed", str(err))
            return False
        self.statusBar().showMessage(f"Wrote {path}", 5000)
        return True

    def error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 10000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("error-box")
        box.open()


def open_compare_window(parent_window: Any) -> CompareWindow:
    """Open (or bring forward) the compare window for a main window: it starts from the main window's
    machine, model, quant and workload. The main window's scenario is never changed."""
    for child in parent_window.findChildren(CompareWindow):
        child.show()
        if QGuiApplication.platformName() != "offscreen":  # offscreen cannot raise windows (and says so)
            child.raise_()
            child.activateWindow()
        return child
    store = parent_window.store
    window = CompareWindow(store.catalog, setup_from_session(store.catalog, store.session), parent_window)
    window.show()
    return window
