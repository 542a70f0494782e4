"""Per-stream and aggregate tok/s versus batch size, with the compute crossover."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from advisor.ui import theme
from advisor.ui.plots.base import TokPlot
from advisor.ui.plots.geometry import cache_pixmaps, finite_or_nan, log10
from advisor.ui.plots.labels import Label, Labels
from advisor.ui.plots.log_curve import LogCurve
from advisor.ui.store import Snapshot


class BatchPlot(TokPlot):
    binary_x = True
    axis = "batch"

    def __init__(self) -> None:
        super().__init__("tok/s vs batch", "concurrent streams (batch size)")
        self.setLabel("left", "tok/s (per stream, and aggregate)")
        self.aggregate = LogCurve(pg.mkPen(theme.AGGREGATE, width=3))
        self.addItem(self.aggregate, ignoreBounds=True)
        self.legend.addItem(self.aggregate, "aggregate")
        self.crossover = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(theme.AGGREGATE, width=2, style=Qt.PenStyle.DotLine)
        )
        self.crossover_label = Labels(theme.SMALL_PT)
        self.addItem(self.crossover, ignoreBounds=True)
        self.addItem(self.crossover_label, ignoreBounds=True)
        cache_pixmaps(self.band_spans, self.grid)  # as on the model-size plot

    def show_snapshot(self, snap: Snapshot) -> None:
        w = snap.session.scenario.workload
        c = snap.curves["batch"]
        top = float(np.nanmax(np.where(c.runs, np.maximum(c.aggregate, c.ceiling), np.nan))) if c.runs.any() else 10.0
        alt = snap.alternatives.get("batch")
        self.render_common(c, w.interactive_tok_s, w.feel_thresholds, self.base_title, y_top=top, alternative=alt)
        self.show_published(snap.published["batch"])
        self.aggregate.set_xy(c.x, finite_or_nan(c.aggregate, c.runs))
        cross = snap.result.crossover_batch
        if cross is not None and c.x[0] <= cross <= c.x[-1]:
            self.crossover.setValue(log10(cross))
            self.crossover_label.set_labels(
                [
                    Label(
                        log10(cross),
                        log10(0.6),
                        f" compute-bound past ~{cross:,.0f} →",
                        theme.AGGREGATE,
                        (0.0, 1.0),
                        True,
                    )
                ]
            )
            self.crossover.show()
        else:
            self.crossover.hide()
            self.crossover_label.set_labels([])

    def readout_text(self, i: int) -> str:
        c = self.curve_data
        assert c is not None
        text = super().readout_text(i)
        if c.runs[i]:
            text += f"\n{c.aggregate[i]:,.0f} tok/s aggregate"
            if c.compute_bound[i]:
                text += " (compute-bound)"
        return text

    def format_x(self, x: float) -> str:
        return f"{x:,.0f} stream{'s' if x != 1 else ''}"
