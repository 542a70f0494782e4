"""Feel it: the same answer streamed at the predicted speed beside 5, 20 and 50 tok/s."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialog, QGridLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from advisor.core.fmt import num
from advisor.ui.screen import fit_to_screen

SAMPLE = (
    "Decode speed is mostly a memory question. For every token the model writes, it has to stream all of "
    "its active weights from memory to the arithmetic units, and the arithmetic is quick by comparison. "
    "So the time per token is roughly the bytes of the model divided by the bandwidth of the memory that "
    "holds them. Halve the bytes with a smaller quant and the speed roughly doubles; let a few layers spill "
    "into system RAM and every token waits on the slowest pool. Long conversations add the KV cache to the "
    "bytes read, which is why the same model types more slowly at the end of a long session than at the start."
)
TOKENS_PER_WORD = 1.3  # English averages about 1.3 tokens per word
TICK_MS = 30
REFERENCE_RATES = (5.0, 20.0, 50.0)


def words_after(seconds: float, rate: float, ttft: float, n_words: int) -> int:
    """How many words a stream at `rate` tok/s has shown `seconds` after the request."""
    if seconds < ttft or rate <= 0:
        return 0
    return min(n_words, int((seconds - ttft) * rate / TOKENS_PER_WORD))


class FeelDialog(QDialog):
    def __init__(self, rate: float | None, ttft: float | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Feel it")
        self.words = SAMPLE.split()
        self.lanes: list[tuple[float, float, QPlainTextEdit]] = []
        grid = QGridLayout()
        lanes = [(rate or 0.0, ttft or 0.0, f"This setup: {num(rate or 0)} tok/s after {num(ttft or 0)} s")]
        lanes += [(r, 0.0, f"{num(r)} tok/s") for r in REFERENCE_RATES]
        for col, (r, t, title) in enumerate(lanes):
            text = QPlainTextEdit()
            text.setReadOnly(True)
            text.setMinimumWidth(150)  # four lanes side by side still fit a small laptop screen
            head = QLabel(f"<b>{title}</b>")
            head.setWordWrap(True)
            grid.addWidget(head, 0, col)
            grid.addWidget(text, 1, col)
            self.lanes.append((r, t, text))
        self.restart = QPushButton("Restart")
        self.restart.clicked.connect(self.start)
        lay = QVBoxLayout(self)
        lay.addLayout(grid)
        lay.addWidget(self.restart)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        fit_to_screen(self, (1000, 420), center=False)
        self.start()

    def start(self) -> None:
        self.t0 = time.monotonic()
        for _, _, text in self.lanes:
            text.clear()
        self.timer.start()

    def tick(self) -> None:
        elapsed = time.monotonic() - self.t0
        done = True
        for rate, ttft, text in self.lanes:
            n = words_after(elapsed, rate, ttft, len(self.words))
            text.setPlainText(" ".join(self.words[:n]) if n else ("waiting for the first token…" if rate else "—"))
            done &= n >= len(self.words) or rate <= 0
        if done:
            self.timer.stop()
