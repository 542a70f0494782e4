"""The budget tab: the whole catalog under a price cap, for the comparison's model (those that hold it
at the interactive speed first, cheapest first) or by the largest model each runs; and the helpers
the buying tabs share. Tabs recompute only when shown or when their inputs change."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.core.budget import BudgetRanking, rank_budget
from advisor.core.budget_model import ModelBudget, rank_for_model
from advisor.core.fmt import num
from advisor.core.machines import Machine, catalog_machines
from advisor.present.budget_text import budget_reason, fit_reason
from advisor.present.figures import PRICE_NOTE, price_dated, rate, split_text
from advisor.present.figures import price_tip as dated_tip
from advisor.present.serving_text import streams_cell, streams_phrase
from advisor.ui.compare.state import CompareSnapshot, CompareStore

MACHINE_ROLE = Qt.ItemDataRole.UserRole
LARGEST_HEADERS = ["#", "Machine", "Price", "Largest interactive model", "tok/s", "tok/s per $1k", "Why"]
MODEL_HEADERS = ["#", "Machine", "Split", "Price", "Fits fast memory", "tok/s", "Streams at speed", "Why"]


def price_tip(m: Machine) -> str:
    return dated_tip(m.price_usd, m.price_estimate, m.price_kind, m.price_seen)


NAME_WIDTH = 250  # px: the budget's machine column; longer names elide (their tooltip says all)


def _stretch(t: QTableWidget, stretch: int) -> None:
    """Figures sized to their contents, the machine name to a fixed width, the reason takes the rest:
    one text line a row on a laptop screen (the reason's tooltip reads in full)."""
    head = t.horizontalHeader()
    for i in range(t.columnCount()):
        head.setSectionResizeMode(
            i, QHeaderView.ResizeMode.Stretch if i == stretch else QHeaderView.ResizeMode.ResizeToContents
        )
    head.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
    head.resizeSection(1, NAME_WIDTH)


def _price(m: Machine) -> str:
    return price_dated(m.price_usd, m.price_estimate, m.price_kind, m.price_seen)


def _cell(text: str, machine: Machine | None = None, right: bool = False, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if machine is not None:
        item.setData(MACHINE_ROLE, machine)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if tip:
        item.setToolTip(tip)
    return item


def _table(headers: list[str], stretch: int) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.verticalHeader().hide()
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setWordWrap(True)
    head = t.horizontalHeader()
    for i in range(len(headers)):
        head.setSectionResizeMode(
            i, QHeaderView.ResizeMode.Stretch if i == stretch else QHeaderView.ResizeMode.ResizeToContents
        )
    return t


def _money_spin(maximum: float, step: float, tip: str, special: str | None = None) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0 if special else 1, maximum)
    box.setDecimals(0)
    box.setSingleStep(step)
    box.setPrefix("$")
    box.setGroupSeparatorShown(True)
    box.setKeyboardTracking(False)
    box.setToolTip(tip)
    if special:
        box.setSpecialValueText(special)
    return box


class _Tab(QWidget):
    """Recomputes when its inputs change, but only while visible (or when asked)."""

    def __init__(self, store: CompareStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._done_key: str | None = None
        store.changed.connect(self._changed)

    def key(self) -> str:
        raise NotImplementedError

    def _changed(self, snap: CompareSnapshot) -> None:
        self.show_inputs(snap)
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: object) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)  # type: ignore[arg-type]
        self.refresh()

    def refresh(self, force: bool = False) -> None:
        key = self.key()
        if force or key != self._done_key:
            self._done_key = key
            self.compute()

    def show_inputs(self, snap: CompareSnapshot) -> None:
        pass

    def compute(self) -> None:
        raise NotImplementedError

    def selected_machine(self, table: QTableWidget) -> Machine | None:
        rows = table.selectionModel().selectedRows()
        if not rows:
            return None
        item = table.item(rows[0].row(), 0)
        return item.data(MACHINE_ROLE) if item else None


