"""Tools → Measure your own…: paste llama-bench output (or type a measured tok/s), see the rows, the
fitted η with its spread and what it changes, and keep it with your hardware as your own entry;
plus a host memory bandwidth test that fills in the CPU figures.

    dialog = open_measure_dialog(window)   # the window's store and hardware panel; non-modal

Everything that computes lives in advisor.measure (pure); this module shows and routes it. The Fit
button fits in a worker thread (a busy bar and Cancel beside it), so a long paste never freezes the window."""

from __future__ import annotations

import datetime as _dt
from html import escape
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.catalog.loader import Catalog, load_catalog
from advisor.catalog.schema import HardwareEntry
from advisor.catalog.user_store import UserStoreError, save_entry
from advisor.core.scenario import Scenario
from advisor.measure.entry import apply_measured, measured_entry
from advisor.measure.fit import Change, FitError, FitResult, RowFit, fit_eta, prediction_change
from advisor.measure.llama_bench import BenchError, BenchRow, parse_llama_bench, typed_row
from advisor.measure.switch import switch_offer
from advisor.paths import user_catalog_dir
from advisor.ui.measure_bandwidth import WARN, BandwidthSection
from advisor.ui.measure_switch import SwitchSection, TableRefused
from advisor.ui.panels.hardware_panel import pick_hardware
from advisor.ui.store import Store
from advisor.ui.workers import SHOW_AFTER_MS, Task, failure_message

COLUMNS = ("Test", "ngl", "Measured", "Ceiling η=1", "Implied η", "With your η", "Shipped model", "Note")
PLACEHOLDER = (
    "Paste what llama-bench printed — the markdown table (with its header line), or its "
    "-o json / -o jsonl output. For example:\n\n"
    "llama-bench -m model.gguf -p 512 -n 128 -d 0,4096,16384 -fa 1"
)


