"""A host memory bandwidth test with NumPy: copy and sum large arrays, best of repeated passes.

    result = measure_bandwidth(seconds=3.0)      # BandwidthResult; result.gbps is the figure

Copy moves 2 × size bytes per pass (read + write), sum reads size bytes; the best pass of each is
kept, and `gbps` is the larger of the two. The test stops after `seconds` (allocation included), or
when `cancelled()` turns true (the best figure so far is returned, flagged), and reports progress
as a fraction in [0, 1].

One thread, through NumPy: this underestimates the peak of multi-channel memory (a desktop's
dual-channel DDR5 often shows half its peak; servers with 8–12 channels a small fraction), because
one core cannot keep every channel busy. llama.cpp reads with all cores, so treat the figure as a
floor. NumPy releases the GIL in copies and reductions, so the test runs well in a worker thread."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DEFAULT_SIZE = 256 * 2**20  # bytes per array: far beyond any CPU cache
MIN_SIZE = 2**16
DEFAULT_SECONDS = 3.0
MAX_SECONDS = 60.0
CAVEAT = (
    "A single-thread NumPy copy underestimates the peak of multi-channel memory: one core cannot keep "
    "every channel busy, while llama.cpp reads with all of them. Treat the figure as a floor."
)


class BandwidthError(ValueError):
    pass


@dataclass(frozen=True)
class BandwidthResult:
    copy_gbps: float  # best copy pass: 2 × size ÷ time (read + write), GB/s (10^9 bytes)
    read_gbps: float  # best sum pass: size ÷ time, GB/s
    passes: int
    seconds: float
    size_bytes: int
    cancelled: bool = False

    @property
    def gbps(self) -> float:
        return max(self.copy_gbps, self.read_gbps)

    def summary(self) -> str:
        stop = " (cancelled: best so far)" if self.cancelled else ""
        return (
            f"{self.gbps:.1f} GB/s{stop} — copy {self.copy_gbps:.1f}, read {self.read_gbps:.1f} GB/s; "
            f"{self.passes} passes over {self.size_bytes / 2**20:.0f} MiB in {self.seconds:.1f} s"
        )


def measure_bandwidth(
    seconds: float = DEFAULT_SECONDS,
    size_bytes: int = DEFAULT_SIZE,
    *,
    progress: Callable[[float], object] | None = None,
    cancelled: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> BandwidthResult:
    if not (0 < seconds <= MAX_SECONDS):
        raise BandwidthError(f"seconds must be in (0, {MAX_SECONDS:g}], not {seconds}")
    if size_bytes < MIN_SIZE:
        raise BandwidthError(f"size must be at least {MIN_SIZE} bytes, not {size_bytes}")
    stop = cancelled or (lambda: False)
    start = clock()
    n = size_bytes // 8
    src = np.ones(n, dtype=np.float64)  # written once, so every page is really allocated
    dst = np.zeros(n, dtype=np.float64)
    nbytes = src.nbytes
    best_copy = best_read = 0.0
    passes = 0
    was_cancelled = False
    while True:
        if stop():
            was_cancelled = True
            break
        t0 = clock()
        np.copyto(dst, src)
        t1 = clock()
        float(src.sum())
        t2 = clock()
        passes += 1
        if t1 > t0:
            best_copy = max(best_copy, 2 * nbytes / (t1 - t0) / 1e9)
        if t2 > t1:
            best_read = max(best_read, nbytes / (t2 - t1) / 1e9)
        elapsed = t2 - start
        if progress is not None:
            progress(min(elapsed / seconds, 1.0))
        if elapsed >= seconds and passes >= 2:
            break
        if elapsed >= 2 * seconds:  # a machine so slow that two passes do not fit: stop anyway
            break
    return BandwidthResult(
        copy_gbps=best_copy,
        read_gbps=best_read,
        passes=passes,
        seconds=clock() - start,
        size_bytes=nbytes,
        cancelled=was_cancelled,
    )


def default_size(ram_bytes: float | None) -> int:
    """256 MiB per array, or an eighth of the RAM on small machines (two arrays are allocated)."""
    if ram_bytes is None or ram_bytes <= 0:
        return DEFAULT_SIZE
    return int(max(MIN_SIZE * 16, min(DEFAULT_SIZE, ram_bytes / 8)))
