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


def streams_tip(
    n: int | None,
    limit: str | None,
    rph: float | None,
    tok_s: float | None,
    context: int,
    threshold: float,
    output_tokens: int,
) -> str:
    """The cell's longer reading: what holds, at what speed, and what stops one more."""
    if n is None:
        return "The machine's memory size is not given, so how many streams fit is not checked"
    if n == 0:
        why = (
            "one stream at this context does not fit fast memory"
            if limit == "memory"
            else f"one stream runs under {rate(threshold)} tok/s"
        )
        return f"Serves no stream at speed: {why}"
    text = (
        f"{streams_count(n, limit)} concurrent stream{'s' if n > 1 else ''}, each holding {context:,} tokens of "
        f"context in fast memory, at {num(tok_s or 0)} tok/s each (≥ {rate(threshold)})"
    )
    if rph:
        text += (
            f"; with every stream busy on {output_tokens:,}-token answers, {per_hour(rph).removesuffix('/h')} "
            "requests an hour"
        )
    return text + (f"; {LIMIT_TEXT[limit]}" if limit in LIMIT_TEXT else "")


def money_per_million(x: float | None) -> str:
    """'$0.42', '$12.3', '—'."""
    if x is None:
        return "—"
    return f"${x:,.2f}" if x < 10 else f"${num(x)}"


def cost_cell(electricity: float | None, with_hardware: float | None) -> str:
    """'$0.42 · $3.10': per million tokens, electricity alone and with the hardware paid off."""
    if electricity is None:
        return "—"
    return money_per_million(electricity) + (f" · {money_per_million(with_hardware)}" if with_hardware else "")


def months_text(months: float | None) -> str:
    """'29 months', '4.5 years'."""
    if months is None:
        return "—"
    return f"{num(months, 2)} months" if months < 24 else f"{num(months / 12, 2)} years"


def break_even_cell(months: float | None, pays_off: bool | None) -> str:
    """'29 months', 'never' when electricity alone costs more than the API, '—' without an API price."""
    if pays_off is False:
        return "never"
    if months is None:
        return "—"
    return months_text(months)


def cost_tip(
    joules: float | None,
    electricity: float | None,
    with_hardware: float | None,
    tok_s: float,
    streams: int,
    usd_per_kwh: float,
    life_years: float,
    utilization: float,
    price_usd: float | None,
    power_w: float | None,
) -> str:
    """The cost cell's longer reading: the chain from power and throughput to dollars."""
    if joules is None or electricity is None:
        return "No rated power for this machine, so its running cost is not worked out"
    text = (
        f"{num(power_w or 0)} W ÷ {num(tok_s)} tok/s ({streams} stream{'s' if streams > 1 else ''}) = "
        f"{num(joules)} J per token; × 1M ÷ 3.6M J/kWh × ${usd_per_kwh:g}/kWh = {money_per_million(electricity)} "
        "per million tokens in electricity at the rated power"
    )
    if with_hardware is not None and price_usd:
        text += (
            f"; with ${price_usd:,.0f} paid off over {life_years:g} years generating {utilization:.0%} of the "
            f"time, {money_per_million(with_hardware)} per million"
        )
    return text


def break_even_tip(
    months: float | None,
    pays_off: bool | None,
    api: float | None,
    electricity: float | None,
    million_per_month: float | None,
    price_usd: float | None,
) -> str:
    if api is None:
        return "Type an API price per million tokens to see when the machine pays for itself"
    if price_usd is None or electricity is None:
        return "Needs the machine's price and rated power"
    if pays_off is False:
        return (
            f"Electricity alone ({money_per_million(electricity)} per million) costs more than the API "
            f"({money_per_million(api)}): it never pays for itself"
        )
    made = f" making {num(million_per_month)}M tokens a month" if million_per_month else ""
    return (
        f"${price_usd:,.0f} ÷ the {money_per_million(api)} − {money_per_million(electricity)} saved per million "
        f"tokens{made}: "
        f"{months_text(months)}"
    )