class MeasureDialog(SwitchSection, BandwidthSection, QDialog):
    def __init__(self, store: Store, parent: QWidget | None = None, hardware_panel: Any = None) -> None:
        super().__init__(parent)
        self.store = store
        self.hardware_panel = hardware_panel
        self.setWindowTitle("Measure your own")
        self.setObjectName("measure-dialog")
        self.rows: list[BenchRow] = []
        self.fit_result: FitResult | None = None
        self.change: Change | None = None
        self.saved: HardwareEntry | None = None
        self.fit_task: Task | None = None  # the fit running now, if any
        self._fitted_for: tuple[object, ...] | None = None  # the scenario the shown fit belongs to

        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.paste = QPlainTextEdit()
        self.paste.setPlaceholderText(PLACEHOLDER)
        self.paste.setMinimumHeight(140)
        self.typed = QDoubleSpinBox()
        self.typed.setRange(0.0, 1_000_000.0)
        self.typed.setDecimals(2)
        self.typed.setSpecialValueText("—")
        self.typed.setSuffix(" tok/s")
        self.typed.setToolTip(
            "A decode speed you measured yourself for exactly the current scenario "
            "(its context, streams and offload); leave at — to use only the pasted rows"
        )
        self.typed_label = QLabel()
        self.fit_button = QPushButton("Fit η")
        self.fit_button.setDefault(True)
        self.fit_progress = QProgressBar()
        self.fit_progress.setRange(0, 0)  # busy: a fit does not know its fraction
        self.fit_progress.setMaximumWidth(120)
        self.fit_cancel = QPushButton("Cancel")
        self.fit_cancel.setToolTip("Stop fitting: nothing of this fit is shown or kept")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setObjectName("measure-summary")
        self.save_button = QPushButton("Save with my hardware")
        self.save_button.setEnabled(False)

        typed_row_layout = QHBoxLayout()
        typed_row_layout.addWidget(self.typed_label, 1)
        typed_row_layout.addWidget(self.typed)
        typed_row_layout.addWidget(self.fit_button)
        typed_row_layout.addWidget(self.fit_progress)
        typed_row_layout.addWidget(self.fit_cancel)
        fit_box = QGroupBox("llama-bench results")
        fit_lay = QVBoxLayout(fit_box)
        fit_lay.addWidget(self.intro)
        fit_lay.addWidget(self.paste, 1)
        fit_lay.addLayout(typed_row_layout)
        fit_lay.addWidget(self.table, 1)
        fit_lay.addWidget(self.summary)
        save_row = QHBoxLayout()
        save_row.addWidget(self._switch_button())
        save_row.addStretch(1)
        save_row.addWidget(self.save_button)
        fit_lay.addLayout(save_row)

        bw_box = self._bandwidth_box()

        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(fit_box, 1)
        lay.addWidget(bw_box)
        lay.addLayout(bottom)
        self.resize(900, 760)

        self._fit_busy(False)
        self.fit_button.clicked.connect(lambda _c=False: self.start_fit())
        self.fit_cancel.clicked.connect(self.cancel_fit)
        self.save_button.clicked.connect(lambda _c=False: self.save())
        store.changed.connect(self._scenario_changed)
        self._scenario_changed()

    # --- the scenario the fit is for ----------------------------------------------------------
    def _scenario_changed(self, _snap: object = None) -> None:
        s = self.store.session.scenario
        self.intro.setText(
            f"For <b>{escape(s.hardware.name)}</b> running <b>{escape(s.model.name)}</b> at "
            f"<b>{escape(s.quant.name)}</b> ({s.quant.bits_per_weight:g} bits per weight). Run llama-bench with "
            "that model file on that machine, paste its output, and the advisor fits the share of bandwidth "
            "(η decode) and of compute (η prefill) your machine really gets. Saved, it becomes a factor on the "
            "fitted model for this machine (in full for the model you measured, a quarter of it for others), "
            "whenever you pick this hardware."
        )
        self.typed_label.setText(
            f"…or a decode speed you measured for this scenario (at its {s.workload.context:,}-token context):"
        )
        self._update_apply_label()
        if self._fitted_for is not None and self._fit_key(s, self.rows) != self._fitted_for:
            self.save_button.setEnabled(False)
            self.save_button.setText("The scenario changed: fit again to save")

    @staticmethod
    def _fit_key(s: Scenario, rows: list[BenchRow]) -> tuple[object, ...]:
        """What a fit depends on: the machine, model and quant, and for a typed figure the whole
        workload it was measured at (the efficiencies aside: saving sets those)."""
        key: tuple[object, ...] = (s.hardware.model_copy(update={"name": ""}), s.model, s.quant)
        if any(r.source == "typed" for r in rows):
            key += (s.workload.model_copy(update={"efficiency": None, "compute_efficiency": None}),)
        return key

    # --- fitting ------------------------------------------------------------------------------
    def _begin_fit(self) -> tuple[Scenario, str, float, Catalog, str | None]:
        """Clear the shown fit (never leave the last paste's message beside this one's rows); what to fit."""
        if self.fit_task is not None:
            self.fit_task.cancel()  # a newer fit replaces it
            self.fit_task = None
        self.fit_result = self.change = None
        self.save_button.setEnabled(False)
        self._fitted_for = None
        self.summary.setText("")
        self._show_offer(None)
        s = self.store.session
        return s.scenario, self.paste.toPlainText(), self.typed.value(), self.store.catalog, s.model_id

    def fit(self) -> FitResult | None:
        """Parse, fit and show in the calling thread (scripts and tests; the Fit button runs start_fit)."""
        job = self._begin_fit()
        scenario = job[0]
        try:
            outcome = compute_fit(*job)
        except Exception as err:  # any failure of a fit is its message, as from the worker
            self._fit_failed(err)
            return None
        return self._fit_done(scenario, outcome)

    def start_fit(self) -> Task:
        """Fit in a worker thread; the rows and summary appear when it ends, unless cancelled first."""
        job = self._begin_fit()
        scenario = job[0]
        task = Task(lambda: compute_fit(*job), self)
        task.succeeded.connect(lambda outcome: self._fit_done(scenario, outcome))
        task.failed.connect(self._fit_failed)
        self.fit_task = task
        self.fit_button.setEnabled(False)
        QTimer.singleShot(SHOW_AFTER_MS, self, lambda: self._fit_busy(self.fit_task is task))  # no flash
        task.start()
        return task

    def cancel_fit(self) -> None:
        if self.fit_task is not None:
            self.fit_task.cancel()
            self.fit_task = None
            self._fit_busy(False)
            self._error("Cancelled: nothing fitted.")

    def _fit_busy(self, busy: bool) -> None:
        self.fit_progress.setVisible(busy)
        self.fit_cancel.setVisible(busy)
        self.fit_button.setEnabled(not busy and self.fit_task is None)

    def _fit_failed(self, err: BaseException) -> None:
        self.fit_task = None
        self._fit_busy(False)
        self.rows = []
        self._show_rows([], [])
        self._error(failure_message(err))
        if isinstance(err, TableRefused):  # another model's table: offer to switch to it
            self._show_offer(err.offer)

    def _fit_done(self, scenario: Scenario, outcome: tuple[list[BenchRow], FitResult, Change]) -> FitResult:
        self.fit_task = None
        self._fit_busy(False)
        self.rows, fit, self.change = outcome
        self.fit_result = fit
        fitted = [r for f in (fit.decode, fit.prefill) if f is not None for r in f.rows]
        self._show_rows(fitted, list(fit.skipped))
        self.summary.setText(self._summary_html(fit, self.change))
        self.save_button.setEnabled(True)
        self.save_button.setText(f"Save as “{self._entry_name()}” and use it")
        self._fitted_for = self._fit_key(scenario, self.rows)
        self._scenario_changed()  # the scenario may have changed while the fit ran
        return fit

    def _entry_name(self) -> str:
        s = self.store.session
        entry = self.store.catalog.hardware.get(s.hardware_id) if s.hardware_id else None
        name = entry.name if entry is not None else s.scenario.hardware.name
        return name if name.endswith("(mine)") else f"{name} (mine)"

    def _error(self, message: str) -> None:
        self.summary.setText(f"<span style='color:{WARN}'>{escape(message)}</span>")

    def _show_rows(self, fitted: list[RowFit], skipped: list[tuple[BenchRow, str]]) -> None:
        self.table.setRowCount(len(fitted) + len(skipped))
        for i, r in enumerate(fitted):
            shipped = f"{r.shipped:.1f} ({100 * (r.shipped_error or 0):+.0f} %)" if r.shipped else "—"
            cells = (
                r.row.label,
                _ngl(r.row),
                f"{r.row.tok_s:.2f}",
                f"{r.ceiling:.1f}",
                f"{r.implied_eta:.3f}",
                f"{r.predicted:.1f} ({100 * r.residual:+.1f} %)",
                shipped,
                "η > 1: faster than the ceiling" if r.implied_eta > 1 else "",
            )
            self._set_row(i, cells)
        for j, (row, why) in enumerate(skipped, start=len(fitted)):
            self._set_row(j, (row.label, _ngl(row), f"{row.tok_s:.2f}", "", "", "", "", f"not used: {why}"))

    def _set_row(self, i: int, cells: tuple[str, ...]) -> None:
        for col, text in enumerate(cells):
            self.table.setItem(i, col, QTableWidgetItem(text))

    @staticmethod
    def _summary_html(fit: FitResult, change: Change) -> str:
        lines = []
        for f in (fit.decode, fit.prefill):
            if f is None:
                continue
            lines.append(f"<b>{escape(f.summary())}</b>")
            shipped = f.shipped_median_abs_error
            if shipped is not None:
                lines.append(
                    f"On these rows the shipped model is off by a median {100 * shipped:.1f} %; "
                    f"your η by {100 * f.median_abs_residual:.1f} %."
                )
        if fit.decode is None:
            lines.append("No tg rows: decode η is not fitted (run llama-bench with -n).")
        if fit.prefill is None:
            lines.append("No pp rows: prefill η is not fitted.")
        lines.append(f"Your current scenario: {escape(change.summary())}.")
        lines += [f"<span style='color:{WARN}'>{escape(n)}</span>" for n in fit.notes]
        return "<br>".join(lines)

    # --- saving -------------------------------------------------------------------------------
    def save(self) -> HardwareEntry | None:
        """Save the fitted η and points as the user's copy of the current hardware, then switch to it."""
        fit = self.fit_result
        if fit is None:
            return None
        store = self.store
        session = store.session
        base = store.catalog.hardware.get(session.hardware_id) if session.hardware_id else None
        s = session.scenario
        try:
            entry = measured_entry(
                base,
                s.hardware,
                fit,
                model_id=session.model_id,
                quant_id=session.quant_id,
                when=_dt.date.today().isoformat(),
                model_name=f"{s.model.name} {s.quant.name}",
            )
            save_entry("hardware", entry, user_catalog_dir())
        except (UserStoreError, OSError, ValueError) as err:  # ValueError: an entry that does not validate
            self._error(f"Not saved: {err}")
            return None
        self._fitted_for = None  # switching to the saved entry is not a change that voids the fit
        self.save_button.setEnabled(False)
        self.save_button.setText("Saved")
        store.set_catalog(load_catalog(user_catalog_dir()))
        if self.hardware_panel is not None:
            self.hardware_panel.refresh_entries()
        data = store.session.model_dump()
        data["scenario"]["hardware"] = pick_hardware(store.session.scenario.hardware, entry)
        data["scenario"]["workload"] = apply_measured(data["scenario"]["workload"], base, entry)
        data["hardware_id"] = entry.id
        store.set_session(data, f"Use measured η ({entry.name})")
        self.saved = entry
        self.summary.setText(
            self.summary.text() + f"<br>Saved as <b>{escape(entry.name)}</b> "
            f"({escape(entry.id)}) in {escape(str(user_catalog_dir()))}; it is selected now."
        )
        return entry

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        self.cancel_fit()
        self._stop_bandwidth()
        super().closeEvent(event)


