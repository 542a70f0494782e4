"""tok/s versus context length: the KV cache's tax, and where it overflows memory."""

from __future__ import annotations

from advisor.ui.plots.base import TokPlot
from advisor.ui.store import Snapshot


class ContextPlot(TokPlot):
    binary_x = True
    axis = "context"

    def __init__(self, parent: object = None) -> None:
        super().__init__("tok/s vs context", "context length (tokens)", parent)

    def show_snapshot(self, snap: Snapshot) -> None:
        w = snap.session.scenario.workload
        self.render_common(snap.curves["context"], w.interactive_tok_s, w.feel_thresholds,
                           self.base_title)

    def format_x(self, x: float) -> str:
        return f"{x:,.0f} tokens of context"
