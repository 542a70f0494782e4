"""Help → How accurate is it?: every catalog machine's published record, and the fitted model's terms."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.catalog.accuracy import shipped_source_validation
from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import Catalog
from advisor.core.accuracy import SourceValidation
from advisor.core.calibration import CALIBRATION, Calibration
from advisor.core.hardware import HARDWARE_CLASS_LABELS
from advisor.core.hardware_keys import BACKEND_LABELS, generation_key, machine_key
from advisor.core.published import HeldOutFigure, all_records
from advisor.ui.screen import fit_to_screen

INTRO = (
    "Each realistic figure comes from a model fitted to published llama-bench, MLX and vLLM runs. "
    "Below, per catalog machine, how the runs published on it compare with the model's figure for "
    "each run (same context, backend, flash-attention setting and build): above 1, the machine ran "
    "faster than the model says. An architecture's factor is what the training runs on its GPU "
    "generation (Apple M3, NVIDIA Ada, ...) say beyond the class and backend; a machine's own factor is "
    "what its own runs add to that (1 where none were fitted); the model's figure includes both. The full "
    "validation, held-out rows apart, is "
    "<code>python -m advisor.cli validate</code>."
)
# short headers leave the machine's name room; each says what it means in its tooltip
COLUMNS = ("Machine", "Engine", "Runs", "Models", "Measured ÷ model", "Lowest", "Highest", "Architecture", "Own")
COLUMN_TIPS = (
    "The catalog machine (card count first for a multi-GPU set)",
    "The engine the runs used",
    "Published decode runs on this machine",
    "Distinct models among them",
    "Median over the runs of measured tok/s ÷ the model's figure for that run (above 1: faster than the model)",
    "The lowest run's measured ÷ model",
    "The highest run's measured ÷ model",
    "The factor on η fitted for this machine's GPU architecture (— where none was fitted)",
    "This machine's own factor on η, on top of its architecture's (— where none was fitted)",
)


def held_out_html(figures: Sequence[HeldOutFigure]) -> str:
    """The validation on rows the fit never saw, beside the targets it was built to meet."""
    if not figures:
        return ""
    rows = []
    for f in figures:
        target = (
            ""
            if f.target_median_pct is None
            else f"≤ {f.target_median_pct:g}" + ("" if f.target_p90_pct is None else f" / ≤ {f.target_p90_pct:g}")
        )
        met = {True: "met", False: "<b>not met</b>", None: ""}[f.met()]
        rows.append(
            f"<tr><td>{escape(f.test)}, {escape(f.group)}</td><td align='right'>{f.n}</td>"
            f"<td align='right'>{f.median_pct:.1f} %</td><td align='right'>{f.p90_pct:.1f} %</td>"
            f"<td>{target}</td><td>{met}</td></tr>"
        )
    band = next((f for f in figures if f.inside_band_pct is not None), None)
    band_text = (
        ""
        if band is None
        else f"The band drawn around each estimate held {band.inside_band_pct:.1f} % of these {band.n} decode "
        "rows (it claims 80 %: the 10th to 90th percentile)."
    )
    return (
        "<b>On held-out rows</b> (left out of the fit, but from the sources it was fitted to, so this reads "
        "better than a new source would; absolute error, median and 90th percentile):"
        "<table cellpadding='3'><tr><th align='left'>rows</th><th>n</th><th>median</th><th>p90</th>"
        "<th>target</th><th></th></tr>" + "".join(rows) + "</table>" + band_text
    )


def source_validation_html(sv: SourceValidation | None, why_not: str | None = None) -> str:
    """The headline: each source's runs predicted by a fit that never saw that source, per kind, beside the
    best simple formula (a share of the bandwidth ceiling plus a fixed time per token)."""
    if sv is None:
        return f"<b>On sources the fit never saw</b>: {escape(why_not or 'not computed')}"

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f} %"

    rows = []
    for k in sv.kinds:
        what = ("decode, " if k.test == "tg" else "prefill, ") + k.group
        better = {True: "", False: " <b>(the simple formula does better)</b>", None: ""}[k.beats_simple]
        rows.append(
            f"<tr><td>{escape(what)}</td><td align='right'>{k.n}</td><td align='right'>{k.sources}</td>"
            f"<td align='right'>{pct(k.median_pct)}</td><td align='right'>{pct(k.p90_pct)}</td>"
            f"<td align='right'>{pct(k.band_held_pct)}</td><td align='right'>{pct(k.simple.median_pct)} / "
            f"{pct(k.simple.p90_pct)}{better}</td></tr>"
        )
    return (
        f"<b>On sources the fit never saw</b> ({sv.rows} published runs from {sv.sources} sources; each "
        "source predicted by a fit on all the others; absolute error, median and 90th percentile; how often "
        "the band held, which claims 80 %):<table cellpadding='3'><tr><th align='left'>runs</th><th>n</th>"
        "<th>sources</th><th>median</th><th>p90</th><th>band held</th><th>simple formula</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def terms_html(cal: Calibration = CALIBRATION) -> str:
    """The fitted decode terms per hardware class and engine, and the backends' factors."""
    rows = []
    for (kind, engine), t in cal.terms.items():
        if not t.fitted:
            continue
        d = t.decode
        rows.append(
            f"<tr><td>{escape(HARDWARE_CLASS_LABELS[kind])}, {escape(engine.value)}</td>"
            f"<td>{d.eta:.3g}</td><td>{d.token_ms:.3g} ms</td><td>{d.kv_factor:.3g}</td>"
            f"<td>{d.dequant_flop:.3g}</td><td>{d.band[0]:.2f}–{d.band[1]:.2f}</td>"
            f"<td>{t.rows}</td></tr>"
        )
    backends = ", ".join(f"{BACKEND_LABELS[b]} {bt.decode:.3g}" for b, bt in cal.backends.items())
    generations = ", ".join(f"{g} {gt.decode:.3g}" for g, gt in cal.generations.items())
    return (
        "<b>The fitted decode model</b> (time per token = weights ÷ (bandwidth × η) + κ × KV ÷ (bandwidth × η) "
        "+ unpacking d FLOP per weight + t₀):<table cellpadding='3'><tr><th align='left'>class, engine</th>"
        "<th>η</th><th>t₀</th><th>κ</th><th>d</th><th>band</th><th>rows</th></tr>"
        + "".join(rows)
        + f"</table>Backend factors on η (CUDA 1): {escape(backends)}. Architecture factors on η: "
        f"{escape(generations or 'none')}. A mixture-of-experts model's t₀ is "
        f"{cal.moe_token:.3g} × t₀ under llama.cpp (the router, top-k and expert gather add kernels to "
        "every layer)."
    )


