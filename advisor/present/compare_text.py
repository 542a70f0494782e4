"""The comparison in words and cells: each machine's verdict, the one line across them, the table
a person reads (the window, the slide and the command line share it), the CSV rows and the JSON."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from advisor.core.comparison import CompareRow, Comparison
from advisor.core.fmt import num
from advisor.core.hardware import HardwareClass
from advisor.core.published import runs_text
from advisor.present.data import insert_after
from advisor.present.figures import and_list, gb, named, price_dated, rate, split_text
from advisor.present.serving_text import (
    break_even_cell,
    break_even_tip,
    cost_cell,
    cost_tip,
    money_per_million,
    streams_cell,
    streams_tip,
)

TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("machine", "Machine"),
    ("split", "Split"),
    ("price_usd", "Price (USD)"),
    ("memory_gb", "Memory (GB)"),
    ("bandwidth_gbps", "Bandwidth (GB/s)"),
    ("decode_tok_s", "Decode (tok/s)"),
    ("ttft_s", "TTFT (s)"),
    ("max_streams", "Streams at speed"),
    ("largest", "Largest interactive model"),
    ("tok_s_per_k_usd", "tok/s per $1,000"),
    ("tok_s_per_w", "tok/s per W"),
    ("cost", "$ per 1M tokens: power · with hardware"),
    ("break_even", "Break-even vs API"),
    ("published", "Measured ÷ model"),
    ("verdict", "Verdict"),
)


def model_quant(c: Comparison) -> str:
    """'Llama 3.3 70B Q4_K_M': what the comparison runs, as the verdicts name it."""
    return f"{c.model_name} {c.quant_name}"


def row_verdict(row: CompareRow, what: str, threshold: float, short: bool = False) -> str:
    """One machine's plain verdict on the chosen model; `short` leaves the model implicit (the table's,
    which shows the split in its own column); the long one says how a set splits the model."""
    text = _verdict(row, what, threshold, short)
    how = split_text(row.devices, row.split)
    return f"{text} ({how})" if how and not short else text


def _verdict(row: CompareRow, what: str, threshold: float, short: bool) -> str:
    d = num(row.decode_tok_s or 0)
    if row.memory_gb is None or row.fits is None:
        unchecked = f"{d} tok/s; memory size not given, so whether it fits is not checked"
        return unchecked if short else f"runs {what} at {unchecked}"
    if not row.runs:
        return (
            f"cannot {'run it' if short else 'run ' + what}: needs {gb(row.total_gb)} GB, has "
            f"{gb(row.memory_gb)} GB" + (f" + {gb(row.host_gb)} GB RAM" if row.host_gb else "")
        )
    if not row.fits:
        spilled = f"{row.offloaded_fraction:.0%} spills to system RAM, {d} tok/s"
        if short:
            return f"does not fit {gb(row.memory_gb)} GB: {spilled}"
        return f"cannot hold {what} in {gb(row.memory_gb)} GB: {spilled}"
    if not row.interactive:
        return (
            f"fits, but {d} tok/s is under your {rate(threshold)}"
            if short
            else f"holds {what} but runs only {d} tok/s, under your {rate(threshold)} tok/s"
        )
    return f"fits: {d} tok/s" if short else f"runs {what} at {d} tok/s"


def _name(r: CompareRow) -> str:
    return named(r.label, r.devices, r.split)


def _cannot_hold(rows: Sequence[CompareRow]) -> str:
    """'the 24 GB cards cannot hold it', grouping machines by memory size (all of them known)."""
    groups: dict[int, list[CompareRow]] = {}
    for r in rows:
        groups.setdefault(round(r.memory_gb or 0), []).append(r)
    parts = []
    for _, group in sorted(groups.items()):
        size = gb(group[0].memory_gb or 0)
        if len(group) > 1:
            cards = all(r.kind is HardwareClass.DISCRETE_GPU and r.devices == 1 for r in group)
            names = and_list([_name(r) for r in group])
            parts.append(f"the {size} GB {'cards' if cards else 'machines'} ({names})")
        else:
            parts.append(f"{_name(group[0])} ({size} GB)")
    return f"{and_list(parts)} cannot hold it"


def summary_verdict(rows: Sequence[CompareRow], what: str, threshold: float) -> str:
    """One plain line across the machines: who runs it best, who cannot hold it, the best value."""
    if not rows:
        return "Add machines to compare."
    holding = [r for r in rows if r.fits]
    spilling = [r for r in rows if r.runs and r.fits is False]
    unchecked = [r for r in rows if r.runs and r.fits is None]
    parts: list[str] = []
    if holding:
        best = max(holding, key=lambda r: r.decode_tok_s or 0)
        under = "" if best.interactive else f", under your {rate(threshold)} tok/s"
        parts.append(f"{_name(best)} runs {what} at {num(best.decode_tok_s or 0)} tok/s{under}")
    elif spilling:
        best = max(spilling, key=lambda r: r.decode_tok_s or 0)
        parts.append(
            f"none holds {what} in fast memory; {_name(best)} does best by spilling to system RAM, "
            f"{num(best.decode_tok_s or 0)} tok/s"
        )
    elif unchecked:
        best = max(unchecked, key=lambda r: r.decode_tok_s or 0)
        parts.append(
            f"{_name(best)} runs {what} at {num(best.decode_tok_s or 0)} tok/s; memory size "
            "not given, so whether it fits is not checked"
        )
    else:
        return f"None of these machines can run {what}: it needs {gb(rows[0].total_gb)} GB."
    missing = [r for r in rows if r.fits is False]
    if missing and holding:
        parts.append(_cannot_hold(missing))
    slow = [r for r in holding if not r.interactive and r is not best]
    if slow and best.interactive:
        verb = "holds" if len(slow) == 1 else "hold"
        names = and_list([_name(r) for r in slow])
        parts.append(f"{names} {verb} it but run{'s' if len(slow) == 1 else ''} under {rate(threshold)} tok/s")
    good = [r for r in rows if r.fits and r.interactive and r.price_usd]
    if len(good) > 1:
        value = max(good, key=lambda r: r.tok_s_per_k_usd or 0)
        cheapest = min(good, key=lambda r: r.price_usd or math.inf)
        if cheapest.label != value.label:
            parts.append(f"cheapest that stays interactive: {_name(cheapest)} (${cheapest.price_usd:,.0f})")
        parts.append(f"most tok/s per dollar: {_name(value)}")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def short_verdict(row: CompareRow, threshold: float) -> str:
    """The table's verdict: the model left implicit."""
    return row_verdict(row, "", threshold, short=True)