def compute_fit(
    scenario: Scenario, text: str, typed: float, catalog: Catalog | None = None, model_id: str | None = None
) -> tuple[list[BenchRow], FitResult, Change]:
    """The pasted rows (and a typed figure), the fit and what it changes: pure, run in a worker. A table
    refused as another model raises TableRefused with the catalog pick it matches."""
    rows = parse_llama_bench(text) if text.strip() else []
    if typed > 0:
        rows.append(typed_row(typed, scenario.workload.context))
    if not rows:
        raise BenchError("paste llama-bench output, or type a decode speed you measured")
    try:
        fit = fit_eta(scenario, rows)
    except FitError as err:
        offer = switch_offer(scenario, rows, catalog.models, catalog.quants, model_id) if catalog else None
        if offer is not None:
            raise TableRefused(str(err), offer) from err
        raise
    return rows, fit, prediction_change(scenario, fit)


def _ngl(row: BenchRow) -> str:
    if row.source == "typed":
        return "as set"
    return "" if row.ngl is None else str(row.ngl)


def open_measure_dialog(window: Any) -> MeasureDialog:
    """Show the dialog for the main window (its store and hardware panel); one per window, raised if open."""
    existing = getattr(window, "_measure_dialog", None)
    if isinstance(existing, MeasureDialog):
        existing.show()
        existing.raise_()
        existing.activateWindow()
        return existing
    dialog = MeasureDialog(window.store, window, getattr(window, "hardware_panel", None))
    window._measure_dialog = dialog
    dialog.show()
    return dialog
