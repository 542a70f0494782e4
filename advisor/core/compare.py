"""What should I buy: machines side by side, the catalog ranked under a budget, and what it would
take to reach a target speed.

Pure: no Qt, no files. Catalog entries come in as `Hardware` objects (catalog entries subclass it)
and their price and power are read by attribute, so this module never imports the catalog.

Every number here comes from `evaluate`, `recommend` and `solve_grid`, or from `machine_grid`,
which is `solve_grid` with a third axis for the machine (one broadcast solve for the whole catalog);
tests hold the two to the same values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import NDArray
from pydantic import Field, model_validator

from advisor.core.base import Frozen
from advisor.core.evaluate import evaluate
from advisor.core.fmt import num
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.model import ModelArch
from advisor.core.published import Published, Setup, machine_record, runs_text
from advisor.core.quant import Quant
from advisor.core.recommend import Grid, Recommendation, recommend, solve_grid
from advisor.core.result import Result
from advisor.core.scenario import Scenario, Workload
from advisor.core.units import GB

MAX_MACHINES = 6
PRICE_NOTE = "GPU prices are the cards alone; Macs, mini PCs and CPU boxes are whole machines."
SET_SIZES = (2, 4)  # multi-GPU sets the catalog ranking adds for every discrete GPU
MAX_DEVICES_UPGRADE = 4  # "a second card" stops at four cards in one box
ModelList = Sequence[tuple[str, ModelArch]]
QuantList = Sequence[tuple[str, Quant]]

Origin = Literal["catalog", "set", "current", "edited"]


# --- machines ---------------------------------------------------------------------------

class Machine(Frozen):
    """One configuration to compare: the hardware the core evaluates, plus what it costs and draws.

    Price and power are for the whole configuration (a 2× set costs two cards). GPU prices are the
    card alone; Macs, mini PCs and CPU entries are whole machines."""

    label: str = Field(min_length=1, max_length=200)
    hardware: Hardware
    price_usd: float | None = Field(None, gt=0, le=100_000_000)
    price_estimate: bool = True
    power_w: float | None = Field(None, gt=0, le=10_000_000)
    catalog_id: str | None = Field(None, max_length=80)
    origin: Origin = "catalog"

    @property
    def devices(self) -> int:
        return self.hardware.devices

    @property
    def unit_price_usd(self) -> float | None:
        return self.price_usd / self.devices if self.price_usd is not None else None


def set_label(name: str, count: int) -> str:
    return name if count == 1 else f"{count}× {name}"


def plain_hardware(entry: Hardware) -> Hardware:
    """A catalog entry (or any Hardware subclass) as the core's plain Hardware."""
    if type(entry) is Hardware:
        return entry
    return Hardware.model_validate(entry.model_dump(include=set(Hardware.model_fields)))


def machine_from_entry(entry: Hardware, count: int = 1, split: Literal["tensor", "layer"] = "tensor",
                       label: str | None = None, origin: Origin | None = None) -> Machine:
    """A catalog entry as a machine; count > 1 makes a multi-GPU set (tensor split by default),
    priced and powered per card."""
    if count < 1:
        raise ValueError("count must be at least 1")
    if count > 1 and entry.kind is not HardwareClass.DISCRETE_GPU:
        raise ValueError(f"{entry.name}: multi-device sets are for discrete GPUs")
    price = getattr(entry, "price_usd", None)
    power = getattr(entry, "power_w", None)
    name = set_label(entry.name, count)
    hw = plain_hardware(entry)
    if count > 1:
        hw = Hardware.model_validate({**hw.model_dump(), "devices": count, "split": split, "name": name})
    return Machine(label=label or name, hardware=hw,
                   price_usd=price * count if price else None,
                   price_estimate=bool(getattr(entry, "price_estimate", True)),
                   power_w=power * count if power else None,
                   catalog_id=getattr(entry, "id", None),
                   origin=origin or ("set" if count > 1 else "catalog"))


def with_devices(machine: Machine, count: int, split: Literal["tensor", "layer"] = "tensor") -> Machine:
    """The same card, `count` of them: price and power scale per card."""
    if count == machine.devices:
        return machine
    if machine.hardware.kind is not HardwareClass.DISCRETE_GPU and count > 1:
        raise ValueError(f"{machine.label}: multi-device sets are for discrete GPUs")
    base = re.sub(r"^\d+× ", "", machine.label)
    per = machine.devices
    hw = Hardware.model_validate({**machine.hardware.model_dump(), "devices": count,
                                  "split": split if count > 1 else machine.hardware.split,
                                  "name": set_label(re.sub(r"^\d+× ", "", machine.hardware.name), count)})
    return machine.model_copy(update={
        "label": set_label(base, count), "hardware": hw,
        "price_usd": machine.price_usd / per * count if machine.price_usd else None,
        "power_w": machine.power_w / per * count if machine.power_w else None,
        "origin": "set" if count > 1 and machine.origin == "catalog" else
                  ("catalog" if count == 1 and machine.origin == "set" else machine.origin),
    })


def catalog_machines(entries: Iterable[Hardware], set_sizes: Sequence[int] = SET_SIZES,
                     pc_price_usd: float = 0.0) -> list[Machine]:
    """Every catalog entry, plus 2× and 4× tensor-split sets of each desktop or datacenter GPU.
    `pc_price_usd` adds the PC around discrete GPUs (their catalog price is the card alone)."""
    out: list[Machine] = []
    for e in entries:
        counts = [1]
        if e.kind is HardwareClass.DISCRETE_GPU and "laptop" not in e.name.lower():
            counts += list(set_sizes)
        for n in counts:
            m = machine_from_entry(e, n)
            if pc_price_usd and e.kind is HardwareClass.DISCRETE_GPU and m.price_usd is not None:
                m = m.model_copy(update={"price_usd": m.price_usd + pc_price_usd})
            out.append(m)
    return out


