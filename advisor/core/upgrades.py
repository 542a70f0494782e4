"""What it would take to reach a target speed: the cheapest catalog machines and multi-GPU sets that
reach it, and the cheapest upgrade of each kind to the user's own machine. Each option says what it
changes as facts (advisor.present.upgrade_text words them).

The catalog is screened with the machine grid's one broadcast solve; every option shown has its
exact numbers from `evaluate`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from advisor.core.base import Frozen
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.machine_grid import machine_grid
from advisor.core.machines import Machine, scenario_on, set_label, single_name
from advisor.core.result import Result
from advisor.core.scenario import Scenario

MAX_DEVICES_UPGRADE = 4  # "a second card" stops at four cards in one box

OptionKind = Literal["current", "buy", "more_ram_channels", "more_cards", "bigger_card", "add_gpu", "bigger_machine"]


class Change(Frozen):
    """What an option changes on the user's machine: the catalog part it brings in (a platform, a
    card or a whole machine, with its memory and bandwidth) and the discrete GPUs before and after.
    A catalog machine bought as it is, or the user's machine unchanged, has no part."""

    part: str | None = None
    part_memory_gb: float | None = Field(None, description="Per card, for a GPU")
    part_bandwidth_gbps: float | None = None
    cards_before: int = Field(0, description="Discrete GPUs in the user's machine")
    cards_after: int = 0
    host_bandwidth_before_gbps: float | None = Field(None, description="System RAM the cards move away from")


class Option(Frozen):
    kind: OptionKind
    machine: Machine
    cost_usd: float | None = Field(description="What it costs: the machine, or the upgrade's parts")
    decode_tok_s: float | None
    ttft_s: float | None
    fits: bool
    offloaded_fraction: float = Field(0.0, ge=0, le=1, description="Share of the model in system RAM")
    meets: bool
    change: Change = Change()


class Plan(Frozen):
    model_name: str
    quant_name: str
    context: int
    target_tok_s: float
    target_ttft_s: float | None
    max_price_usd: float | None = None
    allow_spill: bool = False
    cheapest: tuple[Option, ...] = ()  # catalog machines and sets that meet it, cheapest first
    closest: tuple[Option, ...] = ()  # when nothing meets it: the fastest there are
    current: Option | None = None
    upgrades: tuple[Option, ...] = ()  # per kind, the cheapest that meets it, cheapest first
    short: tuple[Option, ...] = ()  # upgrade kinds that cannot reach it: the best each can do
    unpriced: int = 0
    over_budget: int = 0

    @property
    def smallest_upgrade(self) -> Option | None:
        return self.upgrades[0] if self.upgrades else None


class Candidate(NamedTuple):
    kind: OptionKind
    machine: Machine
    change: Change
    cost_usd: float | None


def _meets(r: Result, target: float, ttft: float | None, allow_spill: bool = True) -> bool:
    return bool(
        r.runs
        and (allow_spill or r.fits)
        and (r.decode_tok_s or 0) >= target
        and (ttft is None or (r.ttft_s is not None and r.ttft_s <= ttft))
    )


def _option(c: Candidate, base: Scenario, target: float, ttft: float | None, allow_spill: bool = True) -> Option:
    r = evaluate(scenario_on(base, c.machine.hardware))
    return Option(
        kind=c.kind,
        machine=c.machine,
        change=c.change,
        cost_usd=c.cost_usd,
        decode_tok_s=r.decode_tok_s if r.runs else None,
        ttft_s=r.ttft_s,
        fits=r.fits,
        offloaded_fraction=min(max(r.offloaded_fraction, 0.0), 1.0),
        meets=_meets(r, target, ttft, allow_spill),
    )