class SortItem(QTableWidgetItem):
    """A cell that sorts by a number, not by its text ("75" after "9")."""

    def __init__(self, text: str, key: float) -> None:
        super().__init__(text)
        self.key = key
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        return self.key < other.key if isinstance(other, SortItem) else super().__lt__(other)


class AccuracyDialog(QDialog):
    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("How accurate is it?")
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        entries = all_records(catalog.published)
        self.table = QTableWidget(len(entries), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        for c, tip in enumerate(COLUMN_TIPS):
            header = self.table.horizontalHeaderItem(c)
            if header is not None:
                header.setToolTip(tip)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, e in enumerate(entries):
            entry = catalog.hardware.get(e.hardware_id)
            name = entry.name if entry is not None else e.hardware_id
            rec = e.record
            items = [
                QTableWidgetItem(f"{e.devices}× {name}" if e.devices > 1 else name),
                QTableWidgetItem(e.engine.value),
                SortItem(str(rec.runs), rec.runs),
                SortItem(str(rec.models), rec.models),
            ]
            items += [SortItem(f"{v:.2f}", v) for v in (rec.median, rec.low, rec.high)]
            # none: no training runs on this architecture or chip, its η is its class's
            hw = to_hardware(entry) if entry is not None else None
            gen_key = generation_key(hw) if hw is not None else None
            gen = CALIBRATION.generations.get(gen_key) if gen_key is not None else None
            gen_item = SortItem(f"{gen.decode:.3f}", gen.decode) if gen else SortItem("—", 1.0)
            gen_item.setToolTip(gen_key or "no architecture known")
            items.append(gen_item)
            fitted = CALIBRATION.machines.get(machine_key(hw)) if hw is not None else None
            items.append(SortItem(f"{fitted.decode:.3f}", fitted.decode) if fitted else SortItem("—", 1.0))
            for c, item in enumerate(items):
                self.table.setItem(r, c, item)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setSortingEnabled(True)  # click a header to sort; most runs first to begin with
        self.table.sortItems(2, Qt.SortOrder.DescendingOrder)
        by_source = QLabel(source_validation_html(*shipped_source_validation()))
        by_source.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        held = QLabel(held_out_html(catalog.held_out))
        held.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        terms = QLabel(terms_html())
        terms.setWordWrap(True)
        terms.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        # the figures scroll on their own, so the dialog fits a 1366x768 screen however many kinds they report
        figures = QWidget()
        fig_lay = QVBoxLayout(figures)
        fig_lay.setContentsMargins(0, 0, 0, 0)
        for label in (by_source, held, terms):
            fig_lay.addWidget(label)
        scroll = QScrollArea()
        scroll.setWidget(figures)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.table, 1)
        lay.addWidget(scroll, 1)
        lay.addWidget(buttons)
        fit_to_screen(self, (940, 780), center=False)