def scenario_on(base: Scenario, hardware: Hardware) -> Scenario:
    """The base scenario (model, quant, workload) on another machine."""
    return base.model_copy(update={"hardware": hardware})


# --- one broadcast solve over machines × models × quants ------------------------------------

def machine_grid(base: Scenario, hardware: Sequence[Hardware], models: Sequence[ModelArch],
                 quants: Sequence[Quant]) -> Grid:
    """`solve_grid` for many machines at once: every machine's inputs become a column along a new
    first axis and the whole catalog is one broadcast solve. If the roofline's inputs ever stop being
    per-machine scalars, this falls back to one `solve_grid` per machine."""
    shape = (len(hardware), len(models), len(quants))
    if 0 in shape:
        z = np.zeros(shape)
        return Grid(z, z.astype(bool), z.astype(bool), z)
    try:
        stack = _Stack(base, hardware, models, quants)
    except STACK_ERRORS:
        return _loop_grid(base, hardware, models, quants)
    h, m, q = (np.arange(n) for n in shape)
    return stack.solve(h[:, None, None], m[None, :, None], q[None, None, :])


STACK_ERRORS = (TypeError, ValueError, AttributeError, KeyError)


class _Stack:
    """The roofline's inputs for many machines, models and quants, ready to gather any set of
    (machine, model, quant) points into one solve. It makes the same calls solve_grid makes
    (build_inputs, then model terms times bytes per weight), with machines as one more axis."""

    def __init__(self, base: Scenario, hardware: Sequence[Hardware], models: Sequence[ModelArch],
                 quants: Sequence[Quant]) -> None:
        from advisor.core.inputs import build_inputs, model_terms
        from advisor.core.roofline import Inputs

        per_machine = [build_inputs(scenario_on(base, h)) for h in hardware]
        self.cols: dict[str, NDArray[np.float64]] = {}
        for f in fields(Inputs):
            column = np.asarray([getattr(b, f.name) for b in per_machine], dtype=float)
            if column.ndim != 1:
                raise ValueError(f"{f.name} is not a per-machine scalar")
            self.cols[f.name] = column
        terms = [model_terms(m, base.workload.kv_cache) for m in models]
        self.terms = {k: np.array([t[k] for t in terms], dtype=float) for k in terms[0]}
        self.bpw = np.array([q.bytes_per_weight for q in quants], dtype=float)
        self.dense_bpw = np.array([q.dense_bytes_per_weight for q in quants], dtype=float)
        self.overhead_gb = base.workload.overhead_gb

    def solve(self, h: NDArray[np.intp], m: NDArray[np.intp], q: NDArray[np.intp]) -> Grid:
        from advisor.core.inputs import weight_bytes
        from advisor.core.roofline import Inputs, solve

        kw: dict[str, Any] = {k: v[h] for k, v in self.cols.items()}
        kw.update(weight_bytes({k: v[m] for k, v in self.terms.items()}, self.bpw[q], self.dense_bpw[q]))
        out = solve(Inputs(**kw))
        shape = np.broadcast_shapes(np.shape(h), np.shape(m), np.shape(q))
        return Grid(
            decode=np.broadcast_to(out.decode, shape), fits=np.broadcast_to(out.fits, shape),
            runs=np.broadcast_to(out.runs, shape),
            total_gb=np.broadcast_to((out.footprint + self.overhead_gb * GB) / GB, shape),
        )


def _loop_grid(base: Scenario, hardware: Sequence[Hardware], models: Sequence[ModelArch],
               quants: Sequence[Quant]) -> Grid:
    grids = [solve_grid(scenario_on(base, h), list(models), list(quants)) for h in hardware]
    return Grid(
        decode=np.stack([g.decode for g in grids]), fits=np.stack([g.fits for g in grids]),
        runs=np.stack([g.runs for g in grids]), total_gb=np.stack([g.total_gb for g in grids]),
    )


# --- the comparison table ------------------------------------------------------------------

class Largest(Frozen):
    """The largest catalog model that fits fast memory and stays interactive (the recommender's pick)."""

    model_key: str
    model_name: str
    quant_key: str
    quant_name: str
    total_params_b: float
    decode_tok_s: float
    total_gb: float


class CompareRow(Frozen):
    label: str
    catalog_id: str | None
    origin: Origin
    kind: HardwareClass
    devices: int
    price_usd: float | None
    price_estimate: bool
    power_w: float | None
    memory_gb: float = Field(description="Fast memory across all devices")
    host_gb: float
    bandwidth_gbps: float = Field(description="Datasheet bandwidth weights stream from (summed under tensor split)")
    runs: bool
    fits: bool
    interactive: bool
    decode_tok_s: float | None
    ttft_s: float | None
    total_gb: float
    offloaded_fraction: float
    largest: Largest | None
    tok_s_per_k_usd: float | None
    tok_s_per_w: float | None
    verdict: str
    short_verdict: str = Field(description="The verdict with the model left implicit, for the table")
    published_runs: int = Field(0, description="Published decode runs on this catalog machine")
    published_median: float | None = Field(None, description="Measured ÷ model over those runs, median")
    published_low: float | None = None
    published_high: float | None = None


class Comparison(Frozen):
    model_name: str
    quant_name: str
    context: int
    prompt_tokens: int
    streams: int
    threshold_tok_s: float
    rows: tuple[CompareRow, ...]
    verdict: str


