"""The what-would-it-take tab: the cheapest catalog machines and sets for a target speed (under a
price cap, holding the model in fast memory unless spilling is allowed), and the user's upgrades."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from advisor.core.fmt import num
from advisor.core.machines import Machine, catalog_machines
from advisor.core.upgrades import Option, Plan, what_would_it_take
from advisor.present.figures import rate, split_text
from advisor.present.upgrade_text import KIND_TEXT, fit_text, option_description
from advisor.ui.compare.state import CompareSnapshot, CompareStore
from advisor.ui.compare.tabs import _cell, _money_spin, _price, _Tab, _table


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
        self.max_price = _money_spin(100_000_000, 250, "The most you would spend on a machine", special="no cap")
        self.sets = QCheckBox("Include sets")
        self.sets.setToolTip("2× and 4× of each desktop or datacenter GPU, split as the budget tab's sets")
        self.spill = QCheckBox("Allow spilling to RAM")
        self.spill.setToolTip(
            "Count a machine that keeps part of the model in system RAM as reaching the target; "
            "otherwise those that hold it always come first"
        )
        self.mine = QComboBox()
        self.mine.setToolTip("The machine to upgrade: yours from the main window, or one being compared")
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.cheapest = _table(["Price", "Machine", "Split", "Fits", "tok/s", "TTFT"], stretch=1)
        self.current = QLabel()
        self.current.setWordWrap(True)
        self.upgrades = _table(["Upgrade", "Adds", "Fits", "tok/s", "TTFT", "Reaches it"], stretch=0)
        self.add_button = QPushButton("Add selected to comparison")
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Target"))
        controls.addWidget(self.target)
        controls.addWidget(QLabel("TTFT at most"))
        controls.addWidget(self.ttft)
        controls.addWidget(QLabel("Max price"))
        controls.addWidget(self.max_price)
        controls.addWidget(self.sets)
        controls.addWidget(self.spill)
        controls.addStretch(1)
        more = QHBoxLayout()  # a second row, so the tab fits a 1366-pixel laptop screen
        more.addWidget(QLabel("Upgrade"))
        more.addWidget(self.mine, 1)
        more.addWidget(self.add_button)
        lay = QVBoxLayout(self)
        lay.addLayout(controls)
        lay.addLayout(more)
        lay.addWidget(self.header)
        lay.addWidget(self.cheapest, 3)
        lay.addWidget(self.current)
        lay.addWidget(self.upgrades, 2)
        self.plan: Plan | None = None

        self.target.valueChanged.connect(lambda v: store.update(target_tok_s=float(v)))
        self.ttft.valueChanged.connect(lambda v: store.update(target_ttft_s=float(v) or None))
        self.max_price.valueChanged.connect(lambda v: store.update(take_max_price_usd=float(v) or None))
        self.sets.toggled.connect(lambda on: store.update(take_include_sets=on))
        self.spill.toggled.connect(lambda on: store.update(take_allow_spill=on))
        self.mine.activated.connect(lambda _i: self.refresh())
        self.add_button.clicked.connect(self.add_selected)
        self.cheapest.itemDoubleClicked.connect(lambda _i: self.add_selected())
        self.upgrades.itemDoubleClicked.connect(lambda _i: self.add_selected())
        self.show_inputs(store.snapshot)

    def key(self) -> str:
        s = self.store.setup
        return (
            f"{s.scenario.model_dump_json()}|{s.target_tok_s}|{s.target_ttft_s}|{s.take_include_sets}|"
            f"{s.take_max_price_usd}|{s.take_allow_spill}|{s.set_split}|"
            f"{s.pc_price_usd}|{self.mine.currentData()}|{self._machine_to_upgrade()}"
        )

    def show_inputs(self, snap: CompareSnapshot) -> None:
        s = snap.setup
        with QSignalBlocker(self.target):
            self.target.setValue(s.target_tok_s)
        with QSignalBlocker(self.ttft):
            self.ttft.setValue(s.target_ttft_s or 0)
        with QSignalBlocker(self.max_price):
            self.max_price.setValue(s.take_max_price_usd or 0)
        for box, on in ((self.sets, s.take_include_sets), (self.spill, s.take_allow_spill)):
            with QSignalBlocker(box):
                box.setChecked(on)
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
        machines = catalog_machines(
            self.store.catalog.hardware.values(),
            (2, 4) if s.take_include_sets else (),
            s.pc_price_usd,
            split=s.set_split,
        )
        mine = self._machine_to_upgrade()
        p = what_would_it_take(
            s.scenario,
            s.target_tok_s,
            machines,
            target_ttft_s=s.target_ttft_s,
            current=mine,
            max_price_usd=s.take_max_price_usd,
            allow_spill=s.take_allow_spill,
        )
        self.plan = p
        ttft = f" and the first token within {rate(p.target_ttft_s)} s" if p.target_ttft_s else ""
        cap = f" at or under ${p.max_price_usd:,.0f}" if p.max_price_usd is not None else ""
        lead = (
            f"Cheapest catalog machines and sets{cap}"
            if p.cheapest
            else f"Nothing in the catalog{cap} reaches it; the closest"
        )
        if not p.allow_spill:
            ttft += ", holding the model in fast memory"
        self.header.setText(
            f"<b>{escape(p.model_name)} {escape(p.quant_name)}</b> at {p.context:,} tokens of context, "
            f"≥ {rate(p.target_tok_s)} tok/s per stream{ttft}. {lead}:"
        )
        shown = p.cheapest or p.closest
        self.cheapest.setRowCount(len(shown))
        for row, o in enumerate(shown):
            for col, item in enumerate(
                [
                    _cell(_price(o.machine), o.machine, right=True),
                    _cell(o.machine.label),
                    _cell(split_text(o.machine.devices, o.machine.split) or "—"),
                    _cell(fit_text(o)),
                    _cell("does not run" if o.decode_tok_s is None else num(o.decode_tok_s), right=True),
                    _cell("—" if o.ttft_s is None else f"{num(o.ttft_s)} s", right=True),
                ]
            ):
                self.cheapest.setItem(row, col, item)
        self._show_upgrades(p)

    def _show_upgrades(self, p: Plan) -> None:
        c = p.current
        options: list[Option] = []
        if c is None:
            self.current.setText(
                "Choose a machine to upgrade above to see the smallest upgrade that reaches the target."
            )
        else:
            now = (
                "does not run it"
                if c.decode_tok_s is None
                else f"runs it at {num(c.decode_tok_s)} tok/s"
                + (f", first token in {num(c.ttft_s)} s" if c.ttft_s is not None else "")
            )
            if c.meets:
                self.current.setText(f"<b>{escape(c.machine.label)}</b> {now}: it already reaches the target.")
            elif p.upgrades:
                u = p.upgrades[0]
                cost = "price unknown" if u.cost_usd is None else f"${u.cost_usd:,.0f}"
                self.current.setText(
                    f"<b>{escape(c.machine.label)}</b> {now}. Smallest upgrade that reaches it: "
                    f"<b>{escape(option_description(u))}</b> ({cost}), "
                    f"{num(u.decode_tok_s or 0)} tok/s."
                )
            else:
                self.current.setText(
                    f"<b>{escape(c.machine.label)}</b> {now}. No single upgrade in the catalog "
                    "reaches it; below, the best each kind of upgrade can do."
                )
            if not c.meets:
                options = list(p.upgrades) + list(p.short)
        self.upgrades.setRowCount(len(options))
        for row, o in enumerate(options):
            desc = option_description(o)
            for col, item in enumerate(
                [
                    _cell(f"{KIND_TEXT[o.kind]}: {desc}", o.machine, tip=desc),
                    _cell("price unknown" if o.cost_usd is None else f"${o.cost_usd:,.0f}", right=True),
                    _cell(fit_text(o)),
                    _cell("does not run" if o.decode_tok_s is None else num(o.decode_tok_s), right=True),
                    _cell("—" if o.ttft_s is None else f"{num(o.ttft_s)} s", right=True),
                    _cell("yes" if o.meets else "no"),
                ]
            ):
                self.upgrades.setItem(row, col, item)

    def add_selected(self) -> bool:
        table = self.upgrades if self.upgrades.hasFocus() else self.cheapest
        m = self.selected_machine(table) or self.selected_machine(self.upgrades)
        return m is not None and self.store.add_machine(m)