def comparison_verdict(c: Comparison) -> str:
    """The line across the comparison's machines."""
    return summary_verdict(c.rows, model_quant(c), c.threshold_tok_s)


def table_cells(row: CompareRow, threshold: float) -> dict[str, str]:
    """A row as a person reads it (the window, the CSV and the command line share these);
    `threshold` is the workload's interactive speed, which the short verdict compares with."""

    def opt(x: float | None, sig: int = 3) -> str:
        return "—" if x is None else num(x, sig)

    big = row.largest
    largest = "none" if big is None else f"{big.model_name} {big.quant_name}, {num(big.decode_tok_s)} tok/s"
    if row.memory_gb is None:
        memory = "not given" + (f" + {gb(row.host_gb)} RAM" if row.host_gb else "")
    elif row.kind is HardwareClass.UNIFIED and row.host_gb:
        memory = f"{gb(row.memory_gb)} of {gb(row.memory_gb + row.host_gb)} usable"
    else:
        memory = gb(row.memory_gb) + (f" + {gb(row.host_gb)} RAM" if row.host_gb else "")
    return {
        "machine": row.label,
        "split": split_text(row.devices, row.split) or "—",
        "price_usd": price_dated(row.price_usd, row.price_estimate, row.price_kind, row.price_seen),
        "memory_gb": memory,
        "bandwidth_gbps": f"{row.bandwidth_gbps:,.0f}",
        "decode_tok_s": opt(row.decode_tok_s),
        "ttft_s": opt(row.ttft_s),
        "max_streams": streams_cell(row.max_streams, row.streams_limit, row.requests_per_hour),
        "largest": largest,
        "tok_s_per_k_usd": opt(row.tok_s_per_k_usd),
        "tok_s_per_w": opt(row.tok_s_per_w),
        "cost": cost_cell(row.usd_per_million_tokens, row.usd_per_million_tokens_with_hardware),
        "break_even": break_even_cell(row.break_even_months, row.pays_off),
        "published": published_cell(row),
        "verdict": short_verdict(row, threshold),
    }


def published_cell(row: CompareRow) -> str:
    """ "0.82 (12 runs)": the median of measured ÷ model over the runs published on this machine."""
    if not row.published_runs or row.published_median is None:
        return "—"
    return f"{row.published_median:.2f} ({runs_text(row.published_runs)})"


def published_tip(row: CompareRow) -> str:
    """The cell's longer reading, with the range (the window's tooltip)."""
    if not row.published_runs or row.published_median is None:
        return "No published decode runs on this catalog machine in the validation set"
    spread = f", from {row.published_low:.2f} to {row.published_high:.2f}" if row.published_runs > 1 else ""
    return (
        f"{runs_text(row.published_runs, 'published decode run')} on this machine "
        f"measured {row.published_median:.2f} × the model's figure for them (median{spread})"
    )