def largest_interactive(rec: Recommendation) -> Largest | None:
    p = rec.pick
    if p is None:
        return None
    return Largest(model_key=p.model_key, model_name=p.model_name, quant_key=p.quant_key, quant_name=p.quant_name,
                   total_params_b=p.total_params_b, decode_tok_s=p.decode_tok_s, total_gb=p.total_gb)


def pool(quants: QuantList, workload: Workload) -> list[tuple[str, Quant]]:
    """Quants the recommender considers: at or above the quality floor."""
    return [(k, q) for k, q in quants if q.bits_per_weight >= workload.min_bits]


def row_verdict(r: Result, what: str, threshold: float, short: bool = False) -> str:
    """One machine's plain verdict on the chosen model; `short` leaves the model implicit (the table's)."""
    d = num(r.decode_tok_s or 0)
    if not r.runs:
        return (f"cannot {'run it' if short else 'run ' + what}: needs {gb(r.total_gb)} GB, has "
                f"{gb(r.fast_capacity_gb)} GB" + (f" + {gb(r.host_capacity_gb)} GB RAM" if r.host_capacity_gb else ""))
    if not r.fits:
        spilled = f"{r.offloaded_fraction:.0%} spills to system RAM, {d} tok/s"
        if short:
            return f"does not fit {gb(r.fast_capacity_gb)} GB: {spilled}"
        return f"cannot hold {what} in {gb(r.fast_capacity_gb)} GB: {spilled}"
    if not r.interactive:
        return (f"fits, but {d} tok/s is under your {rate(threshold)}" if short
                else f"holds {what} but runs only {d} tok/s, under your {rate(threshold)} tok/s")
    return f"fits: {d} tok/s" if short else f"runs {what} at {d} tok/s"


def compare_row(machine: Machine, base: Scenario, models: ModelList, quants: QuantList,
                published: Sequence[Published] = ()) -> CompareRow:
    """One machine's row: the chosen model at the chosen context and prompt, the largest catalog
    model that stays interactive (via the recommender), and how the model did on the runs published
    on that catalog machine."""
    s = scenario_on(base, machine.hardware)
    record = machine_record(published, Setup(s, machine.catalog_id, None, None))
    r = evaluate(s)
    rec = recommend(s, list(models), list(quants), runner_ups=0)
    what = f"{base.model.name} {base.quant.name}"
    d = r.decode_tok_s if r.runs else None
    hw = machine.hardware
    return CompareRow(
        label=machine.label, catalog_id=machine.catalog_id, origin=machine.origin, kind=hw.kind, devices=hw.devices,
        price_usd=machine.price_usd, price_estimate=machine.price_estimate, power_w=machine.power_w,
        memory_gb=hw.fast_capacity_gb, host_gb=hw.host_capacity_gb, bandwidth_gbps=hw.fast_bandwidth_gbps,
        runs=r.runs, fits=r.fits, interactive=r.interactive, decode_tok_s=d, ttft_s=r.ttft_s,
        total_gb=r.total_gb, offloaded_fraction=r.offloaded_fraction, largest=largest_interactive(rec),
        tok_s_per_k_usd=d / (machine.price_usd / 1000) if d and machine.price_usd else None,
        tok_s_per_w=d / machine.power_w if d and machine.power_w else None,
        verdict=row_verdict(r, what, base.workload.interactive_tok_s),
        short_verdict=row_verdict(r, what, base.workload.interactive_tok_s, short=True),
        published_runs=record.runs if record else 0, published_median=record.median if record else None,
        published_low=record.low if record else None, published_high=record.high if record else None,
    )


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def gb(x: float) -> str:
    """Memory sizes as people say them: 24 GB, 96 GB, 7.5 GB."""
    return f"{x:,.0f}" if x >= 10 else num(x, 2)


def rate(x: float) -> str:
    """A threshold or target as typed: 10, 12.5."""
    return f"{x:g}"


_VENDOR = re.compile(r"^(\d+× )?(NVIDIA GeForce |NVIDIA |AMD Radeon |AMD |Intel |Apple )")


def short_name(label: str) -> str:
    """'2× NVIDIA GeForce RTX 3090' -> '2× RTX 3090': the verdict line reads better without vendors."""
    return _VENDOR.sub(lambda m: m.group(1) or "", label)


def _cannot_hold(rows: Sequence[CompareRow]) -> str:
    """'the 24 GB cards cannot hold it', grouping machines by memory size."""
    groups: dict[int, list[CompareRow]] = {}
    for r in rows:
        groups.setdefault(round(r.memory_gb), []).append(r)
    parts = []
    for _, group in sorted(groups.items()):
        size = gb(group[0].memory_gb)
        if len(group) > 1:
            cards = all(r.kind is HardwareClass.DISCRETE_GPU and r.devices == 1 for r in group)
            names = _and([short_name(r.label) for r in group])
            parts.append(f"the {size} GB {'cards' if cards else 'machines'} ({names})")
        else:
            parts.append(f"{short_name(group[0].label)} ({size} GB)")
    return f"{_and(parts)} cannot hold it"