class BudgetTab(_Tab):
    def __init__(self, store: CompareStore, parent: QWidget | None = None) -> None:
        super().__init__(store, parent)
        self.max_price = _money_spin(100_000_000, 250, "The most you would spend")
        self.max_price.setMinimum(100)
        self.sets = QCheckBox("Include 2× and 4× GPU sets")
        self.sets.setToolTip(
            "Two and four of each desktop or datacenter GPU, layer split (as llama.cpp runs them), priced per card"
        )
        self.used = QCheckBox("Used prices")
        self.used.setToolTip(
            "Price machines at their used price where the catalog has one (dated and sourced); "
            "the rest keep their new price. Each price says which it is and when it was seen."
        )
        self.pc = _money_spin(
            100_000,
            100,
            "Added to every discrete-GPU option: catalog GPU prices are the card "
            "alone, so this is the PC around it. $0 if you already have one.",
            special="$0 (cards only)",
        )
        self.by = QComboBox()
        self.by.addItem("your model: holds it at your speed, cheapest first", "model")
        self.by.addItem("the largest model each runs interactively", "largest")
        self.by.setToolTip("Rank for the comparison's model, quant and context, or by the largest catalog model")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = _table(LARGEST_HEADERS, stretch=6)
        self.table.setWordWrap(False)
        self.add_button = QPushButton("Add selected to comparison")
        self.note = QLabel(PRICE_NOTE)
        self.note.setStyleSheet("color: #6b6b6b")
        self.note.setWordWrap(True)
        # Two rows, so the tab fits a 1366-pixel laptop screen beside the machines.
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Max price"))
        controls.addWidget(self.max_price)
        controls.addWidget(QLabel("Rank by"))
        controls.addWidget(self.by)
        controls.addStretch(1)
        more = QHBoxLayout()
        more.addWidget(self.sets)
        more.addWidget(self.used)
        more.addSpacing(12)
        more.addWidget(QLabel("PC around GPUs"))
        more.addWidget(self.pc)
        more.addStretch(1)
        more.addWidget(self.add_button)
        lay = QVBoxLayout(self)
        lay.addLayout(controls)
        lay.addLayout(more)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.note)
        self.ranking: BudgetRanking | None = None
        self.for_model: ModelBudget | None = None

        self.max_price.valueChanged.connect(lambda v: store.update(budget_usd=float(v)))
        self.sets.toggled.connect(lambda on: store.update(include_sets=on))
        self.used.toggled.connect(lambda on: store.update(budget_used=on))
        self.by.activated.connect(lambda _i: store.update(budget_by=self.by.currentData()))
        self.pc.valueChanged.connect(lambda v: store.update(pc_price_usd=float(v)))
        self.add_button.clicked.connect(self.add_selected)
        self.table.itemDoubleClicked.connect(lambda _i: self.add_selected())
        self.show_inputs(store.snapshot)

    def key(self) -> str:
        s = self.store.setup
        return (
            f"{s.scenario.model_dump_json()}|{s.budget_usd}|{s.include_sets}|{s.pc_price_usd}|{s.budget_by}|"
            f"{s.set_split}|{s.budget_used}|{s.costs.model_dump_json()}"
        )

    def show_inputs(self, snap: CompareSnapshot) -> None:
        s = snap.setup
        for box, value in ((self.max_price, s.budget_usd), (self.pc, s.pc_price_usd)):
            with QSignalBlocker(box):
                box.setValue(value)
        for check, on in ((self.sets, s.include_sets), (self.used, s.budget_used)):
            with QSignalBlocker(check):
                check.setChecked(on)
        with QSignalBlocker(self.by):
            self.by.setCurrentIndex(max(self.by.findData(s.budget_by), 0))

    def compute(self) -> None:
        s = self.store.setup
        machines = catalog_machines(
            self.store.catalog.hardware.values(),
            (2, 4) if s.include_sets else (),
            s.pc_price_usd,
            split=s.set_split,
            used=s.budget_used,
        )
        if s.budget_by == "model":
            self._show_model(rank_for_model(machines, s.scenario, s.budget_usd, top=None, costs=s.costs))
            return
        self.for_model = None
        self.table.setColumnCount(len(LARGEST_HEADERS))
        self.table.setHorizontalHeaderLabels(LARGEST_HEADERS)
        _stretch(self.table, 6)
        r = rank_budget(machines, s.scenario, self.store.models, self.store.quants, s.budget_usd)
        self.ranking = r
        w = s.workload
        self.summary.setText(
            f"<b>Best under ${s.budget_usd:,.0f}</b> for {w.context:,} tokens of context, {w.streams} stream"
            f"{'s' if w.streams > 1 else ''}, interactive at ≥ {rate(w.interactive_tok_s)} tok/s: ranked by the "
            f"largest catalog model each runs interactively, then its speed. {len(r.ranked)} machines fit the budget"
            + (f"; {r.over_budget} cost more" if r.over_budget else "")
            + "."
        )
        self.table.setRowCount(len(r.ranked))
        for row, x in enumerate(r.ranked):
            big = x.largest
            reason = budget_reason(x, r.threshold_tok_s)
            cells = [
                _cell(str(x.rank), x.machine, right=True),
                _cell(x.machine.label, tip=x.machine.label),
                _cell(_price(x.machine), right=True, tip=price_tip(x.machine)),
                _cell("nothing interactive" if big is None else f"{big.model_name} {big.quant_name}"),
                _cell("—" if big is None else num(big.decode_tok_s), right=True),
                _cell("—" if x.tok_s_per_k_usd is None else num(x.tok_s_per_k_usd), right=True),
                _cell(reason, tip=reason),
            ]
            for col, item in enumerate(cells):
                self.table.setItem(row, col, item)

    def _show_model(self, b: ModelBudget) -> None:
        self.for_model = b
        self.ranking = None
        self.table.setColumnCount(len(MODEL_HEADERS))
        self.table.setHorizontalHeaderLabels(MODEL_HEADERS)
        _stretch(self.table, len(MODEL_HEADERS) - 1)
        w = self.store.setup.workload
        self.summary.setText(
            f"<b>{escape(b.model_name)} {escape(b.quant_name)} under ${b.max_price_usd:,.0f}</b> at "
            f"{b.context:,} tokens of context, {b.streams} stream{'s' if b.streams > 1 else ''}: "
            f"{len(b.meeting)} machines hold it in fast memory at ≥ {rate(w.interactive_tok_s)} tok/s, "
            "cheapest first; then those that spill to system RAM or fall short, each with why"
            + (f"; {b.over_budget} cost more" if b.over_budget else "")
            + "."
        )
        rows = (*b.meeting, *b.short)
        self.table.setRowCount(len(rows))
        for row, x in enumerate(rows):
            reason = fit_reason(x, b.threshold_tok_s)
            fits = "not checked" if x.fits is None else "yes" if x.fits else f"no: {x.offloaded_fraction:.0%} in RAM"
            cells = [
                _cell(str(x.rank), x.machine, right=True),
                _cell(x.machine.label, tip=x.machine.label),
                _cell(split_text(x.machine.devices, x.split) or "—"),
                _cell(_price(x.machine), right=True, tip=price_tip(x.machine)),
                _cell(fits),
                _cell("—" if x.decode_tok_s is None else num(x.decode_tok_s), right=True),
                _cell(
                    streams_cell(x.max_streams, None, x.requests_per_hour),
                    right=True,
                    tip=streams_phrase(x.max_streams, None, x.requests_per_hour),
                ),
                _cell(reason, tip=reason),
            ]
            for col, item in enumerate(cells):
                self.table.setItem(row, col, item)

    def add_selected(self) -> bool:
        m = self.selected_machine(self.table)
        return m is not None and self.store.add_machine(m)
