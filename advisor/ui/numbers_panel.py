"""The numbers: decode, prefill, latency, a memory bar, and the arithmetic behind each."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from advisor.core.evaluate import evaluate
from advisor.core.fmt import num
from advisor.core.published import Published, published_view
from advisor.core.result import Result
from advisor.session import Session
from advisor.ui import theme
from advisor.ui.number_grid import NumberGrid
from advisor.ui.store import Snapshot, Store
from advisor.ui.text_strip import TextStrip

STEPS_DELAY_MS = 80

SEGMENTS = (("weights", QColor(theme.REALISTIC)), ("KV cache", QColor(theme.AGGREGATE)),
            ("overhead", QColor("#999999")))


class MemoryBar(QWidget):
    """Weights / KV / overhead against fast memory; anything past capacity drawn in red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parts: list[tuple[str, float, QColor]] = []
        self.capacity = 1.0
        self.setMinimumHeight(28)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(300, 28)

    def set_result(self, r: Result) -> None:
        self.parts = [("weights", r.weights_gb + r.draft_gb, SEGMENTS[0][1]), ("KV cache", r.kv_gb, SEGMENTS[1][1]),
                      ("overhead", r.overhead_gb, SEGMENTS[2][1])]
        cap = r.fast_capacity_gb if r.fast_capacity_gb is not None else r.total_gb  # unknown: the bar is the need
        self.capacity = max(cap, 1e-9)
        free = max(cap - r.total_gb, 0)
        over = max(r.total_gb - cap, 0)
        room = (" · memory size not given" if r.fast_capacity_gb is None else
                f" · free {num(free)} GB" if free else f" · {num(over)} GB over capacity")
        self.setToolTip(" · ".join(f"{n} {num(v)} GB" for n, v, _ in self.parts) + room)
        self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        total = sum(v for _, v, _ in self.parts)
        scale_to = max(total, self.capacity)
        w, h = self.width(), self.height()
        p.fillRect(0, 0, w, h, QColor("#eeeeee"))
        x = 0.0
        for _, v, color in self.parts:
            width = w * v / scale_to
            p.fillRect(QRectF(x, 0, width, h), color)
            x += width
        cap_x = w * self.capacity / scale_to
        if total > self.capacity:
            p.fillRect(QRectF(cap_x, 0, w - cap_x, h), QColor(213, 94, 0, 170))
        p.setPen(QColor(theme.AXIS))
        p.drawLine(int(cap_x) - 1, 0, int(cap_x) - 1, h)
        p.drawText(QRectF(4, 0, w - 8, h), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                   f"{num(total)} of {num(self.capacity)} GB")
        p.end()


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
        self.grid = NumberGrid([
            ("decode", "Decode", "Realistic tok/s for each stream (η band in brackets)"),
            ("ceiling", "Ceiling", "Bandwidth ÷ bytes read per token: no engine beats this without speculation"),
            ("aggregate", "Aggregate", "tok/s across all concurrent streams"),
            ("prefill", "Prefill", "Prompt tokens per second (compute-bound)"),
            ("ttft", "Time to first token", "Prompt ÷ prefill rate"),
            ("itl", "Inter-token", "1000 ÷ decode: the gap between tokens on screen"),
            ("response", "Response", "TTFT + output ÷ decode"),
            ("rph", "Requests/hour", "streams × 3600 ÷ response time"),
            ("memory", "Memory", "Weights + KV + overhead against fast memory"),
        ], bold=("decode",))
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
            self.verdict.setText("<span style='font-size:14pt; color:#D55E00'><b>Does not run</b></span> — "
                                 "weights and KV exceed fast and host memory together.")
        else:
            color = theme.FEEL_COLOR[r.interactive_class].darker(140).name() if r.interactive_class else theme.AXIS
            feel = r.interactive_class.value if r.interactive_class else ""
            where = "fits in fast memory" if r.fits else f"{r.offloaded_fraction:.0%} offloaded: on the cliff"
            self.verdict.setText(f"<span style='font-size:16pt; color:{color}'><b>{num(r.decode_tok_s or 0)} tok/s</b>"
                                 f"</span> &nbsp; {feel} · {where}")
        g = self.grid
        g.set_value("decode", f"{tok(r.decode_tok_s)} ({num(r.decode_low_tok_s or 0)}–{num(r.decode_high_tok_s or 0)})"
                    if r.runs else "does not run")
        g.set_value("ceiling", tok(r.decode_ceiling_tok_s) + (" — beaten by speculation" if r.exceeds_ceiling else ""))
        g.set_value("aggregate", f"{tok(r.aggregate_tok_s)} over {w.streams} stream{'s' if w.streams > 1 else ''}")
        g.set_value("prefill", tok(r.prefill_tok_s) + (" (measured)" if w.prefill_rate else ""))
        g.set_value("ttft", f"{num(r.ttft_s)} s for {w.prompt_tokens:,} tokens" if r.ttft_s is not None else "—")
        g.set_value("itl", f"{num(r.inter_token_ms)} ms" if r.inter_token_ms is not None else "—")
        g.set_value("response", f"{num(r.response_s)} s for {w.output_tokens:,} tokens"
                    if r.response_s is not None else "—")
        g.set_value("rph", num(r.requests_per_hour, 4) if r.requests_per_hour is not None else "—")
        if r.fast_capacity_gb is None:
            g.set_value("memory", f"{num(r.total_gb)} GB needed; memory size not given")
        else:
            over = r.total_gb - r.fast_capacity_gb
            g.set_value("memory", f"{num(r.total_gb)} GB of {num(r.fast_capacity_gb)} GB"
                        + (f" — {num(over)} GB over" if over > 0 else ""), QColor(theme.CLIFF) if over > 0 else None)
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
            out.append("Runs of this model and quant here, each beside the model for that run's context, "
                       "backend and build:")
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
