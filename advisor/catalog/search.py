"""Search-as-you-type over catalog entries: every word of the query must appear somewhere."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel

E = TypeVar("E", bound=BaseModel)

_SPLIT = re.compile(r"[^a-z0-9.]+")


def _words(text: str) -> list[str]:
    return [w for w in _SPLIT.split(text.lower()) if w]


def haystack(entry: BaseModel) -> str:
    parts = [str(getattr(entry, f, "") or "") for f in ("id", "name", "vendor", "family", "kind", "format")]
    parts += [str(p) for p in getattr(entry, "products", None) or ()]  # "mac mini", "framework desktop"
    text = " ".join(parts).lower()
    # "rtx-4090" and "rtx 4090" and "rtx4090" all match: also keep a copy without separators.
    return text + " " + re.sub(r"[^a-z0-9]", "", text)


def search(entries: Iterable[E], query: str) -> list[E]:
    """Entries matching every word of `query`, best first (id or name starting with the query)."""
    words = _words(query)
    items = list(entries)
    if not words:
        return items
    hits: list[tuple[int, int, E]] = []
    for n, e in enumerate(items):
        hay = haystack(e)
        if all(w in hay for w in words):
            name = str(getattr(e, "name", "")).lower()
            phrase = " ".join(words)
            product = any(phrase in " ".join(_words(str(p))) for p in getattr(e, "products", None) or ())
            score = (
                0
                if (name.startswith(query.lower().strip()) or str(getattr(e, "id", "")).startswith(words[0]) or product)
                else 1
            )
            hits.append((score, n, e))
    # Among equal scores, the shorter name is the closer match ("3090" → RTX 3090 before RTX 3090 Ti);
    # the catalog's own order breaks the remaining ties.
    hits.sort(key=lambda t: (t[0], len(str(getattr(t[2], "name", ""))), t[1]))
    return [e for _, _, e in hits]