def summary_verdict(rows: Sequence[CompareRow], what: str, threshold: float) -> str:
    """One plain line across the machines: who runs it best, who cannot hold it, the best value."""
    if not rows:
        return "Add machines to compare."
    holding = [r for r in rows if r.fits]
    running = [r for r in rows if r.runs]
    parts: list[str] = []
    if holding:
        best = max(holding, key=lambda r: r.decode_tok_s or 0)
        under = "" if best.interactive else f", under your {rate(threshold)} tok/s"
        parts.append(f"{short_name(best.label)} runs {what} at {num(best.decode_tok_s or 0)} tok/s{under}")
    elif running:
        best = max(running, key=lambda r: r.decode_tok_s or 0)
        parts.append(f"none holds {what} in fast memory; {short_name(best.label)} does best by spilling to system RAM, "
                     f"{num(best.decode_tok_s or 0)} tok/s")
    else:
        return f"None of these machines can run {what}: it needs {gb(rows[0].total_gb)} GB."
    missing = [r for r in rows if not r.fits]
    if missing and holding:
        parts.append(_cannot_hold(missing))
    slow = [r for r in holding if not r.interactive and r is not best]
    if slow and best.interactive:
        verb = "holds" if len(slow) == 1 else "hold"
        names = _and([short_name(r.label) for r in slow])
        parts.append(f"{names} {verb} it but run{'s' if len(slow) == 1 else ''} under "
                     f"{rate(threshold)} tok/s")
    good = [r for r in rows if r.fits and r.interactive and r.price_usd]
    if len(good) > 1:
        value = max(good, key=lambda r: r.tok_s_per_k_usd or 0)
        cheapest = min(good, key=lambda r: r.price_usd or math.inf)
        if cheapest.label != value.label:
            parts.append(f"cheapest that stays interactive: {short_name(cheapest.label)} (${cheapest.price_usd:,.0f})")
        parts.append(f"most tok/s per dollar: {short_name(value.label)}")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def compare(machines: Sequence[Machine], base: Scenario, models: ModelList, quants: QuantList,
            rows: Sequence[CompareRow] | None = None, published: Sequence[Published] = ()) -> Comparison:
    """The table for the base scenario's model, quant and workload on each machine. Pass `rows` to
    reuse rows already computed (the window caches them per machine)."""
    w = base.workload
    qs = pool(quants, w)
    rows = tuple(rows) if rows is not None else tuple(compare_row(m, base, models, qs, published)
                                                      for m in machines)
    what = f"{base.model.name} {base.quant.name}"
    return Comparison(model_name=base.model.name, quant_name=base.quant.name, context=w.context,
                      prompt_tokens=w.prompt_tokens, streams=w.streams, threshold_tok_s=w.interactive_tok_s,
                      rows=rows, verdict=summary_verdict(rows, what, w.interactive_tok_s))


TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("machine", "Machine"), ("price_usd", "Price (USD)"), ("memory_gb", "Memory (GB)"),
    ("bandwidth_gbps", "Bandwidth (GB/s)"), ("decode_tok_s", "Decode (tok/s)"), ("ttft_s", "TTFT (s)"),
    ("largest", "Largest interactive model"), ("tok_s_per_k_usd", "tok/s per $1,000"),
    ("tok_s_per_w", "tok/s per W"), ("published", "Measured ÷ model"), ("verdict", "Verdict"),
)


def table_cells(row: CompareRow) -> dict[str, str]:
    """A row as a person reads it (the window, the CSV and the command line share these)."""
    def opt(x: float | None, sig: int = 3) -> str:
        return "—" if x is None else num(x, sig)

    price = "—" if row.price_usd is None else f"{'~' if row.price_estimate else ''}${row.price_usd:,.0f}"
    big = row.largest
    largest = "none" if big is None else f"{big.model_name} {big.quant_name}, {num(big.decode_tok_s)} tok/s"
    if row.kind is HardwareClass.UNIFIED and row.host_gb:
        memory = f"{gb(row.memory_gb)} of {gb(row.memory_gb + row.host_gb)} usable"
    else:
        memory = gb(row.memory_gb) + (f" + {gb(row.host_gb)} RAM" if row.host_gb else "")
    return {
        "machine": row.label, "price_usd": price, "memory_gb": memory, "bandwidth_gbps": f"{row.bandwidth_gbps:,.0f}",
        "decode_tok_s": opt(row.decode_tok_s), "ttft_s": opt(row.ttft_s), "largest": largest,
        "tok_s_per_k_usd": opt(row.tok_s_per_k_usd), "tok_s_per_w": opt(row.tok_s_per_w),
        "published": published_cell(row), "verdict": row.short_verdict,
    }


def published_cell(row: CompareRow) -> str:
    """"0.82 (12 runs)": the median of measured ÷ model over the runs published on this machine."""
    if not row.published_runs or row.published_median is None:
        return "—"
    return f"{row.published_median:.2f} ({runs_text(row.published_runs)})"


def published_tip(row: CompareRow) -> str:
    """The cell's longer reading, with the range (the window's tooltip)."""
    if not row.published_runs or row.published_median is None:
        return "No published decode runs on this catalog machine in the validation set"
    spread = (f", from {row.published_low:.2f} to {row.published_high:.2f}" if row.published_runs > 1 else "")
    return (f"{runs_text(row.published_runs, 'published decode run')} on this machine "
            f"measured {row.published_median:.2f} × the model's figure for them (median{spread})")


def csv_rows(c: Comparison) -> list[dict[str, Any]]:
    """Machine-readable rows: raw numbers, not the display strings."""
    out = []
    for r in c.rows:
        big = r.largest
        out.append({
            "machine": r.label, "catalog_id": r.catalog_id or "", "devices": r.devices,
            "price_usd": r.price_usd, "price_estimate": r.price_estimate, "power_w": r.power_w,
            "memory_gb": r.memory_gb, "host_gb": r.host_gb, "bandwidth_gbps": r.bandwidth_gbps,
            "model": c.model_name, "quant": c.quant_name, "context": c.context, "prompt_tokens": c.prompt_tokens,
            "streams": c.streams, "runs": r.runs, "fits": r.fits, "interactive": r.interactive,
            "decode_tok_s": r.decode_tok_s, "ttft_s": r.ttft_s, "total_gb": r.total_gb,
            "largest_model": big.model_name if big else "", "largest_quant": big.quant_name if big else "",
            "largest_tok_s": big.decode_tok_s if big else None,
            "tok_s_per_k_usd": r.tok_s_per_k_usd, "tok_s_per_w": r.tok_s_per_w,
            "published_runs": r.published_runs, "published_measured_over_model": r.published_median,
            "published_low": r.published_low, "published_high": r.published_high,
            "verdict": r.verdict,
        })
    return out


