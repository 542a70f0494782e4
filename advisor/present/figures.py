"""Figures as people read them in the buying tables: memory sizes, typed thresholds, prices and
machine names, and the note every price carries."""

from __future__ import annotations

import re
from collections.abc import Sequence

from advisor.core.fmt import num

PRICE_NOTE = "GPU prices are the cards alone; Macs, mini PCs and CPU boxes are whole machines."

_VENDOR = re.compile(r"^(\d+× )?(NVIDIA GeForce |NVIDIA |AMD Radeon |AMD |Intel |Apple )")


def gb(x: float) -> str:
    """Memory sizes as people say them: 24 GB, 96 GB, 7.5 GB."""
    return f"{x:,.0f}" if x >= 10 else num(x, 2)


def rate(x: float) -> str:
    """A threshold or target as typed: 10, 12.5."""
    return f"{x:g}"


def short_name(label: str) -> str:
    """'2× NVIDIA GeForce RTX 3090' -> '2× RTX 3090': the verdict line reads better without vendors."""
    return _VENDOR.sub(lambda m: m.group(1) or "", label)


def split_text(devices: int, split: str) -> str:
    """'layer split' or 'tensor split' for a multi-device machine, '' for one device."""
    return f"{split} split" if devices > 1 else ""


def named(label: str, devices: int, split: str, short: bool = True) -> str:
    """'2× RTX 3090 (layer split)': a machine as verdicts name it, with how a set shares the model."""
    name = short_name(label) if short else label
    how = split_text(devices, split)
    return f"{name} ({how})" if how and how not in name else name


def price_text(price_usd: float | None, estimate: bool) -> str:
    """'$1,499', '~$4,999' for an estimate, '—' when unknown."""
    if price_usd is None:
        return "—"
    return f"{'~' if estimate else ''}${price_usd:,.0f}"


def price_dated(price_usd: float | None, estimate: bool, kind: str | None, seen: str | None) -> str:
    """'$800 used, 2025-12', '$1,499 new, 2020-09', '~$4,999 new, 2024-10'; a typed price alone."""
    text = price_text(price_usd, estimate)
    if price_usd is None or (kind is None and seen is None):
        return text
    return f"{text} {', '.join(x for x in (kind, seen) if x)}"


def price_tip(price_usd: float | None, estimate: bool, kind: str | None, seen: str | None) -> str:
    """The price cell's longer reading."""
    if price_usd is None:
        return "No price known: double-click the price on the left to give one"
    if kind is None and seen is None:
        return f"${price_usd:,.0f}: your price"
    what = "a used one" if kind == "used" else "new"
    when = f", seen {seen}" if seen else ""
    return f"${price_usd:,.0f} {what}{when}{' (an estimate)' if estimate else ''}"


def catalog_prices(
    price_usd: float | None,
    estimate: bool,
    kind: str | None,
    seen: str | None,
    used_usd: float | None,
    used_seen: str | None,
    products: Sequence[str],
) -> str:
    """A catalog entry's products and prices with their months, for its tooltip:
    'Sold as: Mac Studio, MacBook Pro 16\nNew ~$2,599 (2022-03); used $1,799 (2022-06)'."""
    lines = [f"Sold as: {', '.join(products)}"] if products else []
    prices = []
    if price_usd:
        when = f" ({seen})" if seen else ""
        prices.append(f"{(kind or 'new').capitalize()} {price_text(price_usd, estimate)}{when}")
    if used_usd:
        prices.append(f"used ${used_usd:,.0f}" + (f" ({used_seen})" if used_seen else ""))
    if prices:
        lines.append("; ".join(prices))
    return "\n".join(lines)


def and_list(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
