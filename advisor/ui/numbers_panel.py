"""The numbers: decode, prefill, latency, a memory bar, and the arithmetic behind each."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from advisor.core.evaluate import evaluate
from advisor.core.fmt import num
from advisor.core.published import Published, published_view
from advisor.present.memory_text import spill_words
from advisor.session import Session
from advisor.ui import theme
from advisor.ui.memory_bar import MemoryBar
from advisor.ui.number_grid import NumberGrid
from advisor.ui.store import Snapshot, Store
from advisor.ui.text_strip import TextStrip

STEPS_DELAY_MS = 80


def short_url(url: str, keep: int = 48) -> str:
    """The address without its scheme, cut to `keep` characters: the link itself is the full one."""
    bare = url.split("://", 1)[-1]
    return bare if len(bare) <= keep else bare[: keep - 1] + "…"


def run_line(r: Published) -> str:
    """One published run beside the model's figure for it, linked to its source."""
    link = f"<a href='{escape(r.source, quote=True)}'>{escape(short_url(r.source))}</a>"
    return f"&nbsp;• {escape(r.versus_model())} — {link}"


class NumbersPanel(QWidget):
    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = NumberGrid(
            [
                ("decode", "Decode", "Realistic tok/s for each stream (η band in brackets)"),
                ("ceiling", "Ceiling", "Bandwidth ÷ bytes read per token: no engine beats this without speculation"),
                ("aggregate", "Aggregate", "tok/s across all concurrent streams"),
                ("prefill", "Prefill", "Prompt tokens per second (compute-bound)"),
                ("ttft", "Time to first token", "Prompt ÷ prefill rate"),
                ("itl", "Inter-token", "1000 ÷ decode: the gap between tokens on screen"),
                ("response", "Response", "TTFT + output ÷ decode"),
                ("rph", "Requests/hour", "streams × 3600 ÷ response time"),
                ("memory", "Memory", "Weights + KV + overhead against fast memory"),
            ],
            bold=("decode",),
        )
        self.bar = MemoryBar()
        self.verdict = TextStrip(lines=2)
        # A text browser, not a word-wrapped label: new text re-lays out only itself, not the dock.
        self.steps = QTextBrowser()
        self.steps.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.steps.setToolTip("The arithmetic behind every number above")
        self.steps.setOpenExternalLinks(True)  # a published measurement's source opens in the browser
        self.steps.setMinimumHeight(160)
        lay = QVBoxLayout(self)
        lay.addWidget(self.verdict)
        lay.addWidget(self.grid)
        lay.addWidget(self.bar)
        lay.addWidget(QLabel("<b>How it is worked out</b>"))
        lay.addWidget(self.steps, 1)
        self._steps_html = ""
        # The worked arithmetic is a long document: lay it out once a drag pauses, not on every step.
        self._steps_timer = QTimer(self)
        self._steps_timer.setSingleShot(True)
        self._steps_timer.setInterval(STEPS_DELAY_MS)
        self._steps_timer.timeout.connect(self._show_steps)
        self.store = store
        self._steps_session: Session | None = None  # the scenario the shown arithmetic belongs to
        store.changed.connect(self.show_snapshot)
        self.show_snapshot(store.snapshot)
        self._show_steps()

    def show_snapshot(self, snap: Snapshot) -> None:
        r = snap.result
        w = snap.session.scenario.workload

        def tok(x: float | None) -> str:
            return f"{num(x)} tok/s" if x is not None else "—"

        if not r.runs:
            self.verdict.setText(
                "<span style='font-size:14pt; color:#D55E00'><b>Does not run</b></span> — "
                "weights and KV exceed fast and host memory together."
            )
        else:
            color = theme.FEEL_COLOR[r.interactive_class].darker(140).name() if r.interactive_class else theme.AXIS
            feel = r.interactive_class.value if r.interactive_class else ""
            where = "fits in fast memory" if r.fits else f"{r.offloaded_fraction:.0%} offloaded: on the cliff"
            self.verdict.setText(
                f"<span style='font-size:16pt; color:{color}'><b>{num(r.decode_tok_s or 0)} tok/s</b>"
                f"</span> &nbsp; {feel} · {where}"
            )
        g = self.grid
        g.set_value(
            "decode",
            f"{tok(r.decode_tok_s)} ({num(r.decode_low_tok_s or 0)}–{num(r.decode_high_tok_s or 0)})"
            if r.runs
            else "does not run",
        )
        g.set_value("ceiling", tok(r.decode_ceiling_tok_s) + (" — beaten by speculation" if r.exceeds_ceiling else ""))
        g.set_value("aggregate", f"{tok(r.aggregate_tok_s)} over {w.streams} stream{'s' if w.streams > 1 else ''}")
        g.set_value("prefill", tok(r.prefill_tok_s) + (" (measured)" if w.prefill_rate else ""))
        g.set_value("ttft", f"{num(r.ttft_s)} s for {w.prompt_tokens:,} tokens" if r.ttft_s is not None else "—")
        g.set_value("itl", f"{num(r.inter_token_ms)} ms" if r.inter_token_ms is not None else "—")
        g.set_value(
            "response", f"{num(r.response_s)} s for {w.output_tokens:,} tokens" if r.response_s is not None else "—"
        )
        g.set_value("rph", num(r.requests_per_hour, 4) if r.requests_per_hour is not None else "—")
        if r.fast_capacity_gb is None:
            g.set_value("memory", f"{num(r.total_gb)} GB needed; memory size not given")
        else:
            over = r.total_gb - r.fast_capacity_gb
            g.set_value(
                "memory",
                f"{num(r.total_gb)} GB of {num(r.fast_capacity_gb)} GB"
                + (f" — {spill_words(r, over)}" if over > 0 else ""),
                QColor(theme.CLIFF) if over > 0 else None,
            )
        self.bar.set_result(r)
        if snap.session != self._steps_session:
            self._steps_timer.start()
            if self.steps.isEnabled():  # greyed while it shows an earlier scenario (once per drag)
                self.steps.setEnabled(False)

    def _published_lines(self, session: Session) -> list[str]:
        """How the model did on every published run on this machine, then the runs of exactly this setup,
        each beside the model's figure for that run."""
        view = published_view(self.store.catalog.published, self.store.setup(session))
        if view.machine is None:
            return []
        out = [f"<b>Published</b>: {escape(view.machine.text())} (squares on the plots where they fit)"]
        if view.runs:
            out.append(
                "Runs of this model and quant here, each beside the model for that run's context, backend and build:"
            )
        out += [run_line(r) for r in view.runs]
        if view.more:
            out.append(f"&nbsp;• and {view.more} more")
        if view.prefill:
            out.append("Prefill runs of this model and quant here, the prompt size nearest yours first:")
        return out + [run_line(r) for r in view.prefill]

    def _show_steps(self) -> None:
        """The worked arithmetic for the current scenario (the store's results leave it out)."""
        self._steps_timer.stop()
        session = self.store.session
        r = evaluate(session.scenario)
        lines = [f"<b>{escape(s.label)}</b>: {escape(s.text)}" for s in r.steps]
        lines += [f"<i>{escape(n)}</i>" for n in r.notes]
        lines += self._published_lines(session)
        html = "<br>".join(lines)
        self._steps_session = session
        if html != self._steps_html:
            self._steps_html = html
            self.steps.setHtml(html)
        self.steps.setEnabled(True)
