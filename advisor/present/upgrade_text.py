"""What it would take, in words: each kind of option, and what one changes."""

from __future__ import annotations

from typing import Any

from advisor.core.machines import set_label
from advisor.core.upgrades import Option, Plan
from advisor.present.data import insert_after
from advisor.present.figures import gb

KIND_TEXT: dict[str, str] = {
    "current": "your machine as it is",
    "buy": "buy",
    "more_ram_channels": "more RAM channels",
    "more_cards": "more of the same card",
    "bigger_card": "a bigger card",
    "add_gpu": "add a GPU",
    "bigger_machine": "a bigger machine",
}


def option_description(o: Option) -> str:
    """'add 1 more card: 2 in tensor split', 'a bigger card' named with its memory and bandwidth, or
    the machine's label for one bought as it is."""
    if o.kind in ("buy", "current"):
        return o.machine.label
    ch = o.change
    part, mem, bw = ch.part or "", ch.part_memory_gb or 0.0, ch.part_bandwidth_gbps or 0.0
    cards = "cards" if ch.cards_before > 1 else "card"
    if o.kind == "more_ram_channels":
        if ch.cards_before:
            return f"move the {cards} to {part}: system RAM {ch.host_bandwidth_before_gbps or 0:,.0f} → {bw:,.0f} GB/s"
        return f"a platform with more memory channels: {part} ({bw:,.0f} GB/s)"
    if o.kind == "more_cards":
        added = ch.cards_after - ch.cards_before
        return f"add {added} more card{'s' if added > 1 else ''}: {ch.cards_after} in {o.machine.split} split"
    if o.kind == "bigger_card":
        return f"replace the {cards} with {set_label(part, ch.cards_after)} ({gb(mem)} GB, {bw:,.0f} GB/s)"
    if o.kind == "add_gpu":
        return f"add one {part} ({gb(mem)} GB, {bw:,.0f} GB/s)"
    return f"{part} ({gb(mem)} GB at {bw:,.0f} GB/s)"


def fit_text(o: Option) -> str:
    """'holds it' or 'spills 33% to RAM': whether fast memory holds the model on this option."""
    if o.decode_tok_s is None:
        return "does not run"
    return "holds it" if o.fits else f"spills {o.offloaded_fraction:.0%} to RAM"


def plan_data(p: Plan) -> dict[str, Any]:
    """The plan as JSON-ready data: the core's numbers with each option's description in words."""
    out = p.model_dump(mode="json")

    def word(o: Option, data: dict[str, Any]) -> dict[str, Any]:
        return insert_after(data, "machine", {"description": option_description(o), "split": o.machine.split})

    for key in ("cheapest", "closest", "upgrades", "short"):
        out[key] = [word(o, d) for o, d in zip(getattr(p, key), out[key], strict=True)]
    if p.current is not None:
        out["current"] = word(p.current, out["current"])
    return out
