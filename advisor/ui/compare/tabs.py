"""The buying tabs: the whole catalog ranked under a budget, and what it would take to reach a speed.
Both use the comparison's workload (and, for the second, its model and quant); both recompute only
when shown or when their inputs change."""

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
from advisor.core.fmt import num
from advisor.core.machines import Machine, catalog_machines
from advisor.core.upgrades import Option, Plan, what_would_it_take
from advisor.present.budget_text import budget_reason
from advisor.present.figures import PRICE_NOTE, price_text, rate
from advisor.present.upgrade_text import KIND_TEXT, option_description
from advisor.ui.compare.state import CompareSnapshot, CompareStore

MACHINE_ROLE = Qt.ItemDataRole.UserRole


def _price(m: Machine) -> str:
    return price_text(m.price_usd, m.price_estimate)


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
        head.setSectionResizeMode(i, QHeaderView.ResizeMode.Stretch if i == stretch
                                  else QHeaderView.ResizeMode.ResizeToContents)
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
        self.sets.setToolTip("Two and four of each desktop or datacenter GPU, layer split (as llama.cpp runs "
                             "them), priced per card")
        self.pc = _money_spin(100_000, 100, "Added to every discrete-GPU option: catalog GPU prices are the card "
                                             "alone, so this is the PC around it. $0 if you already have one.",
                              special="$0 (cards only)")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = _table(["#", "Machine", "Price", "Largest interactive model", "tok/s", "tok/s per $1k", "Why"],
                            stretch=6)
        self.add_button = QPushButton("Add selected to comparison")
        self.note = QLabel(PRICE_NOTE)
        self.note.setStyleSheet("color: #6b6b6b")
        self.note.setWordWrap(True)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Max price"))
        controls.addWidget(self.max_price)
        controls.addSpacing(12)
        controls.addWidget(self.sets)
        controls.addSpacing(12)
        controls.addWidget(QLabel("PC around GPUs"))
        controls.addWidget(self.pc)
        controls.addStretch(1)
        controls.addWidget(self.add_button)
        lay = QVBoxLayout(self)
        lay.addLayout(controls)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.note)
        self.ranking: BudgetRanking | None = None

        self.max_price.valueChanged.connect(lambda v: store.update(budget_usd=float(v)))
        self.sets.toggled.connect(lambda on: store.update(include_sets=on))
        self.pc.valueChanged.connect(lambda v: store.update(pc_price_usd=float(v)))
        self.add_button.clicked.connect(self.add_selected)
        self.table.itemDoubleClicked.connect(lambda _i: self.add_selected())
        self.show_inputs(store.snapshot)

    def key(self) -> str:
        s = self.store.setup
        return f"{s.workload.model_dump_json()}|{s.budget_usd}|{s.include_sets}|{s.pc_price_usd}"

    def show_inputs(self, snap: CompareSnapshot) -> None:
        s = snap.setup
        for box, value in ((self.max_price, s.budget_usd), (self.pc, s.pc_price_usd)):
            with QSignalBlocker(box):
                box.setValue(value)
        with QSignalBlocker(self.sets):
            self.sets.setChecked(s.include_sets)

    def compute(self) -> None:
        s = self.store.setup
        machines = catalog_machines(self.store.catalog.hardware.values(), (2, 4) if s.include_sets else (),
                                    s.pc_price_usd)
        r = rank_budget(machines, s.scenario, self.store.models, self.store.quants, s.budget_usd)
        self.ranking = r
        w = s.workload
        self.summary.setText(
            f"<b>Best under ${s.budget_usd:,.0f}</b> for {w.context:,} tokens of context, {w.streams} stream"
            f"{'s' if w.streams > 1 else ''}, interactive at ≥ {rate(w.interactive_tok_s)} tok/s: ranked by the "
            f"largest catalog model each runs interactively, then its speed. {len(r.ranked)} machines fit the budget"
            + (f"; {r.over_budget} cost more" if r.over_budget else "") + ".")
        self.table.setRowCount(len(r.ranked))
        for row, x in enumerate(r.ranked):
            big = x.largest
            reason = budget_reason(x, r.threshold_tok_s)
            cells = [
                _cell(str(x.rank), x.machine, right=True),
                _cell(x.machine.label, tip=x.machine.label),
                _cell(_price(x.machine), right=True),
                _cell("nothing interactive" if big is None else f"{big.model_name} {big.quant_name}"),
                _cell("—" if big is None else num(big.decode_tok_s), right=True),
                _cell("—" if x.tok_s_per_k_usd is None else num(x.tok_s_per_k_usd), right=True),
                _cell(reason, tip=reason),
            ]
            for col, item in enumerate(cells):
                self.table.setItem(row, col, item)

    def add_selected(self) -> bool:
        m = self.selected_machine(self.table)
        return m is not None and self.store.add_machine(m)


