"""Quant: the weight format (bits per weight as real files store them) and the KV-cache precision."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.catalog.convert import to_quant
from advisor.catalog.schema import QuantEntry
from advisor.core.quant import KV_BYTES_PER_ELEMENT, KVPrecision
from advisor.ui.fields import read_value, show_value, spin_for
from advisor.ui.store import Snapshot, Store

FORMATS = {"GGUF (llama.cpp)": {"gguf"}, "GPU formats (vLLM, ExLlama)": {"gpu", "exl"}, "All": {"gguf", "gpu", "exl"}}
ID_ROLE = Qt.ItemDataRole.UserRole


def quality_text(e: QuantEntry) -> str:
    q = e.quality
    if q is None:
        return "—"
    if q.metric == "kld":
        return f"KLD {q.value:.4f}"
    if q.metric == "ppl_delta_pct":
        return f"+{q.value:.1f} % PPL"
    return f"{q.value:.1f} % top-1"


class QuantPanel(QWidget):
    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.formats = QComboBox()
        for label in FORMATS:
            self.formats.addItem(label)
        self.formats.setToolTip("Which family of formats to list")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Quant", "Bits/weight", "Quality vs 16-bit"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setToolTip(
            "Bits per weight as real files store them (block scales and higher-precision "
            "tensors included). Quality: KL divergence or perplexity increase against 16 bits."
        )
        self.bits = spin_for(type(store.session.scenario.quant), "bits_per_weight", decimals=2)
        self.kv = QComboBox()
        for p in KVPrecision:
            self.kv.addItem(f"{p.value} ({KV_BYTES_PER_ELEMENT[p]:.4g} bytes/element)", p.value)
        self.kv.setToolTip("Precision of the cached keys and values (llama.cpp -ctk/-ctv, vLLM kv_cache_dtype)")
        form = QFormLayout()
        form.addRow("Bits per weight", self.bits)
        form.addRow("KV cache", self.kv)
        lay = QVBoxLayout(self)
        lay.addWidget(self.formats)
        lay.addWidget(self.table, 1)
        lay.addLayout(form)

        self.formats.currentIndexChanged.connect(lambda _i: self._fill())
        self.table.itemSelectionChanged.connect(self._picked)
        self.bits.valueChanged.connect(self._bits_edited)
        self.kv.currentIndexChanged.connect(
            lambda _i: store.update("workload", "Change KV cache", kv_cache=self.kv.currentData())
        )
        self._shown: tuple[object, ...] = ()
        store.changed.connect(self.show_snapshot)
        self._fill()
        self.show_snapshot(store.snapshot)

    def _fill(self) -> None:
        formats = FORMATS[self.formats.currentText()]
        entries = sorted(
            (e for e in self.store.catalog.quants.values() if e.format in formats), key=lambda e: -e.bits_per_weight
        )
        with QSignalBlocker(self.table):
            self.table.setRowCount(len(entries))
            for r, e in enumerate(entries):
                bits = f"{e.bits_per_weight:.2f}"
                if e.dense_bits_per_weight is not None:  # an MoE file's tensors outside the experts
                    bits += f" / {e.dense_bits_per_weight:.2f}"
                cells = [e.name, bits, quality_text(e)]
                for c, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setData(ID_ROLE, e.id)
                    tip = f"{e.name}: {e.notes}\nSource: {e.source}" if e.notes else f"Source: {e.source}"
                    if e.dense_bits_per_weight is not None:
                        tip = (
                            f"{e.bits_per_weight:g} bits per weight; in mixture-of-experts models the tensors "
                            f"outside the experts are stored at {e.dense_bits_per_weight:g} bits\n" + tip
                        )
                    item.setToolTip(tip)
                    if c == 1:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    self.table.setItem(r, c, item)
        self._select(self.store.session.quant_id)

    def _select(self, qid: str | None) -> None:
        with QSignalBlocker(self.table):
            self.table.clearSelection()
            for r in range(self.table.rowCount()):
                item = self.table.item(r, 0)
                if item is not None and item.data(ID_ROLE) == qid:
                    self.table.selectRow(r)
                    self.table.scrollToItem(item)
                    break

    def _picked(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        item = self.table.item(rows[0].row(), 0)
        if item is None:
            return
        qid = item.data(ID_ROLE)
        entry = self.store.catalog.quants[qid]
        data = self.store.session.model_dump()
        data["scenario"]["quant"] = to_quant(entry).model_dump()
        data["quant_id"] = qid
        self.store.set_session(data, f"Pick {entry.name}")

    def _bits_edited(self) -> None:
        """A hand-set rate is no longer the catalog quant: name it by its rate."""
        bits = read_value(self.bits)
        data = self.store.session.model_dump()
        data["scenario"]["quant"] = {"name": f"{bits:.2f} bpw", "bits_per_weight": bits}
        data["quant_id"] = None
        self.store.set_session(data, "Edit bits per weight")

    def show_snapshot(self, snap: Snapshot) -> None:
        shown = (snap.session.quant_id, snap.session.scenario.quant, snap.session.scenario.workload.kv_cache)
        if shown == self._shown:  # most edits are to other panels: nothing here to redo
            return
        self._shown = shown
        show_value(self.bits, snap.session.scenario.quant.bits_per_weight)
        with QSignalBlocker(self.kv):
            self.kv.setCurrentIndex(self.kv.findData(snap.session.scenario.workload.kv_cache.value))
        self._select(snap.session.quant_id)
