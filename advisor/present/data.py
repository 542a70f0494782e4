"""JSON-ready data: a core model's dump with the present layer's words added where readers expect them."""

from __future__ import annotations

from typing import Any


def insert_after(data: dict[str, Any], key: str, extra: dict[str, Any]) -> dict[str, Any]:
    """`data` with `extra`'s keys placed right after `key` (at the end when `key` is absent)."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        out[k] = v
        if k == key:
            out.update(extra)
    out.update({k: v for k, v in extra.items() if k not in out})
    return out