class TakeTab(_Tab):
    """What would it take: the cheapest catalog machines and sets for a target, and the user's upgrades."""

    CURRENT = "__current__"

    def __init__(self, store: CompareStore, parent: QWidget | None = None) -> None:
        super().__init__(store, parent)
        self.target = QDoubleSpinBox()
        self.target.setRange(0.5, 100_000)
        self.target.setDecimals(1)
        self.target.setSuffix(" tok/s")
        self.target.setKeyboardTracking(False)
        self.target.setToolTip("Decode speed per stream to reach")
        self.ttft = QDoubleSpinBox()
        self.ttft.setRange(0, 100_000)
        self.ttft.setDecimals(1)
        self.ttft.setSuffix(" s")
        self.ttft.setSpecialValueText("any")
        self.ttft.setKeyboardTracking(False)
        self.ttft.setToolTip("Longest acceptable time to first token for the prompt; 'any' leaves it out")
        self.mine = QComboBox()
        self.mine.setToolTip("The machine to upgrade: yours from the main window, or one being compared")
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.cheapest = _table(["Price", "Machine", "tok/s", "TTFT"], stretch=1)
        self.current = QLabel()
        self.current.setWordWrap(True)
        self.upgrades = _table(["Upgrade", "Adds", "tok/s", "TTFT", "Reaches it"], stretch=0)
        self.add_button = QPushButton("Add selected to comparison")
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Target"))
        controls.addWidget(self.target)
        controls.addWidget(QLabel("TTFT at most"))
        controls.addWidget(self.ttft)
        controls.addSpacing(12)
        controls.addWidget(QLabel("Upgrade"))
        controls.addWidget(self.mine, 1)
        controls.addWidget(self.add_button)
        lay = QVBoxLayout(self)
        lay.addLayout(controls)
        lay.addWidget(self.header)
        lay.addWidget(self.cheapest, 3)
        lay.addWidget(self.current)
        lay.addWidget(self.upgrades, 2)
        self.plan: Plan | None = None

        self.target.valueChanged.connect(lambda v: store.update(target_tok_s=float(v)))
        self.ttft.valueChanged.connect(lambda v: store.update(target_ttft_s=float(v) or None))
        self.mine.activated.connect(lambda _i: self.refresh())
        self.add_button.clicked.connect(self.add_selected)
        self.cheapest.itemDoubleClicked.connect(lambda _i: self.add_selected())
        self.upgrades.itemDoubleClicked.connect(lambda _i: self.add_selected())
        self.show_inputs(store.snapshot)

    def key(self) -> str:
        s = self.store.setup
        return (f"{s.scenario.model_dump_json()}|{s.target_tok_s}|{s.target_ttft_s}|{s.include_sets}|"
                f"{s.pc_price_usd}|{self.mine.currentData()}|{self._machine_to_upgrade()}")

    def show_inputs(self, snap: CompareSnapshot) -> None:
        s = snap.setup
        with QSignalBlocker(self.target):
            self.target.setValue(s.target_tok_s)
        with QSignalBlocker(self.ttft):
            self.ttft.setValue(s.target_ttft_s or 0)
        names = (s.current.label if s.current else None, tuple(m.label for m in s.machines))
        if names == getattr(self, "_names", None):
            return
        self._names = names
        chosen = self.mine.currentData()
        with QSignalBlocker(self.mine):
            self.mine.clear()
            self.mine.addItem("nothing", None)
            if s.current is not None:
                self.mine.addItem(f"my machine: {s.current.label}", self.CURRENT)
            for m in s.machines:
                self.mine.addItem(m.label, m.label)
            index = self.mine.findData(chosen) if chosen is not None else -1
            if index < 0:
                index = self.mine.findData(self.CURRENT)
            self.mine.setCurrentIndex(max(index, 0))

    def _machine_to_upgrade(self) -> Machine | None:
        data = self.mine.currentData()
        s = self.store.setup
        if data == self.CURRENT:
            return s.current
        return next((m for m in s.machines if m.label == data), None)

    def compute(self) -> None:
        s = self.store.setup
        machines = catalog_machines(self.store.catalog.hardware.values(), (2, 4) if s.include_sets else (),
                                    s.pc_price_usd)
        mine = self._machine_to_upgrade()
        p = what_would_it_take(s.scenario, s.target_tok_s, machines, target_ttft_s=s.target_ttft_s, current=mine)
        self.plan = p
        ttft = f" and the first token within {rate(p.target_ttft_s)} s" if p.target_ttft_s else ""
        lead = "Cheapest catalog machines and sets" if p.cheapest else "Nothing in the catalog reaches it; the fastest"
        self.header.setText(
            f"<b>{escape(p.model_name)} {escape(p.quant_name)}</b> at {p.context:,} tokens of context, "
            f"≥ {rate(p.target_tok_s)} tok/s per stream{ttft}. {lead}:")
        shown = p.cheapest or p.closest
        self.cheapest.setRowCount(len(shown))
        for row, o in enumerate(shown):
            for col, item in enumerate([
                _cell(_price(o.machine), o.machine, right=True),
                _cell(o.machine.label),
                _cell("does not run" if o.decode_tok_s is None else num(o.decode_tok_s), right=True),
                _cell("—" if o.ttft_s is None else f"{num(o.ttft_s)} s", right=True),
            ]):
                self.cheapest.setItem(row, col, item)
        self._show_upgrades(p)

    def _show_upgrades(self, p: Plan) -> None:
        c = p.current
        options: list[Option] = []
        if c is None:
            self.current.setText("Choose a machine to upgrade above to see the smallest upgrade that reaches "
                                 "the target.")
        else:
            now = ("does not run it" if c.decode_tok_s is None else f"runs it at {num(c.decode_tok_s)} tok/s"
                   + (f", first token in {num(c.ttft_s)} s" if c.ttft_s is not None else ""))
            if c.meets:
                self.current.setText(f"<b>{escape(c.machine.label)}</b> {now}: it already reaches the target.")
            elif p.upgrades:
                u = p.upgrades[0]
                cost = "price unknown" if u.cost_usd is None else f"${u.cost_usd:,.0f}"
                self.current.setText(f"<b>{escape(c.machine.label)}</b> {now}. Smallest upgrade that reaches it: "
                                     f"<b>{escape(option_description(u))}</b> ({cost}), "
                                     f"{num(u.decode_tok_s or 0)} tok/s.")
            else:
                self.current.setText(f"<b>{escape(c.machine.label)}</b> {now}. No single upgrade in the catalog "
                                     "reaches it; below, the best each kind of upgrade can do.")
            if not c.meets:
                options = list(p.upgrades) + list(p.short)
        self.upgrades.setRowCount(len(options))
        for row, o in enumerate(options):
            desc = option_description(o)
            for col, item in enumerate([
                _cell(f"{KIND_TEXT[o.kind]}: {desc}", o.machine, tip=desc),
                _cell("price unknown" if o.cost_usd is None else f"${o.cost_usd:,.0f}", right=True),
                _cell("does not run" if o.decode_tok_s is None else num(o.decode_tok_s), right=True),
                _cell("—" if o.ttft_s is None else f"{num(o.ttft_s)} s", right=True),
                _cell("yes" if o.meets else "no"),
            ]):
                self.upgrades.setItem(row, col, item)

    def add_selected(self) -> bool:
        table = self.upgrades if self.upgrades.hasFocus() else self.cheapest
        m = self.selected_machine(table) or self.selected_machine(self.upgrades)
        return m is not None and self.store.add_machine(m)
