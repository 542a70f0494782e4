"""Choosing machines: search the catalog like the hardware panel, pick a count for a multi-GPU set,
add the main window's machine, and edit or remove the ones being compared."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.core.fmt import num
from advisor.core.hardware import HARDWARE_CLASS_LABELS, Hardware, HardwareClass
from advisor.core.machines import MAX_MACHINES, Machine, has_used_price, machine_from_entry
from advisor.present.figures import catalog_prices, price_text, price_tip, short_name
from advisor.ui.compare.state import CompareSnapshot, CompareStore
from advisor.ui.fields import read_value, show_value, spin_for
from advisor.ui.panels.catalog_list import CatalogList
from advisor.ui.panels.hardware_panel import hardware_tooltip

MAX_SET = 8
EDIT_FIELDS = (
    ("memory_gb", 1),
    ("bandwidth_gbps", 1),
    ("fp16_tflops", 1),
    ("host_memory_gb", 0),
    ("host_bandwidth_gbps", 1),
    ("devices", 0),
    ("peer_link_gbps", 1),
    ("tp_scaling", 2),
)
AUTO_TEXT = {"memory_gb": "not known", "tp_scaling": "from the device link", "peer_link_gbps": "PCIe (host link)"}


def swatch(color: str, size: int = 14) -> QIcon:
    pix = QPixmap(size, size)
    pix.fill(QColor(color))
    return QIcon(pix)


def compare_tooltip(e: Hardware) -> str:
    """The main window's entry tooltip, with the products the entry is sold as and its dated prices."""
    extra = catalog_prices(
        getattr(e, "price_usd", None),
        bool(getattr(e, "price_estimate", True)),
        getattr(e, "price_kind", None),
        getattr(e, "price_seen", None),
        getattr(e, "used_price_usd", None),
        getattr(e, "used_price_seen", None),
        getattr(e, "products", None) or [],
    )
    base = hardware_tooltip(e)  # type: ignore[arg-type]
    return f"{base}\n{extra}" if extra else base


def catalog_row(e: Hardware) -> list[str]:
    price = getattr(e, "price_usd", None)
    memory = f"{num(e.memory_gb)} GB" if e.memory_gb is not None else "—"
    return [short_name(e.name), memory, f"{e.bandwidth_gbps:,.0f} GB/s", f"${price:,.0f}" if price else "—"]