# --- best under a budget --------------------------------------------------------------------

class Ranked(Frozen):
    rank: int
    machine: Machine
    largest: Largest | None
    tok_s_per_k_usd: float | None
    reason: str


class BudgetRanking(Frozen):
    max_price_usd: float
    threshold_tok_s: float
    ranked: tuple[Ranked, ...]
    over_budget: int
    no_price: tuple[str, ...]


@dataclass(frozen=True)
class _Picks:
    """Per machine: the recommender's pick, and the next larger model (or, without a pick, the
    smallest) at the lowest-bit quant, which says why the machine stops there."""

    has: NDArray[np.bool_]
    model: NDArray[np.intp]  # index into models
    quant: NDArray[np.intp]  # index into quants
    decode: NDArray[np.float64]
    total_gb: NDArray[np.float64]
    nxt: NDArray[np.intp]  # -1 when the pick is the largest model there is
    nxt_fits: NDArray[np.bool_]
    nxt_decode: NDArray[np.float64]
    nxt_total_gb: NDArray[np.float64]


def _any(a: NDArray[np.bool_], axis: int) -> NDArray[np.bool_]:
    """`a.any(axis)`, typed as the array it is (numpy's stubs also allow a scalar)."""
    return cast(NDArray[np.bool_], a.any(axis=axis))


def _next_models(has: NDArray[np.bool_], model: NDArray[np.intp], params: NDArray[np.float64]) -> NDArray[np.intp]:
    above = params[None, :] > np.where(has, params[model], -np.inf)[:, None]
    masked = np.where(above, params[None, :], np.inf)
    return np.where(above.any(axis=1), masked.argmin(axis=1), -1)


def _dense_picks(grid: Grid, params: NDArray[np.float64], bits: NDArray[np.float64],
                 threshold: float) -> _Picks:
    """The pick from a full machines × models × quants grid."""
    ok = np.asarray(grid.fits & (grid.decode >= threshold), dtype=np.bool_)
    m_order = np.argsort(-params, kind="stable")
    q_order = np.argsort(-bits, kind="stable")
    ok_sorted = ok[:, m_order][:, :, q_order]
    any_m = _any(ok_sorted, axis=2)
    has = _any(any_m, axis=1)
    mi = any_m.argmax(axis=1)
    h = np.arange(ok.shape[0])
    qi = ok_sorted[h, mi].argmax(axis=1)
    model, quant = m_order[mi], q_order[qi]
    nxt = _next_models(has, model, params)
    lowest = int(np.argmin(bits))
    safe = np.maximum(nxt, 0)
    return _Picks(has=has, model=model, quant=quant, decode=grid.decode[h, model, quant],
                  total_gb=grid.total_gb[h, model, quant], nxt=nxt, nxt_fits=grid.fits[h, safe, lowest],
                  nxt_decode=grid.decode[h, safe, lowest], nxt_total_gb=grid.total_gb[h, safe, lowest])


def _staged_picks(stack: _Stack, caps: NDArray[np.float64], params: NDArray[np.float64], bits: NDArray[np.float64],
                  threshold: float, batch: int = 6) -> _Picks:
    """The same pick without solving every cell: each machine tries its models largest first, a few
    per round, all machines in one solve per round, and stops at the first that passes. Models whose
    weights alone exceed the machine's fast memory at the smallest quant are skipped: they cannot fit."""
    n_h, n_q = len(caps), len(bits)
    m_order = np.argsort(-params, kind="stable")
    q_order = np.argsort(-bits, kind="stable")
    min_weights_gb = params[m_order] * float(bits.min()) / 8
    candidates = [m_order[min_weights_gb <= caps[h]] for h in range(n_h)]
    pos = np.zeros(n_h, dtype=int)
    has = np.zeros(n_h, dtype=bool)
    model = np.zeros(n_h, dtype=np.intp)
    quant = np.zeros(n_h, dtype=np.intp)
    decode = np.zeros(n_h)
    total = np.zeros(n_h)
    todo = [h for h in range(n_h) if candidates[h].size]
    qs = np.arange(n_q)[None, :]
    while todo:
        hh = np.concatenate([np.full(len(candidates[h][pos[h]:pos[h] + batch]), h) for h in todo])
        mm = np.concatenate([candidates[h][pos[h]:pos[h] + batch] for h in todo])
        g = stack.solve(hh[:, None], mm[:, None], qs)
        ok = np.asarray(g.fits & (g.decode >= threshold), dtype=np.bool_)[:, q_order]
        row_ok = _any(ok, axis=1)
        still = []
        start = 0
        for h in todo:
            n = len(candidates[h][pos[h]:pos[h] + batch])
            rows = np.flatnonzero(row_ok[start:start + n])
            if rows.size:
                r = start + int(rows[0])
                qi = int(q_order[int(ok[r].argmax())])
                has[h], model[h], quant[h] = True, mm[r], qi
                decode[h], total[h] = g.decode[r, qi], g.total_gb[r, qi]
            else:
                pos[h] += batch
                if pos[h] < candidates[h].size:
                    still.append(h)
            start += n
        todo = still
    nxt = _next_models(has, model, params)
    probe = stack.solve(np.arange(n_h), np.maximum(nxt, 0), np.full(n_h, int(np.argmin(bits))))
    return _Picks(has=has, model=model, quant=quant, decode=decode, total_gb=total, nxt=nxt,
                  nxt_fits=probe.fits.copy(), nxt_decode=probe.decode.copy(), nxt_total_gb=probe.total_gb.copy())


