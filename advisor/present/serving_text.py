"""How many people a machine serves, and what a token costs to run, in words and cells."""

from __future__ import annotations

from advisor.core.fmt import num
from advisor.present.figures import rate

LIMIT_TEXT = {
    "memory": "one more stream's KV cache does not fit fast memory",
    "speed": "one more stream takes every stream under the threshold",
    "axis": "the search stops there",
}


def streams_count(n: int | None, limit: str | None) -> str:
    """'4', '≥8,192' past the searched axis, '—' when the fit cannot be checked."""
    if n is None:
        return "—"
    return f"≥{n:,}" if limit == "axis" else f"{n:,}"


def per_hour(rph: float | None) -> str:
    """'1,860/h': requests per hour to three significant figures."""
    if rph is None:
        return ""
    return f"{float(f'{rph:.3g}'):,.0f}/h" if rph >= 100 else f"{num(rph)}/h"


def streams_cell(n: int | None, limit: str | None, rph: float | None) -> str:
    """'4 · 1,860/h': the table's most streams at speed and the requests an hour they make."""
    if not n:
        return streams_count(n, limit)
    return f"{streams_count(n, limit)} · {per_hour(rph)}"


def streams_phrase(n: int | None, limit: str | None, rph: float | None) -> str:
    """'serves 4 streams at speed (1,860 requests an hour)', for verdicts and reasons."""
    if n is None:
        return "memory size not given, so the streams it serves are not checked"
    if n == 0:
        return "not one stream at speed in fast memory"
    count = streams_count(n, limit)
    hour = f" ({per_hour(rph).removesuffix('/h')} requests an hour)" if rph else ""
    return f"serves {count} stream{'s' if n > 1 else ''} at speed{hour}"


def streams_tip(n: int | None, limit: str | None, rph: float | None, tok_s: float | None, context: int,
                threshold: float, output_tokens: int) -> str:
    """The cell's longer reading: what holds, at what speed, and what stops one more."""
    if n is None:
        return "The machine's memory size is not given, so how many streams fit is not checked"
    if n == 0:
        why = ("one stream at this context does not fit fast memory" if limit == "memory"
               else f"one stream runs under {rate(threshold)} tok/s")
        return f"Serves no stream at speed: {why}"
    text = (f"{streams_count(n, limit)} concurrent stream{'s' if n > 1 else ''}, each holding {context:,} tokens of "
            f"context in fast memory, at {num(tok_s or 0)} tok/s each (≥ {rate(threshold)})")
    if rph:
        text += (f"; with every stream busy on {output_tokens:,}-token answers, {per_hour(rph).removesuffix('/h')} "
                 "requests an hour")
    return text + (f"; {LIMIT_TEXT[limit]}" if limit in LIMIT_TEXT else "")
