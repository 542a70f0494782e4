"""The Measure dialog's host memory bandwidth test: its box, its thread and putting the figure into the
scenario (host bandwidth, or a CPU-only machine's own bandwidth)."""

from __future__ import annotations

import os
import threading
from html import escape
from typing import cast

from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from advisor.core.hardware import HardwareClass
from advisor.measure.bandwidth import CAVEAT, DEFAULT_SECONDS, BandwidthResult, default_size, measure_bandwidth
from advisor.ui.store import Store

WARN = "#D55E00"


def _ram_bytes() -> float | None:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


class BandwidthThread(QThread):
    """Runs measure_bandwidth off the GUI thread; cancel() stops it after the current pass."""

    progressed = Signal(float)  # fraction done
    measured = Signal(object)  # BandwidthResult
    failed = Signal(str)

    def __init__(self, seconds: float, size_bytes: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seconds = seconds
        self.size_bytes = size_bytes
        self._stop = threading.Event()

    def cancel(self) -> None:
        self._stop.set()

    def run(self) -> None:
        try:
            result = measure_bandwidth(
                self.seconds, self.size_bytes, progress=self.progressed.emit, cancelled=self._stop.is_set
            )
        except (MemoryError, ValueError) as err:
            self.failed.emit(f"The bandwidth test could not run: {err or type(err).__name__}")
            return
        self.measured.emit(result)


class BandwidthSection:
    """Mixed into the dialog (a QWidget with a `store`): the box and what its buttons do."""

    store: Store
    bandwidth: BandwidthResult | None = None
    bandwidth_thread: BandwidthThread | None = None

    def _bandwidth_box(self) -> QGroupBox:
        self.bw_start = QPushButton("Measure host memory bandwidth")
        self.bw_cancel = QPushButton("Cancel")
        self.bw_cancel.setEnabled(False)
        self.bw_progress = QProgressBar()
        self.bw_progress.setRange(0, 100)
        self.bw_result = QLabel("Not measured yet.")
        self.bw_result.setWordWrap(True)
        self.bw_apply = QPushButton("Use it")
        self.bw_apply.setEnabled(False)
        caveat = QLabel(CAVEAT)
        caveat.setWordWrap(True)
        caveat.setStyleSheet("color: #555")
        bw_box = QGroupBox("This machine's memory")
        bw_lay = QVBoxLayout(bw_box)
        row = QHBoxLayout()
        row.addWidget(self.bw_start)
        row.addWidget(self.bw_progress, 1)
        row.addWidget(self.bw_cancel)
        bw_lay.addLayout(row)
        row2 = QHBoxLayout()
        row2.addWidget(self.bw_result, 1)
        row2.addWidget(self.bw_apply)
        bw_lay.addLayout(row2)
        bw_lay.addWidget(caveat)
        self.bw_start.clicked.connect(lambda _c=False: self.start_bandwidth())
        self.bw_cancel.clicked.connect(self.cancel_bandwidth)
        self.bw_apply.clicked.connect(lambda _c=False: self.apply_bandwidth())
        return bw_box

    def _bandwidth_field(self) -> tuple[str, str]:
        if self.store.session.scenario.hardware.kind is HardwareClass.CPU:
            return "bandwidth_gbps", "the CPU's memory bandwidth"
        return "host_bandwidth_gbps", "host (system RAM) bandwidth"

    def _update_apply_label(self) -> None:
        if self.bandwidth is not None:
            _field, what = self._bandwidth_field()
            self.bw_apply.setText(f"Use {self.bandwidth.gbps:.1f} GB/s as {what}")

    def start_bandwidth(self, seconds: float = DEFAULT_SECONDS, size_bytes: int | None = None) -> BandwidthThread:
        if self.bandwidth_thread is not None and self.bandwidth_thread.isRunning():
            return self.bandwidth_thread
        thread = BandwidthThread(seconds, size_bytes or default_size(_ram_bytes()), cast(QWidget, self))
        thread.progressed.connect(lambda f: self.bw_progress.setValue(round(100 * f)))
        thread.measured.connect(self._bandwidth_done)
        thread.failed.connect(self._bandwidth_failed)
        self.bandwidth_thread = thread
        self.bw_start.setEnabled(False)
        self.bw_cancel.setEnabled(True)
        self.bw_apply.setEnabled(False)
        self.bw_progress.setValue(0)
        self.bw_result.setText(f"Measuring for up to {seconds:g} s…")
        thread.start()
        return thread

    def cancel_bandwidth(self) -> None:
        if self.bandwidth_thread is not None:
            self.bandwidth_thread.cancel()

    def _bandwidth_done(self, result: BandwidthResult) -> None:
        self.bandwidth = result if result.passes > 0 and result.gbps > 0 else None
        self.bw_start.setEnabled(True)
        self.bw_cancel.setEnabled(False)
        if self.bandwidth is None:
            self.bw_result.setText("Cancelled before a full pass: nothing measured.")
            return
        self.bw_progress.setValue(100 if not result.cancelled else self.bw_progress.value())
        self.bw_result.setText(result.summary())
        self.bw_apply.setEnabled(True)
        self._update_apply_label()

    def _bandwidth_failed(self, message: str) -> None:
        self.bw_start.setEnabled(True)
        self.bw_cancel.setEnabled(False)
        self.bw_result.setText(f"<span style='color:{WARN}'>{escape(message)}</span>")

    def apply_bandwidth(self) -> bool:
        """Put the measured figure into the scenario: host bandwidth, or the bandwidth of a CPU-only machine."""
        if self.bandwidth is None:
            return False
        name, what = self._bandwidth_field()
        value = round(self.bandwidth.gbps, 1)
        return self.store.update("hardware", f"Measured {what}", **{name: value})

    def _stop_bandwidth(self) -> None:
        if self.bandwidth_thread is not None and self.bandwidth_thread.isRunning():
            self.bandwidth_thread.cancel()
            self.bandwidth_thread.wait(10_000)
