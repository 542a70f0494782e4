"""tok/s versus model size at the chosen quant and context, with the catalog's models as points."""

from __future__ import annotations

import pyqtgraph as pg

from advisor.ui import theme
from advisor.ui.plots.base import TokPlot
from advisor.ui.plots.geometry import cache_pixmaps, log10
from advisor.ui.plots.labels import Label, Labels
from advisor.ui.plots.points import Points
from advisor.ui.store import Extras, Snapshot

MAX_LABELS = 14
# Two labels closer than this in log10 units (x and y both) would overlap: keep the first.
LABEL_GAP_X, LABEL_GAP_Y = 0.22, 0.12


class ParamsPlot(TokPlot):
    axis = "params"

    def __init__(self) -> None:
        super().__init__("tok/s vs model size", "model size (billion parameters)")
        self.points = Points(pg.mkBrush(theme.POINTS), pg.mkPen("w"), 9)
        self.points.setZValue(20)
        self.addItem(self.points, ignoreBounds=True)
        self.legend.addItem(self.points, "catalog models")
        self.point_labels = Labels(7.5)
        self.point_labels.setZValue(40)
        self.addItem(self.point_labels, ignoreBounds=True)
        self.labels.avoid.append(self.point_labels)  # band names give way to the models' names
        # A context drag redraws this plot's curves on every step; the bands, grid, legend, and the
        # catalog's points and names (they follow once edits pause) come from pixmaps meanwhile. Not the
        # band names: they give way to the cliff's label, which moves with the context.
        cache_pixmaps(self.band_spans, self.grid, self.points, self.point_labels)
        self.names: tuple[str, ...] = ()

    def show_snapshot(self, snap: Snapshot) -> None:
        w = snap.session.scenario.workload
        self.render_common(
            snap.curves["params"],
            w.interactive_tok_s,
            w.feel_thresholds,
            self.base_title,
            alternative=snap.alternatives.get("params"),
        )
        self.show_published(snap.published["params"])

    def show_extras(self, extras: Extras) -> None:
        """The catalog's models as points: they follow once edits pause (see Store)."""
        snap = extras
        p = snap.points
        ok = p.decode > 0
        self.points.setData(p.params_b[ok], p.decode[ok])
        self.names = tuple(n for n, k in zip(p.names, ok, strict=True) if k)
        # Label the chosen model first, then others where a label will not cover another.
        chosen = snap.session.model_id
        kept: list[tuple[float, float]] = []
        labels: list[Label] = []
        xs, ys = p.params_b[ok], p.decode[ok]
        keys = [k for k, good in zip(p.keys, ok, strict=True) if good]
        order = sorted(range(len(keys)), key=lambda i: (keys[i] != chosen, -xs[i]))
        for i in order:
            lx, ly = log10(float(xs[i])), log10(float(ys[i]))
            if len(labels) >= MAX_LABELS or any(
                abs(lx - a) < LABEL_GAP_X and abs(ly - b) < LABEL_GAP_Y for a, b in kept
            ):
                continue
            kept.append((lx, ly))
            mine = keys[i] == chosen
            # Other models' names give way where, at this plot's size, they would overlap one already drawn.
            labels.append(
                Label(
                    lx,
                    ly,
                    f" {self.names[i]}",
                    theme.AXIS if mine else theme.FEEL_TEXT,
                    (0.0, 1.0),
                    mine,
                    optional=not mine,
                )
            )
        self.point_labels.set_labels(labels)
        self.labels.update()  # the band names may now give way

    def format_x(self, x: float) -> str:
        return f"{x:,.1f} B parameters"
