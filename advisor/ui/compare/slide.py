"""The comparison as a slide (1920×1080 PNG: the three plots, the table and the verdict) and the
table as CSV. Drawn from the current snapshot into fresh widgets: nothing is recomputed."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QImage
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from advisor.core.curves import AXES
from advisor.present.compare_text import (
    TABLE_COLUMNS,
    break_even_row_tip,
    comparison_verdict,
    cost_row_tip,
    costs_line,
    csv_rows,
    max_streams_tip,
    published_tip,
    table_cells,
)
from advisor.present.figures import PRICE_NOTE, price_tip, rate
from advisor.ui import theme
from advisor.ui.compare.plots import ComparePlot, legend_html
from advisor.ui.compare.state import CompareSnapshot
from advisor.ui.export import SLIDE_SIZE, paint_widget, save_png, write_export

RIGHT_ALIGNED = {
    "price_usd",
    "memory_gb",
    "bandwidth_gbps",
    "decode_tok_s",
    "ttft_s",
    "max_streams",
    "tok_s_per_k_usd",
    "tok_s_per_w",
    "cost",
    "break_even",
}


def scenario_line(snap: CompareSnapshot, with_model: bool = True) -> str:
    s = snap.setup
    w = s.workload
    what = f"{s.model.name} · {s.quant.name} · " if with_model else ""
    return (
        f"{what}{w.context:,} tokens of context · {w.prompt_tokens:,}-token prompt · "
        f"{w.streams} stream{'s' if w.streams > 1 else ''} · interactive at ≥ {rate(w.interactive_tok_s)} tok/s"
    )


def marker_label(snap: CompareSnapshot, axis: str) -> str:
    s = snap.setup
    return {
        "context": f"{s.workload.context:,} tokens",
        "params": s.model.name,
        "batch": f"{s.workload.streams} stream{'s' if s.workload.streams > 1 else ''}",
    }[axis]


def show_plot(plot: ComparePlot, snap: CompareSnapshot) -> None:
    w = snap.setup.workload
    series = [(m.label, snap.colors[m.label], snap.curves[m.label][plot.axis]) for m in snap.setup.machines]
    plot.show_series(series, w.interactive_tok_s, w.feel_thresholds, marker_label(snap, plot.axis))


def legend_text(snap: CompareSnapshot, size_pt: int = 10) -> str:
    return legend_html([(m.label, snap.colors[m.label]) for m in snap.setup.machines], size_pt)


def two_lines(title: str, longer_than: int = 10) -> str:
    """A long column title broken at the space nearest its middle: eleven columns then fit the window
    without scrolling sideways (the header sets each column's width as much as its cells do)."""
    if len(title) <= longer_than or " " not in title:
        return title
    spaces = [i for i, ch in enumerate(title) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(title) / 2))
    return title[:cut] + "\n" + title[cut + 1 :]


# The slide leaves out the columns a reader of a 1920-pixel slide needs least, so the rest fit its width.
SLIDE_COLUMNS = tuple((k, t) for k, t in TABLE_COLUMNS if k not in ("bandwidth_gbps", "tok_s_per_w", "tok_s_per_k_usd"))


def fill_table(
    table: QTableWidget, snap: CompareSnapshot, icons: bool = True, columns: tuple[tuple[str, str], ...] = TABLE_COLUMNS
) -> None:
    from advisor.ui.compare.machines import swatch

    rows = snap.comparison.rows
    table.setColumnCount(len(columns))
    table.setHorizontalHeaderLabels([two_lines(title) for _, title in columns])
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        cells = table_cells(row, snap.comparison.threshold_tok_s)
        for c, (key, _) in enumerate(columns):
            item = QTableWidgetItem(cells[key])
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            if key in RIGHT_ALIGNED:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if key == "machine" and icons:
                item.setIcon(swatch(snap.colors[row.label]))
            if key in ("verdict", "largest", "machine"):
                item.setToolTip(cells[key])
            if key == "published":
                item.setToolTip(published_tip(row))
            if key == "max_streams":
                item.setToolTip(max_streams_tip(row, snap.comparison))
            if key == "price_usd":
                item.setToolTip(price_tip(row.price_usd, row.price_estimate, row.price_kind, row.price_seen))
            if key == "cost":
                item.setToolTip(cost_row_tip(row, snap.comparison))
            if key == "break_even":
                item.setToolTip(break_even_row_tip(row, snap.comparison))
            table.setItem(r, c, item)


NAME_WIDTH_MAX = 280  # px: a long machine name elides in the frozen column (its tooltip says all)