def best_picks(base: Scenario, hardware: Sequence[Hardware], models: ModelList, quants: QuantList) -> _Picks:
    """The recommender's pick on every machine (quants already filtered to the pool)."""
    params = np.array([m.total_params_b for _, m in models], dtype=float)
    bits = np.array([q.bits_per_weight for _, q in quants], dtype=float)
    threshold = base.workload.interactive_tok_s
    try:
        stack = _Stack(base, hardware, [m for _, m in models], [q for _, q in quants])
    except STACK_ERRORS:
        grid = _loop_grid(base, hardware, [m for _, m in models], [q for _, q in quants])
        return _dense_picks(grid, params, bits, threshold)
    caps = np.array([h.fast_capacity_gb for h in hardware], dtype=float)
    return _staged_picks(stack, caps, params, bits, threshold)


def _budget_reason(i: int, p: _Picks, machine: Machine, models: ModelList, quants: QuantList,
                   bits: NDArray[np.float64], threshold: float) -> str:
    """Why the machine stops where it does: the memory its pick uses, and what the next larger model lacks."""
    cap = machine.hardware.fast_capacity_gb
    if p.has[i]:
        text = f"uses {num(float(p.total_gb[i]))} of {gb(cap)} GB"
    else:
        text = "nothing in the catalog fits and stays interactive"
    if p.nxt[i] < 0:
        return text + "; nothing larger in the catalog"
    name = models[int(p.nxt[i])][1].name
    lowest = quants[int(np.argmin(bits))][1].name
    nxt = "next larger, " if p.has[i] else "even the smallest, "
    if not p.nxt_fits[i]:
        return f"{text}; {nxt}{name}, needs {num(float(p.nxt_total_gb[i]))} GB even at {lowest}"
    return (f"{text}; {nxt}{name}, fits at {lowest} but runs {num(float(p.nxt_decode[i]))} tok/s, "
            f"under {rate(threshold)}")


def rank_budget(machines: Sequence[Machine], base: Scenario, models: ModelList, quants: QuantList,
                max_price_usd: float, top: int | None = None) -> BudgetRanking:
    """Machines priced at or under the cap, ranked by the largest catalog model they run
    interactively (fits fast memory, per-stream tok/s at or over the threshold), then by its speed,
    then by price."""
    w = base.workload
    qs = pool(quants, w)
    no_price = tuple(m.label for m in machines if m.price_usd is None)
    priced = [m for m in machines if m.price_usd is not None]
    within = [m for m in priced if (m.price_usd or 0) <= max_price_usd]
    threshold = w.interactive_tok_s
    if not within or not models or not qs:
        return BudgetRanking(max_price_usd=max_price_usd, threshold_tok_s=threshold, ranked=(),
                             over_budget=len(priced) - len(within), no_price=no_price)
    p = best_picks(base, [m.hardware for m in within], models, qs)
    params = np.array([m.total_params_b for _, m in models])
    bits = np.array([q.bits_per_weight for _, q in qs])
    prices = np.array([m.price_usd for m in within], dtype=float)
    size = np.where(p.has, params[p.model], -1.0)
    speed = np.where(p.has, p.decode, 0.0)
    order = np.lexsort((prices, -speed, -size))
    if top is not None:
        order = order[:top]
    ranked = []
    for rank, i in enumerate(order, start=1):
        i = int(i)
        largest = None
        if p.has[i]:
            mk, mm = models[int(p.model[i])]
            qk, qq = qs[int(p.quant[i])]
            largest = Largest(model_key=mk, model_name=mm.name, quant_key=qk, quant_name=qq.name,
                              total_params_b=mm.total_params_b, decode_tok_s=float(p.decode[i]),
                              total_gb=float(p.total_gb[i]))
        ranked.append(Ranked(
            rank=rank, machine=within[i], largest=largest,
            tok_s_per_k_usd=float(p.decode[i]) / (prices[i] / 1000) if p.has[i] else None,
            reason=_budget_reason(i, p, within[i], models, qs, bits, threshold),
        ))
    return BudgetRanking(max_price_usd=max_price_usd, threshold_tok_s=threshold, ranked=tuple(ranked),
                         over_budget=len(priced) - len(within), no_price=no_price)


# --- what would it take ---------------------------------------------------------------------

OptionKind = Literal["current", "buy", "more_ram_channels", "more_cards", "bigger_card", "add_gpu",
                     "bigger_machine"]
KIND_TEXT: dict[str, str] = {
    "current": "your machine as it is", "buy": "buy", "more_ram_channels": "more RAM channels",
    "more_cards": "more of the same card", "bigger_card": "a bigger card", "add_gpu": "add a GPU",
    "bigger_machine": "a bigger machine",
}


class Option(Frozen):
    kind: OptionKind
    machine: Machine
    description: str
    cost_usd: float | None = Field(description="What it costs: the machine, or the upgrade's parts")
    decode_tok_s: float | None
    ttft_s: float | None
    fits: bool
    meets: bool


