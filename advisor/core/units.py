"""Named unit conversions. GB means 10^9 bytes, as datasheets use; no bare 1e9 elsewhere."""

from __future__ import annotations

GB = 1e9  # bytes
GIB = 2**30  # bytes
KIB = 2**10  # bytes
BILLION = 1e9  # parameters
TFLOPS = 1e12  # FLOP/s
MS_PER_S = 1000.0
S_PER_HOUR = 3600.0


def gb(n_bytes: float) -> float:
    """Bytes to GB (10^9)."""
    return n_bytes / GB


def to_bytes_gb(n_gb: float) -> float:
    """GB (10^9) to bytes."""
    return n_gb * GB