def freeze_machine_column(table: QTableWidget, snap: CompareSnapshot) -> None:
    """The machine name moves to the row header, which stays put when the table scrolls sideways
    (its column stays in the model, hidden, so readers of the table find it where it was)."""
    from advisor.ui.compare.machines import swatch

    titles = [table.horizontalHeaderItem(c) for c in range(table.columnCount())]
    col = next((c for c, t in enumerate(titles) if t is not None and t.text() == "Machine"), None)
    if col is None:
        return
    table.setColumnHidden(col, True)
    head = table.verticalHeader()
    head.show()
    head.setMaximumWidth(NAME_WIDTH_MAX)
    head.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    for r, row in enumerate(snap.comparison.rows):
        item = QTableWidgetItem(swatch(snap.colors[row.label]), row.label)
        item.setToolTip(row.label)
        table.setVerticalHeaderItem(r, item)
    cols = table.horizontalHeader()
    for c in range(table.columnCount() - 1):
        cols.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
    cols.setSectionResizeMode(table.columnCount() - 1, QHeaderView.ResizeMode.Stretch)


class SlideWidget(QWidget):
    """Title, verdict, the three overlaid plots, the table and the price note, at slide size."""

    def __init__(self, snap: CompareSnapshot) -> None:
        super().__init__()
        self.setStyleSheet(f"background: {theme.BACKGROUND}; color: {theme.AXIS};")
        title = QLabel(f"Which machine for {snap.setup.model.name} {snap.setup.quant.name}?")
        title.setFont(QFont(theme.FONT, 26, QFont.Weight.Bold))
        sub = QLabel(scenario_line(snap, with_model=False))
        sub.setFont(QFont(theme.FONT, 15))
        verdict = QLabel(comparison_verdict(snap.comparison))
        verdict.setWordWrap(True)
        verdict.setFont(QFont(theme.FONT, 16, QFont.Weight.Bold))
        legend = QLabel(legend_text(snap, 14))
        legend.setWordWrap(True)
        self.plots = {axis: ComparePlot(axis, font_pt=12, title_pt=16, line_width=4) for axis in AXES}
        row = QHBoxLayout()
        for axis in AXES:
            show_plot(self.plots[axis], snap)
            row.addWidget(self.plots[axis])
        self.table = QTableWidget()
        self.table.setFont(QFont(theme.FONT, 11))
        self.table.horizontalHeader().setFont(QFont(theme.FONT, 11, QFont.Weight.Bold))
        self.table.verticalHeader().hide()
        self.table.setWordWrap(True)
        self.table.setShowGrid(False)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        fill_table(self.table, snap, columns=SLIDE_COLUMNS)
        head = self.table.horizontalHeader()
        for c in range(self.table.columnCount()):
            head.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(len(SLIDE_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        head.setMinimumSectionSize(40)
        note = QLabel(
            f"{PRICE_NOTE} {costs_line(snap.comparison)}. "
            "Roofline estimates: decode ≈ η × bandwidth ÷ bytes read per token; "
            f"coloured strips: past each machine's offload cliff. LLM speed advisor."
        )
        note.setFont(QFont(theme.FONT, 11))
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {theme.FEEL_TEXT}")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(36, 24, 36, 18)
        lay.addWidget(title)
        lay.addWidget(sub)
        lay.addWidget(verdict)
        lay.addWidget(legend)
        lay.addLayout(row, 5)
        lay.addWidget(self.table, 3)
        lay.addWidget(note)


def slide_image(snap: CompareSnapshot, size: tuple[int, int] = SLIDE_SIZE) -> QImage:
    widget = SlideWidget(snap)

    def fit_table() -> None:
        table = widget.table
        table.resizeRowsToContents()
        # The table takes what its rows need; the plots get the rest of the slide.
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        table.setFixedHeight(rows + table.horizontalHeader().height() + 2 * table.frameWidth() + 4)
        QApplication.processEvents()
        for axis in AXES:  # ranges depend on the plot's final size: draw once more at it
            show_plot(widget.plots[axis], snap)

    try:
        return paint_widget(widget, size, prepare=fit_table)
    finally:
        widget.deleteLater()


def save_slide(snap: CompareSnapshot, path: Path) -> None:
    save_png(slide_image(snap), path)


def table_csv(snap: CompareSnapshot) -> str:
    rows = csv_rows(snap.comparison)
    out = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()


def save_csv(snap: CompareSnapshot, path: Path) -> None:
    write_export(path, table_csv(snap))