class EditMachineDialog(QDialog):
    """A compared machine's figures and price, for a used card, a different host or a what-if."""

    def __init__(self, machine: Machine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Edit {machine.label}")
        self.machine = machine
        hw = machine.hardware
        self.spins = {
            name: spin_for(Hardware, name, decimals=d, auto_text=AUTO_TEXT.get(name)) for name, d in EDIT_FIELDS
        }
        form = QFormLayout(self)
        self.split = QComboBox()
        self.split.addItem("layer (llama.cpp's default: adds memory, not speed)", "layer")
        self.split.addItem("tensor (every layer across the cards: adds speed)", "tensor")
        self.split.setCurrentIndex(self.split.findData(hw.split))
        for name, box in self.spins.items():
            show_value(box, getattr(hw, name))
            form.addRow(Hardware.model_fields[name].title or name, box)
        discrete = hw.kind is HardwareClass.DISCRETE_GPU
        for name in ("host_memory_gb", "host_bandwidth_gbps", "devices", "peer_link_gbps", "tp_scaling"):
            self.spins[name].setEnabled(discrete)
        self.split.setEnabled(discrete)
        form.addRow("Split", self.split)
        self.price = QDoubleSpinBox()
        self.price.setRange(0, 100_000_000)
        self.price.setDecimals(0)
        self.price.setPrefix("$")
        self.price.setSpecialValueText("unknown")
        self.price.setGroupSeparatorShown(True)
        self.price.setValue(machine.price_usd or 0)
        self.price.setToolTip("What you would pay for the whole configuration (all its cards)")
        form.addRow("Price", self.price)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def edited(self) -> Machine:
        data = self.machine.hardware.model_dump()
        for name, box in self.spins.items():
            data[name] = read_value(box)
        data["split"] = self.split.currentData()
        hw = Hardware.model_validate(data)
        label = self.machine.label
        if not label.endswith("(edited)"):
            label = f"{label} (edited)"
        price = self.price.value() or None
        return self.machine.model_copy(
            update={
                "hardware": hw,
                "label": label,
                "origin": "edited",
                "price_usd": price,
                "price_estimate": True,
                "price_kind": None,
                "price_seen": None,
            }
        )


class MachinesPanel(QWidget):
    def __init__(self, store: CompareStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown_key: tuple[object, ...] | None = None  # what the table shows; None: redraw
        self.store = store
        self.current: Machine | None = store.setup.current
        order = list(HARDWARE_CLASS_LABELS)
        self.list = CatalogList(
            "Search hardware: 3090, m4 max, strix…",
            ["Hardware", "Memory", "Bandwidth", "Price"],
            group=lambda e: HARDWARE_CLASS_LABELS[e.kind],
            row=catalog_row,
            tooltip=compare_tooltip,
        )
        self.list.set_entries(
            sorted(store.catalog.hardware.values(), key=lambda e: (order.index(e.kind), -e.bandwidth_gbps))
        )
        head = self.list.tree.header()
        head.setStretchLastSection(False)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # long names elide; the numbers stay in view
        for col in (1, 2, 3):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.count = QSpinBox()
        self.count.setRange(1, MAX_SET)
        self.count.setPrefix("× ")
        self.count.setToolTip(
            "How many of this GPU (layer split, as llama.cpp does; Edit for tensor split): "
            "2 makes a 2× set, priced per card"
        )
        self.count.setAccessibleName("Number of GPUs")
        self.used = QComboBox()
        self.used.addItem("new price", False)
        self.used.addItem("used price", True)
        self.used.setToolTip(
            "Price the machine new, or at its used price where the catalog has one (each price shows its month)"
        )
        self.used.setEnabled(False)
        self.add_button = QPushButton("Add")
        self.add_button.setToolTip(
            "Add the selected machine to the comparison (Enter in the search box adds the first match)"
        )
        self.add_current = QPushButton("Add my machine")
        self.add_current.setToolTip("The machine in the main window, with any figures you changed there")
        self.add_current.setEnabled(self.current is not None)
        self.selected_id: str | None = None

        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Comparing", "Price", ""])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setToolTip("Double-click a price to change it (a used card, a quote); Edit… changes the figures")
        self.edit_button = QPushButton("Edit…")
        self.edit_button.setToolTip("Change the selected machine's figures or price")
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #6b6b6b")

        add_row = QHBoxLayout()
        add_row.addWidget(QLabel("Count"))
        add_row.addWidget(self.count)
        add_row.addWidget(self.used)
        add_row.addStretch(1)
        add_row.addWidget(self.add_button)
        pick = QGroupBox("Add machines")
        pl = QVBoxLayout(pick)
        pl.addWidget(self.list, 1)
        pl.addLayout(add_row)
        pl.addWidget(self.add_current)
        chosen = QGroupBox(f"Comparing (up to {MAX_MACHINES})")
        cl = QVBoxLayout(chosen)
        cl.addWidget(self.table)
        er = QHBoxLayout()
        er.addStretch(1)
        er.addWidget(self.edit_button)
        cl.addLayout(er)
        cl.addWidget(self.hint)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(pick, 3)
        lay.addWidget(chosen, 2)

        self.list.picked.connect(self._picked)
        self.list.search.returnPressed.connect(self._add_selected)
        self.add_button.clicked.connect(self._add_selected)
        self.add_current.clicked.connect(self.add_my_machine)
        self.edit_button.clicked.connect(self.edit_selected)
        self.table.itemChanged.connect(self._price_edited)
        self.table.itemDoubleClicked.connect(self._double_clicked)
        self.table.cellClicked.connect(self._cell_clicked)
        store.changed.connect(self.show_snapshot)
        self.show_snapshot(store.snapshot)

    # --- adding -----------------------------------------------------------------------------
    def _picked(self, hid: str) -> None:
        self.selected_id = hid
        entry = self.store.catalog.hardware[hid]
        discrete = entry.kind is HardwareClass.DISCRETE_GPU
        self.used.setEnabled(has_used_price(entry))
        self.count.setEnabled(discrete)
        if not discrete:
            self.count.setValue(1)

    def _add_selected(self) -> None:
        if self.selected_id is None:
            ids = self.list.visible_ids()
            if not ids:
                return
            self.selected_id = ids[0]
        self.add_entry(self.selected_id, self.count.value())

    def add_entry(self, hid: str, count: int = 1) -> bool:
        entry = self.store.catalog.hardware[hid]
        try:
            machine = machine_from_entry(entry, count, used=bool(self.used.currentData()) and has_used_price(entry))
        except ValueError as err:
            self.store.rejected.emit(str(err))
            return False
        return self.store.add_machine(machine)

    def add_my_machine(self) -> bool:
        return self.current is not None and self.store.add_machine(self.current)

    # --- the chosen list --------------------------------------------------------------------
    def selected_label(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return item.data(Qt.ItemDataRole.UserRole) if item else None

    def edit_selected(self) -> None:
        label = self.selected_label()
        if label is None:
            self.store.rejected.emit("Select a machine in the list to edit it")
            return
        dialog = EditMachineDialog(self.store.machine(label), self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            try:
                edited = dialog.edited()
            except ValueError as err:
                self.store.rejected.emit(str(err).splitlines()[0])
                return
            self.store.replace_machine(label, edited)

    def _cell_clicked(self, row: int, column: int) -> None:
        if column == 2:
            self.remove_row(row)

    def remove_row(self, row: int) -> bool:
        item = self.table.item(row, 0)
        return item is not None and self.store.remove_machine(item.data(Qt.ItemDataRole.UserRole))

    def _double_clicked(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            self.edit_selected()

    def _price_edited(self, item: QTableWidgetItem) -> None:
        if item.column() != 1:
            return
        name_item = self.table.item(item.row(), 0)
        if name_item is None:
            return
        label = name_item.data(Qt.ItemDataRole.UserRole)
        text = item.text().replace("$", "").replace(",", "").replace("~", "").strip()
        if text in ("", "—", "-"):
            self.store.set_price(label, None)
            return
        try:
            price = float(text)
        except ValueError:
            self.store.rejected.emit(f"Price '{item.text()}' is not a number of dollars")
            self._shown_key = None
            self.show_snapshot(self.store.snapshot)
            return
        if not self.store.set_price(label, price):
            self._shown_key = None
            self.show_snapshot(self.store.snapshot)

    def show_snapshot(self, snap: CompareSnapshot) -> None:
        machines = snap.setup.machines
        key = (machines, tuple(snap.colors.items()))
        if key == self._shown_key:
            return
        self._shown_key = key
        with QSignalBlocker(self.table):
            self.table.setRowCount(len(machines))
            for r, m in enumerate(machines):
                name = QTableWidgetItem(swatch(snap.colors[m.label]), m.label)
                name.setData(Qt.ItemDataRole.UserRole, m.label)
                name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
                name.setToolTip(
                    f"{m.label}: {num(m.hardware.fast_capacity_gb)} GB at "
                    f"{num(m.hardware.fast_bandwidth_gbps)} GB/s ({m.origin})"
                )
                cost = QTableWidgetItem(price_text(m.price_usd, m.price_estimate))
                cost.setToolTip(price_tip(m.price_usd, m.price_estimate, m.price_kind, m.price_seen))
                cost.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, 0, name)
                self.table.setItem(r, 1, cost)
                # A plain cell rather than a button widget: rebuilding six buttons on every add
                # cost more than the plots' redraw.
                remove = QTableWidgetItem("✕")
                remove.setFlags(Qt.ItemFlag.ItemIsEnabled)
                remove.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                remove.setToolTip(f"Remove {m.label}")
                remove.setForeground(QColor("#D55E00"))
                self.table.setItem(r, 2, remove)
        full = len(machines) >= MAX_MACHINES
        self.add_button.setEnabled(not full)
        self.add_current.setEnabled(not full and self.current is not None)
        if not machines:
            self.hint.setText("Pick a machine above and press Add. Two to six compare side by side.")
        elif len(machines) == 1:
            self.hint.setText("Add at least one more machine to compare.")
        elif full:
            self.hint.setText("Six machines is the most: remove one to add another.")
        else:
            self.hint.setText("Price: double-click to change. Colours match the plots.")