def _screen(base: Scenario, machines: Sequence[Machine]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Decode tok/s of the base model and quant on every machine, and whether fast memory holds it:
    one broadcast solve."""
    g = machine_grid(base, [m.hardware for m in machines], [base.model], [base.quant])
    runs = g.runs[:, 0, 0]
    return np.where(runs, g.decode[:, 0, 0], 0.0), np.asarray(g.fits[:, 0, 0] & runs, dtype=np.bool_)


def _cheapest_meeting(
    base: Scenario,
    candidates: Sequence[Candidate],
    target: float,
    ttft: float | None,
    limit: int,
    allow_spill: bool = True,
) -> tuple[list[Option], list[Option]]:
    """Options that meet the target, cheapest first (exact numbers from evaluate), and the fastest
    of the rest, those that hold the model before those that spill. Without `allow_spill` an option
    that spills to system RAM never meets the target. The broadcast screen skips machines too slow
    to matter."""
    if not candidates:
        return [], []
    speed, holds = _screen(base, [c.machine for c in candidates])
    cost = np.array([c.cost_usd if c.cost_usd is not None else math.inf for c in candidates])
    ok = speed >= target * (1 - 1e-9)
    if not allow_spill:
        ok &= holds
    fast_enough = np.flatnonzero(ok)
    meeting: list[Option] = []
    for i in fast_enough[np.lexsort((-speed[fast_enough], cost[fast_enough]))]:
        opt = _option(candidates[int(i)], base, target, ttft, allow_spill)
        if opt.meets:
            meeting.append(opt)
            if len(meeting) >= limit:
                break
    closest: list[Option] = []
    if not meeting:
        spill_last = np.zeros(len(candidates)) if allow_spill else (~holds).astype(float)
        for i in np.lexsort((-speed, spill_last))[:limit]:
            if speed[i] <= 0:
                break
            closest.append(_option(candidates[int(i)], base, target, ttft, allow_spill))
    return meeting, closest


def _derived(current: Machine, hw: Hardware, label: str, cost: float | None) -> Machine:
    price = (current.price_usd or 0) + cost if cost is not None and current.price_usd is not None else None
    return Machine(
        label=label[:200],
        hardware=hw,
        price_usd=price,
        price_estimate=True,
        power_w=None,
        catalog_id=None,
        origin="edited",
    )


def _part(m: Machine, **counts: Any) -> Change:
    return Change(
        part=m.label, part_memory_gb=m.hardware.memory_gb, part_bandwidth_gbps=m.hardware.bandwidth_gbps, **counts
    )


def _gpu_upgrades(current: Machine, platforms: list[Machine], cards: list[Machine]) -> list[Candidate]:
    """A platform with more memory channels under the same cards, more of the same card, a bigger card."""
    hw = current.hardware
    n0 = hw.devices
    out: list[Candidate] = []
    for p in platforms:
        if p.hardware.bandwidth_gbps <= hw.host_bandwidth_gbps:
            continue
        new = hw.model_copy(
            update={
                "host_bandwidth_gbps": p.hardware.bandwidth_gbps,
                "host_memory_gb": max(hw.host_memory_gb, p.hardware.memory_gb or 0.0),
            }
        )
        change = _part(p, cards_before=n0, cards_after=n0, host_bandwidth_before_gbps=hw.host_bandwidth_gbps)
        out.append(
            Candidate(
                "more_ram_channels",
                _derived(current, new, f"{current.label} on {p.label}", p.price_usd),
                change,
                p.price_usd,
            )
        )
    unit = current.unit_price_usd
    for n in range(n0 + 1, MAX_DEVICES_UPGRADE + 1):
        cost = unit * (n - n0) if unit else None
        new = Hardware.model_validate({**hw.model_dump(), "devices": n, "name": set_label(single_name(hw.name), n)})
        out.append(
            Candidate(
                "more_cards",
                _derived(current, new, set_label(single_name(current.label), n), cost),
                Change(cards_before=n0, cards_after=n),
                cost,
            )
        )
    for c in cards:
        ch = c.hardware
        if (ch.memory_gb or 0.0) <= (hw.memory_gb or 0.0) and ch.bandwidth_gbps <= hw.bandwidth_gbps:
            continue
        new = ch.model_copy(
            update={
                "host_memory_gb": hw.host_memory_gb,
                "host_bandwidth_gbps": hw.host_bandwidth_gbps,
                "host_link_gbps": hw.host_link_gbps,
                "devices": n0,
                "split": hw.split,
                "name": set_label(ch.name, n0),
            }
        )
        price = c.price_usd * n0 if c.price_usd else None
        out.append(
            Candidate(
                "bigger_card",
                _derived(current, new, set_label(c.label, n0), price),
                _part(c, cards_before=n0, cards_after=n0),
                price,
            )
        )
    return out


def _cpu_upgrades(current: Machine, platforms: list[Machine], cards: list[Machine]) -> list[Candidate]:
    """A platform with more memory channels, or a GPU added to the box."""
    hw = current.hardware
    out = [
        Candidate("more_ram_channels", p.model_copy(update={"origin": "catalog"}), _part(p), p.price_usd)
        for p in platforms
        if p.hardware.bandwidth_gbps > hw.bandwidth_gbps
    ]
    for c in cards:
        new = c.hardware.model_copy(
            update={
                "host_memory_gb": hw.memory_gb or 0.0,
                "host_bandwidth_gbps": hw.bandwidth_gbps,
                "name": f"{c.label} in {current.label}",
            }
        )
        out.append(
            Candidate(
                "add_gpu",
                _derived(current, new, f"{current.label} + {c.label}", c.price_usd),
                _part(c, cards_after=1),
                c.price_usd,
            )
        )
    return out


def upgrade_candidates(current: Machine, singles: Sequence[Machine]) -> list[Candidate]:
    """Ways to grow the user's machine, each priced from the catalog: a platform with more memory
    channels under the same card(s), more of the same card, a bigger card, a GPU for a CPU-only box,
    a bigger unified-memory machine."""
    hw = current.hardware
    platforms = sorted(
        (m for m in singles if m.hardware.kind is HardwareClass.CPU), key=lambda m: m.hardware.bandwidth_gbps
    )
    cards = [m for m in singles if m.hardware.kind is HardwareClass.DISCRETE_GPU and "laptop" not in m.label.lower()]
    if hw.kind is HardwareClass.DISCRETE_GPU:
        return _gpu_upgrades(current, platforms, cards)
    if hw.kind is HardwareClass.CPU:
        return _cpu_upgrades(current, platforms, cards)
    return [
        Candidate("bigger_machine", u, _part(u), u.price_usd)
        for u in singles
        if u.hardware.kind is HardwareClass.UNIFIED
        and u.label != current.label
        and ((u.hardware.memory_gb or 0.0) > (hw.memory_gb or 0.0) or u.hardware.bandwidth_gbps > hw.bandwidth_gbps)
    ]


def what_would_it_take(
    base: Scenario,
    target_tok_s: float,
    catalog: Sequence[Machine],
    target_ttft_s: float | None = None,
    current: Machine | None = None,
    limit: int = 8,
    max_price_usd: float | None = None,
    allow_spill: bool = False,
) -> Plan:
    """For the base scenario's model, quant and workload: the cheapest catalog machines and multi-GPU
    sets (at or under `max_price_usd`, when given) reaching `target_tok_s` per stream (and
    `target_ttft_s`, if given), and for `current` the cheapest upgrade of each kind that does,
    cheapest first. A machine that spills part of the model to system RAM reaches it only when
    `allow_spill` says so, and never comes before one that holds it otherwise."""
    priced = [m for m in catalog if m.price_usd is not None]
    within = [m for m in priced if max_price_usd is None or (m.price_usd or 0.0) <= max_price_usd]
    buys = [Candidate("buy", m, Change(), m.price_usd) for m in within]
    cheapest, closest = _cheapest_meeting(base, buys, target_tok_s, target_ttft_s, limit, allow_spill)
    plan: dict[str, Any] = dict(
        model_name=base.model.name,
        quant_name=base.quant.name,
        context=base.workload.context,
        target_tok_s=target_tok_s,
        target_ttft_s=target_ttft_s,
        max_price_usd=max_price_usd,
        allow_spill=allow_spill,
        cheapest=tuple(cheapest),
        closest=tuple(closest),
        unpriced=len(catalog) - len(priced),
        over_budget=len(priced) - len(within),
    )
    if current is not None:
        plan["current"] = _option(
            Candidate("current", current, Change(), 0.0), base, target_tok_s, target_ttft_s, allow_spill
        )
        cands = upgrade_candidates(current, [m for m in catalog if m.devices == 1])
        best: dict[str, Option] = {}
        short: dict[str, Option] = {}
        for kind in dict.fromkeys(c.kind for c in cands):
            group = [c for c in cands if c.kind == kind]
            meeting, fastest = _cheapest_meeting(base, group, target_tok_s, target_ttft_s, 1, allow_spill)
            if meeting:
                best[kind] = meeting[0]
            elif fastest:
                short[kind] = fastest[0]
        plan["upgrades"] = tuple(sorted(best.values(), key=lambda o: (o.cost_usd is None, o.cost_usd or 0)))
        plan["short"] = tuple(short.values())
    return Plan(**plan)
