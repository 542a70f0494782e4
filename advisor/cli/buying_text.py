"""The buying commands' text: tables and lines a person reads in a terminal (the JSON comes from
advisor.present's data functions)."""

from __future__ import annotations

from advisor.core.budget_model import ModelBudget, ModelFit
from advisor.core.comparison import Comparison
from advisor.core.fmt import num
from advisor.core.machines import Machine
from advisor.core.scenario import Scenario
from advisor.core.upgrades import Option, Plan
from advisor.present.budget_text import fit_reason
from advisor.present.compare_text import (
    TABLE_COLUMNS,
    comparison_verdict,
    costs_line,
    model_quant,
    row_verdict,
    table_cells,
)
from advisor.present.figures import PRICE_NOTE, price_dated, rate, split_text
from advisor.present.serving_text import cost_cell
from advisor.present.upgrade_text import KIND_TEXT, fit_text, option_description


def _table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def workload_line(s: Scenario) -> str:
    w = s.workload
    return (
        f"{w.context:,} tokens context · {w.prompt_tokens:,}-token prompt · {w.streams} stream"
        f"{'s' if w.streams > 1 else ''} · interactive ≥ {rate(w.interactive_tok_s)} tok/s"
    )


def comparison_text(c: Comparison, s: Scenario) -> str:
    head = f"{c.model_name} · {c.quant_name} · {workload_line(s)}"
    keys = [k for k, _ in TABLE_COLUMNS if k != "verdict"]
    titles = dict(TABLE_COLUMNS)
    cells = [table_cells(r, c.threshold_tok_s) for r in c.rows]
    lines = [head, "=" * len(head), ""]
    lines += _table(
        [titles[k] for k in keys],
        [[cell[k] for k in keys] for cell in cells],
        right={i for i, k in enumerate(keys) if k not in ("machine", "largest")},
    )
    lines += ["", f"Verdict: {comparison_verdict(c)}", ""]
    lines += [f"  {r.label}: {row_verdict(r, model_quant(c), c.threshold_tok_s)}" for r in c.rows]
    lines += ["", f"note: {PRICE_NOTE}", f"note: {costs_line(c)}."]
    return "\n".join(lines)


def price_text(m: Machine) -> str:
    """'$800 used, 2025-12': the price with its kind and month."""
    return price_dated(m.price_usd, m.price_estimate, m.price_kind, m.price_seen)


def option_line(o: Option, cost_prefix: str = "") -> str:
    speed = "does not run" if o.decode_tok_s is None else f"{num(o.decode_tok_s)} tok/s"
    ttft = f", TTFT {num(o.ttft_s)} s" if o.ttft_s is not None else ""
    cost = "price unknown" if o.cost_usd is None else f"{cost_prefix}${o.cost_usd:,.0f}"
    spill = f", spills {o.offloaded_fraction:.0%} to RAM" if o.decode_tok_s is not None and not o.fits else ""
    return f"{option_description(o)} ({cost}) → {speed}{ttft}{spill}"


def _option_table(options: tuple[Option, ...]) -> list[str]:
    return _table(
        ["Price", "Machine", "Split", "Fits", "Decode", "TTFT"],
        [
            [
                price_text(o.machine),
                o.machine.label,
                split_text(o.machine.devices, o.machine.split) or "—",
                fit_text(o),
                f"{num(o.decode_tok_s or 0)} tok/s",
                f"{num(o.ttft_s)} s" if o.ttft_s is not None else "—",
            ]
            for o in options
        ],
        right={0, 4, 5},
    )


def plan_text(p: Plan, s: Scenario) -> str:
    ttft = f", TTFT ≤ {rate(p.target_ttft_s)} s" if p.target_ttft_s is not None else ""
    head = (
        f"{p.model_name} {p.quant_name} at {p.context:,} tokens context: ≥ {rate(p.target_tok_s)} tok/s per "
        f"stream{ttft}"
    )
    lines = [head, "=" * len(head), ""]
    cap = f" at or under ${p.max_price_usd:,.0f}" if p.max_price_usd is not None else ""
    spill = "" if p.allow_spill else " holding the model in fast memory"
    if p.cheapest:
        lines.append(f"Cheapest catalog machines and sets{cap} that meet it{spill}:")
        lines += _option_table(p.cheapest)
    else:
        lines.append(f"Nothing in the catalog{cap} meets it{spill}. The closest there are:")
        lines += _option_table(p.closest)
    if p.current is not None:
        c = p.current
        now = (
            "does not run it"
            if c.decode_tok_s is None
            else f"{num(c.decode_tok_s)} tok/s" + (f", TTFT {num(c.ttft_s)} s" if c.ttft_s is not None else "")
        )
        lines += [
            "",
            f"{c.machine.label[0].upper()}{c.machine.label[1:]}: {now} — "
            + ("already meets it." if c.meets else "does not meet it."),
        ]
        if not c.meets:
            if p.upgrades:
                lines.append(f"Smallest upgrade: {option_line(p.upgrades[0], '+')}")
                lines += [f"  also: {option_line(o, '+')}" for o in p.upgrades[1:]]
            else:
                lines.append("No single upgrade in the catalog reaches it.")
            lines += [f"  {KIND_TEXT[o.kind]} cannot reach it; the best: {option_line(o, '+')}" for o in p.short]
    lines += ["", f"note: {PRICE_NOTE}"]
    if p.unpriced:
        lines.append(f"note: {p.unpriced} catalog machines have no price and are left out.")
    return "\n".join(lines)


def model_budget_text(b: ModelBudget, s: Scenario) -> list[str]:
    """The budget for the person's model: those that hold it and meet the threshold, then the rest."""
    head = f"{b.model_name} {b.quant_name} under ${b.max_price_usd:,.0f} · {workload_line(s)}"
    lines = [head, "=" * len(head), ""]
    if b.meeting:
        lines.append("Hold it in fast memory and meet your speed, cheapest first:")
    else:
        lines.append("Nothing under that price holds it in fast memory at your speed.")
    for x in b.meeting:
        lines.append(f"{x.rank:>3}. {x.machine.label} — {price_text(x.machine)} — {num(x.decode_tok_s or 0)} tok/s")
        lines.append(f"     {fit_reason(x, b.threshold_tok_s)}{_cost(x)}")
    if b.short:
        lines += ["", "Spill to system RAM or fall short:"]
    for x in b.short:
        speed = "does not run" if x.decode_tok_s is None else f"{num(x.decode_tok_s)} tok/s"
        lines.append(f"{x.rank:>3}. {x.machine.label} — {price_text(x.machine)} — {speed}")
        lines.append(f"     {fit_reason(x, b.threshold_tok_s)}{_cost(x)}")
    return lines


def _cost(x: ModelFit) -> str:
    """'; $0.21 · $1.97 per 1M tokens (power · with hardware)', or nothing without a rated power."""
    if x.usd_per_million_tokens is None:
        return ""
    return f"; {cost_cell(x.usd_per_million_tokens, x.usd_per_million_tokens_with_hardware)} per 1M tokens " + (
        "(power · with hardware)" if x.usd_per_million_tokens_with_hardware else "(power)"
    )
