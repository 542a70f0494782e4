"""tok/s versus context length: the KV cache's tax, and where it overflows memory."""

from __future__ import annotations

from advisor.measure.entry import measured_xy
from advisor.ui.plots.base import TokPlot
from advisor.ui.plots.geometry import cache_pixmaps
from advisor.ui.store import Snapshot


class ContextPlot(TokPlot):
    binary_x = True
    axis = "context"

    def __init__(self) -> None:
        super().__init__("tok/s vs context", "context length (tokens)")
        # Dragging the context moves only the marker here, and Qt repaints whatever lies under it:
        # those items (bands, grid, the η band, both curves, the labels) are then blitted from a
        # pixmap instead of drawn again (about 9 % of an edit's instructions).
        cache_pixmaps(self.band_spans, self.grid, self.band, self.ceiling, self.line, self.labels)

    def show_snapshot(self, snap: Snapshot) -> None:
        w = snap.session.scenario.workload
        self.render_common(
            snap.curves["context"],
            w.interactive_tok_s,
            w.feel_thresholds,
            self.base_title,
            alternative=snap.alternatives.get("context"),
        )
        self.show_measured(*self.measured_points(snap))
        self.show_published(snap.published["context"], x_min=float(snap.curves["context"].x[0]))

    def measured_points(self, snap: Snapshot) -> tuple[list[float], list[float]]:
        """(context, tok/s) the user measured on the current hardware entry, from the window's store
        catalog (a plot outside a window, such as a slide export, has none). Depth 0 is drawn at the
        axis's left edge."""
        store = self.store
        xs, ys = measured_xy(getattr(store, "catalog", None), snap.session)
        left = float(snap.curves["context"].x[0])
        return [max(x, left) for x in xs], ys

    def format_x(self, x: float) -> str:
        return f"{x:,.0f} tokens of context"
