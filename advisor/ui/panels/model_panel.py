"""Model: pick from the catalog (or import a file) and see what it is."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from advisor.catalog.convert import to_model
from advisor.catalog.schema import ModelEntry
from advisor.core.fmt import num
from advisor.core.model import ModelArch
from advisor.ui.context_window import clamp_to_window
from advisor.ui.panels.catalog_list import CatalogList
from advisor.ui.store import Snapshot, Store


def params_text(m: ModelArch) -> str:
    return f"{num(m.total_params_b)} B" + (f" ({num(m.active_b)} B active)" if m.is_moe else "")


def model_row(e: ModelEntry) -> list[str]:
    return [e.name, params_text(e), f"{e.max_context // 1024:,}k"]


def model_tooltip(e: ModelEntry) -> str:
    return f"{e.name} — {e.license or 'licence not recorded'}\nSource: {e.source}"


def describe(m: ModelArch) -> str:
    if m.layers is None:
        shape = "no architecture given: KV cache counts as zero"
    else:
        if m.attention == "mla":
            attn = f"MLA latent {m.kv_lora_rank}+{m.rope_dim or 0}"
        elif m.attention == "sliding":
            attn = f"{m.sliding_layers} of {m.layers} layers see a {m.sliding_window or 0:,}-token window"
        else:
            attn = "full attention"
        if m.kv_bytes_per_token_override is not None:  # a hybrid's attention layers, or a figure typed in
            attn = f"KV cache {m.kv_bytes_per_token_override:,.0f} bytes/token at 16 bits, as given"
        if m.attention_layers is not None:
            attn = f"{m.attention_layers} of {m.layers} layers attend · " + attn
        if m.state_bytes_per_sequence:
            attn += f" + {m.state_bytes_per_sequence / 1e6:.1f} MB recurrent state per sequence"
        shape = (
            f"{m.layers} layers · hidden {m.hidden or '?'} · {m.heads or '?'} heads / {m.kv_heads or '?'} KV "
            f"· head dim {m.resolved_head_dim or '?'} · {attn}"
        )
    moe = f" · {m.experts_active} of {m.experts} experts" if m.experts else ""
    embed = {True: " · tied embeddings", False: " · untied embeddings (the input table is not read whole)", None: ""}[
        m.tied_embeddings
    ]
    return f"<b>{m.name}</b><br>{params_text(m)}{moe} · context {m.max_context:,}{embed}<br>{shape}"


class ModelPanel(QWidget):
    def __init__(self, store: Store, importer: Callable[[], None] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.list = CatalogList(
            "Search models: qwen3, 70b, gemma…",
            ["Model", "Params", "Context"],
            group=lambda e: e.family,
            row=model_row,
            tooltip=model_tooltip,
        )
        self.list.set_entries(sorted(store.catalog.models.values(), key=lambda e: (e.family, e.total_params_b)))
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.import_button = QPushButton("Import GGUF or config.json…")
        self.import_button.setToolTip(
            "Read a model's shape from a local GGUF header or Hugging Face config.json "
            "(nothing is downloaded, no code runs)"
        )
        self.import_button.setEnabled(importer is not None)
        if importer is not None:
            self.import_button.clicked.connect(importer)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.import_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.details)
        lay.addLayout(row)
        self.list.picked.connect(self._picked)
        self._shown_id: str | None = ""
        store.changed.connect(self.show_snapshot)
        self.show_snapshot(store.snapshot)

    def refresh_entries(self) -> None:
        self.list.set_entries(sorted(self.store.catalog.models.values(), key=lambda e: (e.family, e.total_params_b)))

    def _picked(self, mid: str) -> None:
        entry = self.store.catalog.models[mid]
        data = self.store.session.model_dump()
        data["scenario"]["model"] = to_model(entry).model_dump()
        note = clamp_to_window(data, entry.name)
        data["model_id"] = mid
        if self.store.set_session(data, f"Pick {entry.name}") and note:
            self.store.noted.emit(note)

    def show_snapshot(self, snap: Snapshot) -> None:
        self.details.setText(describe(snap.session.scenario.model))
        if snap.session.model_id != self._shown_id:  # re-selecting repaints the whole list
            self._shown_id = snap.session.model_id
            self.list.select_id(self._shown_id)