class Plan(Frozen):
    model_name: str
    quant_name: str
    context: int
    target_tok_s: float
    target_ttft_s: float | None
    cheapest: tuple[Option, ...] = ()  # catalog machines and sets that meet it, cheapest first
    closest: tuple[Option, ...] = ()  # when nothing meets it: the fastest there are
    current: Option | None = None
    upgrades: tuple[Option, ...] = ()  # per kind, the cheapest that meets it, cheapest first
    short: tuple[Option, ...] = ()  # upgrade kinds that cannot reach it: the best each can do
    unpriced: int = 0

    @property
    def smallest_upgrade(self) -> Option | None:
        return self.upgrades[0] if self.upgrades else None


def _meets(r: Result, target: float, ttft: float | None) -> bool:
    return bool(r.runs and (r.decode_tok_s or 0) >= target and (ttft is None or (r.ttft_s is not None
                                                                                and r.ttft_s <= ttft)))


def _option(kind: OptionKind, machine: Machine, description: str, cost: float | None, base: Scenario,
            target: float, ttft: float | None) -> Option:
    r = evaluate(scenario_on(base, machine.hardware))
    return Option(kind=kind, machine=machine, description=description, cost_usd=cost,
                  decode_tok_s=r.decode_tok_s if r.runs else None, ttft_s=r.ttft_s, fits=r.fits,
                  meets=_meets(r, target, ttft))


def _screen(base: Scenario, machines: Sequence[Machine]) -> NDArray[np.float64]:
    """Decode tok/s of the base model and quant on every machine, one broadcast solve."""
    g = machine_grid(base, [m.hardware for m in machines], [base.model], [base.quant])
    return np.where(g.runs[:, 0, 0], g.decode[:, 0, 0], 0.0)


def _cheapest_meeting(base: Scenario, candidates: Sequence[tuple[OptionKind, Machine, str, float | None]],
                      target: float, ttft: float | None, limit: int) -> tuple[list[Option], list[Option]]:
    """Options that meet the target, cheapest first (exact numbers from evaluate), and the fastest
    of the rest. The broadcast screen skips machines too slow to matter."""
    if not candidates:
        return [], []
    speed = _screen(base, [c[1] for c in candidates])
    cost = np.array([c[3] if c[3] is not None else math.inf for c in candidates])
    fast_enough = np.flatnonzero(speed >= target * (1 - 1e-9))
    meeting: list[Option] = []
    for i in fast_enough[np.lexsort((-speed[fast_enough], cost[fast_enough]))]:
        kind, m, desc, c = candidates[int(i)]
        opt = _option(kind, m, desc, c, base, target, ttft)
        if opt.meets:
            meeting.append(opt)
            if len(meeting) >= limit:
                break
    closest: list[Option] = []
    if not meeting:
        for i in np.argsort(-speed, kind="stable")[:limit]:
            if speed[i] <= 0:
                break
            kind, m, desc, c = candidates[int(i)]
            closest.append(_option(kind, m, desc, c, base, target, ttft))
    return meeting, closest


def upgrade_candidates(current: Machine, singles: Sequence[Machine]) -> list[tuple[OptionKind, Machine, str,
                                                                                   float | None]]:
    """Ways to grow the user's machine, each priced from the catalog: a platform with more memory
    channels under the same card(s), more of the same card, a bigger card, a GPU for a CPU-only box,
    a bigger unified-memory machine."""
    hw = current.hardware
    out: list[tuple[OptionKind, Machine, str, float | None]] = []
    platforms = sorted((m for m in singles if m.hardware.kind is HardwareClass.CPU),
                       key=lambda m: m.hardware.bandwidth_gbps)
    cards = [m for m in singles if m.hardware.kind is HardwareClass.DISCRETE_GPU and "laptop" not in m.label.lower()]
    if hw.kind is HardwareClass.DISCRETE_GPU:
        for p in platforms:
            if p.hardware.bandwidth_gbps <= hw.host_bandwidth_gbps:
                continue
            new = hw.model_copy(update={"host_bandwidth_gbps": p.hardware.bandwidth_gbps,
                                        "host_memory_gb": max(hw.host_memory_gb, p.hardware.memory_gb)})
            label = f"{current.label} on {p.label}"
            out.append(("more_ram_channels", _derived(current, new, label, p.price_usd),
                        f"move the card{'s' if hw.devices > 1 else ''} to {p.label}: system RAM "
                        f"{hw.host_bandwidth_gbps:,.0f} → {p.hardware.bandwidth_gbps:,.0f} GB/s", p.price_usd))
        unit = current.unit_price_usd
        for n in range(hw.devices + 1, MAX_DEVICES_UPGRADE + 1):
            added = n - hw.devices
            new = Hardware.model_validate({**hw.model_dump(), "devices": n, "split": "tensor",
                                           "name": set_label(re.sub(r"^\d+× ", "", hw.name), n)})
            base_label = re.sub(r"^\d+× ", "", current.label)
            out.append(("more_cards", _derived(current, new, set_label(base_label, n), unit * added if unit else None),
                        f"add {added} more card{'s' if added > 1 else ''}: {n} in tensor split",
                        unit * added if unit else None))
        for c in cards:
            ch = c.hardware
            if ch.memory_gb <= hw.memory_gb and ch.bandwidth_gbps <= hw.bandwidth_gbps:
                continue
            new = ch.model_copy(update={"host_memory_gb": hw.host_memory_gb,
                                        "host_bandwidth_gbps": hw.host_bandwidth_gbps,
                                        "host_link_gbps": hw.host_link_gbps, "devices": hw.devices,
                                        "split": hw.split, "name": set_label(ch.name, hw.devices)})
            price = c.price_usd * hw.devices if c.price_usd else None
            out.append(("bigger_card", _derived(current, new, set_label(c.label, hw.devices), price),
                        f"replace the card{'s' if hw.devices > 1 else ''} with {set_label(c.label, hw.devices)} "
                        f"({gb(ch.memory_gb)} GB, {ch.bandwidth_gbps:,.0f} GB/s)", price))
    elif hw.kind is HardwareClass.CPU:
        for p in platforms:
            if p.hardware.bandwidth_gbps <= hw.bandwidth_gbps:
                continue
            out.append(("more_ram_channels", p.model_copy(update={"origin": "catalog"}),
                        f"a platform with more memory channels: {p.label} ({p.hardware.bandwidth_gbps:,.0f} GB/s)",
                        p.price_usd))
        for c in cards:
            new = c.hardware.model_copy(update={"host_memory_gb": hw.memory_gb,
                                                "host_bandwidth_gbps": hw.bandwidth_gbps,
                                                "name": f"{c.label} in {current.label}"})
            out.append(("add_gpu", _derived(current, new, f"{current.label} + {c.label}", c.price_usd),
                        f"add one {c.label} ({gb(c.hardware.memory_gb)} GB, {c.hardware.bandwidth_gbps:,.0f} GB/s)",
                        c.price_usd))
    else:
        for u in singles:
            uh = u.hardware
            if uh.kind is not HardwareClass.UNIFIED or u.label == current.label:
                continue
            if uh.memory_gb <= hw.memory_gb and uh.bandwidth_gbps <= hw.bandwidth_gbps:
                continue
            out.append(("bigger_machine", u, f"{u.label} ({gb(uh.memory_gb)} GB at {uh.bandwidth_gbps:,.0f} GB/s)",
                        u.price_usd))
    return out