def max_streams_tip(row: CompareRow, c: Comparison) -> str:
    """The streams cell's longer reading (the window's tooltip)."""
    return streams_tip(
        row.max_streams,
        row.streams_limit,
        row.requests_per_hour,
        row.max_streams_tok_s,
        c.context,
        c.threshold_tok_s,
        c.output_tokens,
    )


def cost_row_tip(row: CompareRow, c: Comparison) -> str:
    """The cost cell's longer reading (the window's tooltip)."""
    k = c.costs
    return cost_tip(
        row.joules_per_token,
        row.usd_per_million_tokens,
        row.usd_per_million_tokens_with_hardware,
        row.aggregate_tok_s or 0.0,
        c.streams,
        k.electricity_usd_per_kwh,
        k.life_years,
        k.utilization,
        row.price_usd,
        row.power_w,
    )


def break_even_row_tip(row: CompareRow, c: Comparison) -> str:
    return break_even_tip(
        row.break_even_months,
        row.pays_off,
        c.costs.api_usd_per_million,
        row.usd_per_million_tokens,
        row.million_tokens_per_month,
        row.price_usd,
    )


def costs_line(c: Comparison) -> str:
    """'Running cost at $0.17/kWh, hardware over 3 years at 25% use; API $0.60 per 1M tokens'."""
    k = c.costs
    api = (
        f"; break-even against an API at {money_per_million(k.api_usd_per_million)} per 1M tokens"
        if k.api_usd_per_million
        else ""
    )
    return (
        f"Running cost at the rated power and ${k.electricity_usd_per_kwh:g}/kWh, {c.streams} "
        f"stream{'s' if c.streams > 1 else ''}; hardware paid off over {k.life_years:g} years generating "
        f"{k.utilization:.0%} of the time{api}"
    )


def csv_rows(c: Comparison) -> list[dict[str, Any]]:
    """Machine-readable rows: raw numbers, not the display strings (the verdict apart)."""
    what = model_quant(c)
    out = []
    for r in c.rows:
        big = r.largest
        out.append(
            {
                "machine": r.label,
                "catalog_id": r.catalog_id or "",
                "devices": r.devices,
                "split": r.split,
                "price_usd": r.price_usd,
                "price_estimate": r.price_estimate,
                "price_kind": r.price_kind or "",
                "price_seen": r.price_seen or "",
                "power_w": r.power_w,
                "memory_gb": r.memory_gb,
                "host_gb": r.host_gb,
                "bandwidth_gbps": r.bandwidth_gbps,
                "model": c.model_name,
                "quant": c.quant_name,
                "context": c.context,
                "prompt_tokens": c.prompt_tokens,
                "streams": c.streams,
                "runs": r.runs,
                "fits": r.fits,
                "interactive": r.interactive,
                "decode_tok_s": r.decode_tok_s,
                "ttft_s": r.ttft_s,
                "total_gb": r.total_gb,
                "largest_model": big.model_name if big else "",
                "largest_quant": big.quant_name if big else "",
                "largest_tok_s": big.decode_tok_s if big else None,
                "tok_s_per_k_usd": r.tok_s_per_k_usd,
                "tok_s_per_w": r.tok_s_per_w,
                "max_streams": r.max_streams,
                "max_streams_limit": r.streams_limit or "",
                "max_streams_tok_s": r.max_streams_tok_s,
                "requests_per_hour": r.requests_per_hour,
                "aggregate_tok_s": r.aggregate_tok_s,
                "joules_per_token": r.joules_per_token,
                "electricity_usd_per_kwh": c.costs.electricity_usd_per_kwh,
                "usd_per_million_tokens": r.usd_per_million_tokens,
                "usd_per_million_tokens_with_hardware": r.usd_per_million_tokens_with_hardware,
                "life_years": c.costs.life_years,
                "utilization": c.costs.utilization,
                "api_usd_per_million": c.costs.api_usd_per_million,
                "break_even_months": r.break_even_months,
                "published_runs": r.published_runs,
                "published_measured_over_model": r.published_median,
                "published_low": r.published_low,
                "published_high": r.published_high,
                "verdict": row_verdict(r, what, c.threshold_tok_s),
            }
        )
    return out


def comparison_data(c: Comparison) -> dict[str, Any]:
    """The comparison as JSON-ready data: the core's numbers, with each row's verdicts (after its
    value-for-money figures) and the line across the machines."""
    what = model_quant(c)
    out = c.model_dump(mode="json")
    rows = []
    for row, data in zip(c.rows, out["rows"], strict=True):
        verdicts = {
            "verdict": row_verdict(row, what, c.threshold_tok_s),
            "short_verdict": short_verdict(row, c.threshold_tok_s),
        }
        rows.append(insert_after(data, "tok_s_per_w", verdicts))
    out["rows"] = rows
    out["verdict"] = comparison_verdict(c)
    return out
