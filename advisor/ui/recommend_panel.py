"""The recommendation: the best model and quant that stays interactive, runner-ups, why bigger ones
lost, and how the ranking was made. One click applies any of them."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from advisor.catalog.convert import to_model, to_quant
from advisor.core.fmt import num
from advisor.core.recommend import Candidate
from advisor.present.recommend_text import ranking_text
from advisor.ui.context_window import clamp_to_window
from advisor.ui.store import Extras, Store

MAX_ROWS = 10


class RecommendPanel(QWidget):
    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.grid = QGridLayout()
        self.rows: list[tuple[QLabel, QPushButton]] = []
        for r in range(MAX_ROWS):
            text = QLabel()
            text.setWordWrap(True)
            button = QPushButton("Apply")
            button.setToolTip("Switch the model and quant to this candidate (undo with Ctrl+Z)")
            button.clicked.connect(lambda _c=False, i=r: self.apply(i))
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            self.grid.addWidget(text, r, 0)
            self.grid.addWidget(button, r, 1, Qt.AlignmentFlag.AlignTop)
            self.rows.append((text, button))
        self.grid.setColumnStretch(0, 1)  # the reasons get the width; the buttons keep their own
        self.grid.setVerticalSpacing(8)
        self.candidates: list[Candidate] = []
        self.ranking = QLabel()
        self.ranking.setWordWrap(True)
        self.ranking.setStyleSheet("color: palette(mid)")
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addLayout(self.grid)
        lay.addWidget(self.ranking)
        lay.addStretch(1)
        store.extras_changed.connect(self.show_extras)
        self.show_extras(store.extras)

    def apply(self, index: int) -> None:
        c = self.candidates[index]
        cat = self.store.catalog
        data = self.store.session.model_dump()
        data["scenario"]["model"] = to_model(cat.models[c.model_key]).model_dump()
        data["scenario"]["quant"] = to_quant(cat.quants[c.quant_key]).model_dump()
        note = clamp_to_window(data, c.model_name)
        data["model_id"], data["quant_id"] = c.model_key, c.quant_key
        if self.store.set_session(data, f"Apply {c.model_name} {c.quant_name}") and note:
            self.store.noted.emit(note)

    def show_extras(self, snap: Extras) -> None:
        rec = snap.recommendation
        w = snap.session.scenario.workload
        hw = snap.session.scenario.hardware
        self.header.setText(
            f"Best catalog model that fits <b>{escape(hw.name)}</b> and decodes at ≥ {num(rec.threshold_tok_s)} "
            f"tok/s at {w.context:,} tokens × {w.streams} stream{'s' if w.streams > 1 else ''} "
            f"(quants ≥ {num(w.min_bits)} bpw):"
        )
        self.ranking.setText(escape(ranking_text(rec)))
        shown: list[tuple[str, Candidate]] = []
        if rec.pick is not None:
            shown.append(("★ Pick", rec.pick))
        shown += [("Runner-up", c) for c in rec.runner_ups]
        shown += [("Lost", c) for c in rec.rejected]
        self.candidates = [c for _, c in shown]
        for i, (text, button) in enumerate(self.rows):
            if i >= len(shown):
                text.hide()
                button.hide()
                continue
            role, c = shown[i]
            style = "color:#D55E00" if role == "Lost" else ""
            weight = "<b>" if role.startswith("★") else ""
            current = (c.model_key, c.quant_key) == (snap.session.model_id, snap.session.quant_id)
            mark = " <span style='color:#009E73'>✓ current</span>" if current else ""
            text.setText(
                f"<span style='{style}'>{weight}{role}: {escape(c.model_name)} · {escape(c.quant_name)}"
                f"{'</b>' if weight else ''}{mark} — {escape(c.reason)}</span>"
            )
            button.setText("Current" if current else "Apply")
            button.setEnabled(not current)
            text.show()
            button.show()
        if not shown:
            self.rows[0][0].setText("Nothing in the catalog fits and stays interactive on this hardware.")
            self.rows[0][0].show()