def _derived(current: Machine, hw: Hardware, label: str, cost: float | None) -> Machine:
    price = (current.price_usd or 0) + cost if cost is not None and current.price_usd is not None else None
    return Machine(label=label[:200], hardware=hw, price_usd=price, price_estimate=True,
                   power_w=None, catalog_id=None, origin="edited")


def what_would_it_take(base: Scenario, target_tok_s: float, catalog: Sequence[Machine],
                       target_ttft_s: float | None = None, current: Machine | None = None,
                       limit: int = 8) -> Plan:
    """For the base scenario's model, quant and workload: the cheapest catalog machines and multi-GPU
    sets reaching `target_tok_s` per stream (and `target_ttft_s`, if given), and for `current` the
    cheapest upgrade of each kind that does, cheapest first."""
    priced = [m for m in catalog if m.price_usd is not None]
    buys = [("buy", m, m.label, m.price_usd) for m in priced]
    cheapest, closest = _cheapest_meeting(base, buys, target_tok_s, target_ttft_s, limit)  # type: ignore[arg-type]
    plan: dict[str, Any] = dict(model_name=base.model.name, quant_name=base.quant.name, context=base.workload.context,
                                target_tok_s=target_tok_s, target_ttft_s=target_ttft_s, cheapest=tuple(cheapest),
                                closest=tuple(closest), unpriced=len(catalog) - len(priced))
    if current is not None:
        plan["current"] = _option("current", current, current.label, 0.0, base, target_tok_s, target_ttft_s)
        singles = [m for m in catalog if m.devices == 1]
        cands = upgrade_candidates(current, singles)
        best: dict[str, Option] = {}
        short: dict[str, Option] = {}
        kinds = dict.fromkeys(c[0] for c in cands)
        for kind in kinds:
            group = [c for c in cands if c[0] == kind]
            meeting, fastest = _cheapest_meeting(base, group, target_tok_s, target_ttft_s, 1)
            if meeting:
                best[kind] = meeting[0]
            elif fastest:
                short[kind] = fastest[0]
        plan["upgrades"] = tuple(sorted(best.values(), key=lambda o: (o.cost_usd is None, o.cost_usd or 0)))
        plan["short"] = tuple(short.values())
    return Plan(**plan)


# --- a saved comparison -----------------------------------------------------------------------

COMPARE_SCHEMA_VERSION = 1


class CompareSetup(Frozen):
    """What a comparison is made of: saved and opened like a scenario."""

    schema_version: int = Field(COMPARE_SCHEMA_VERSION, ge=1, le=COMPARE_SCHEMA_VERSION)
    kind: Literal["comparison"] = "comparison"
    machines: tuple[Machine, ...] = Field((), max_length=MAX_MACHINES)
    model: ModelArch = ModelArch()
    quant: Quant = Quant()
    workload: Workload = Workload()
    model_id: str | None = None
    quant_id: str | None = None
    current: Machine | None = Field(None, description="The user's own machine, for upgrades")
    budget_usd: float = Field(3000.0, gt=0, le=100_000_000)
    include_sets: bool = True
    pc_price_usd: float = Field(0.0, ge=0, le=1_000_000, description="Added to discrete GPUs in the ranking")
    target_tok_s: float = Field(20.0, gt=0, le=100_000)
    target_ttft_s: float | None = Field(None, gt=0, le=100_000)

    @model_validator(mode="after")
    def _unique_labels(self) -> CompareSetup:
        labels = [m.label for m in self.machines]
        if len(set(labels)) != len(labels):
            raise ValueError("machine labels must be unique")
        return self

    @property
    def scenario(self) -> Scenario:
        return Scenario(model=self.model, quant=self.quant, workload=self.workload)


def unique_label(label: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if label not in used:
        return label
    n = 2
    while f"{label} ({n})" in used:
        n += 1
    return f"{label} ({n})"
