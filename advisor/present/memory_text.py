"""The memory line's words when a model does not fit in fast memory: where the rest goes."""

from __future__ import annotations

from advisor.core.fmt import num
from advisor.core.result import Result


def spill_words(r: Result, over_gb: float) -> str:
    """Where what does not fit goes: "12.0 GB in host RAM" or "64.0 GB in host RAM, 327 GB from disk"."""
    p = r.placement
    if p is None:
        return f"{num(over_gb)} GB over"
    host = p.weights_host_gb + p.kv_host_gb
    if p.weights_disk_gb > 0:
        return f"{num(host)} GB in host RAM, {num(p.weights_disk_gb)} GB streamed from disk"
    return f"{num(host)} GB in host RAM" if host > 0 else f"{num(over_gb)} GB over"
