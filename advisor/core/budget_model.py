"""The best machine under a budget for the person's own model: every priced catalog machine and set
at or under the cap, on the chosen model, quant and workload. Machines that hold it in fast memory
and meet the interactive speed come first, cheapest first (then the faster); the rest follow, each
with why it falls short (advisor.present.budget_text words it).

The catalog is screened with the machine grid's one broadcast solve; every row listed has its
exact numbers from `evaluate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import Field

from advisor.core.base import Frozen
from advisor.core.capacity import Capacity, capacities
from advisor.core.evaluate import evaluate
from advisor.core.machine_grid import machine_grid
from advisor.core.machines import Machine, PriceKind, Split, scenario_on
from advisor.core.running_cost import CostInputs, running_cost
from advisor.core.scenario import Scenario

Shortfall = Literal["meets", "too_slow", "spills", "does_not_run", "not_checked"]


class ModelFit(Frozen):
    """One machine on the chosen model: whether fast memory holds it (`fits`; None when the memory
    size is not given), how much spills to system RAM, and its per-stream decode speed."""

    rank: int
    machine: Machine
    split: Split
    price_usd: float
    price_kind: PriceKind | None = Field(None, description="New or used; None for a price the person typed")
    price_seen: str | None = Field(None, description="Month the price was seen, YYYY-MM")
    fits: bool | None
    runs: bool
    offloaded_fraction: float = Field(ge=0, le=1)
    decode_tok_s: float | None
    total_gb: float
    memory_gb: float | None = Field(description="Fast memory across all devices; None when not given")
    tok_s_per_k_usd: float | None
    meets: bool
    shortfall: Shortfall
    max_streams: int | None = Field(
        None,
        description="Most concurrent streams held in fast memory at the context, "
        "each at or above the interactive speed",
    )
    requests_per_hour: float | None = Field(None, description="At max_streams, every stream busy")
    power_w: float | None = Field(None, description="Rated power: board power for GPUs, the whole machine otherwise")
    joules_per_token: float | None = Field(None, description="Rated power ÷ aggregate tok/s at the workload's streams")
    usd_per_million_tokens: float | None = Field(None, description="Electricity alone (advisor.core.running_cost)")
    usd_per_million_tokens_with_hardware: float | None = Field(None, description="Plus the price over its life")
    break_even_months: float | None = Field(None, description="Against the API price; None without one or never")


class ModelBudget(Frozen):
    model_name: str
    quant_name: str
    context: int
    streams: int
    max_price_usd: float
    threshold_tok_s: float
    meeting: tuple[ModelFit, ...] = ()  # hold the model and meet the threshold: cheapest, then fastest
    short: tuple[ModelFit, ...] = ()  # under the cap but spill or fall short: the closest first
    over_budget: int = 0
    no_price: tuple[str, ...] = ()


def _shortfall(fits: bool | None, runs: bool, decode: float | None, threshold: float) -> Shortfall:
    if not runs:
        return "does_not_run"
    if fits is None:
        return "not_checked"
    if not fits:
        return "spills"
    return "meets" if (decode or 0.0) >= threshold else "too_slow"


def _row(rank: int, m: Machine, base: Scenario, threshold: float, costs: CostInputs) -> ModelFit:
    r = evaluate(scenario_on(base, m.hardware))
    d = r.decode_tok_s if r.runs else None
    fits = r.fits if m.hardware.memory_known else None
    price = m.price_usd or 0.0
    short = _shortfall(fits, r.runs, d, threshold)
    rc = running_cost((d or 0.0) * base.workload.streams, m.power_w, m.price_usd, costs)
    return ModelFit(
        rank=rank,
        machine=m,
        split=m.split,
        price_usd=price,
        price_kind=m.price_kind,
        price_seen=m.price_seen,
        power_w=m.power_w,
        joules_per_token=rc.joules_per_token if rc else None,
        usd_per_million_tokens=rc.usd_per_million_tokens if rc else None,
        usd_per_million_tokens_with_hardware=rc.usd_per_million_tokens_with_hardware if rc else None,
        break_even_months=rc.break_even_months if rc else None,
        fits=fits,
        runs=r.runs,
        offloaded_fraction=min(max(r.offloaded_fraction, 0.0), 1.0),
        decode_tok_s=d,
        total_gb=r.total_gb,
        memory_gb=m.hardware.fast_capacity_gb if m.hardware.memory_known else None,
        tok_s_per_k_usd=d / (price / 1000) if d and price else None,
        meets=short == "meets",
        shortfall=short,
    )


def _ranked(x: ModelFit, rank: int, cap: Capacity) -> ModelFit:
    return x.model_copy(
        update={"rank": rank, "max_streams": cap.max_streams, "requests_per_hour": cap.requests_per_hour}
    )


def rank_for_model(
    machines: Sequence[Machine],
    base: Scenario,
    max_price_usd: float,
    top: int | None = 15,
    costs: CostInputs | None = None,
) -> ModelBudget:
    """Machines at or under the cap on the base scenario's model, quant and workload: those that hold
    it in fast memory at or over the interactive speed, by price then tok/s; then the rest, those that
    hold it but run slower first (fastest first), then those that spill (fastest first), then those
    that cannot run it. `top` caps each list. Each row has its running cost at `costs`."""
    k = costs if costs is not None else CostInputs()
    w = base.workload
    threshold = w.interactive_tok_s
    no_price = tuple(m.label for m in machines if m.price_usd is None)
    priced = [m for m in machines if m.price_usd is not None]
    within = [m for m in priced if (m.price_usd or 0.0) <= max_price_usd]
    empty = ModelBudget(
        model_name=base.model.name,
        quant_name=base.quant.name,
        context=w.context,
        streams=w.streams,
        max_price_usd=max_price_usd,
        threshold_tok_s=threshold,
        over_budget=len(priced) - len(within),
        no_price=no_price,
    )
    if not within:
        return empty
    g = machine_grid(base, [m.hardware for m in within], [base.model], [base.quant])
    runs = g.runs[:, 0, 0]
    decode = np.where(runs, g.decode[:, 0, 0], 0.0)
    fits = g.fits[:, 0, 0] & runs
    price = np.array([m.price_usd for m in within], dtype=float)
    ok = fits & (decode >= threshold * (1 - 1e-9))
    # the rest: fits-but-slow (0), spills or unchecked (1), does not run (2); fastest first in each
    tier = np.where(fits, 0, np.where(runs, 1, 2))
    first = np.flatnonzero(ok)[np.lexsort((-decode[ok], price[ok]))]
    rest_idx = np.flatnonzero(~ok)
    rest = rest_idx[np.lexsort((price[rest_idx], -decode[rest_idx], tier[rest_idx]))]
    n = top if top is not None else len(within)
    meeting = [_row(0, within[int(i)], base, threshold, k) for i in first[:n]]
    short = [_row(0, within[int(i)], base, threshold, k) for i in rest[:n]]
    # the screen and the exact figures agree but for rounding at the threshold: trust the exact ones
    moved = [x for x in meeting if not x.meets]
    meeting = [x for x in meeting if x.meets]
    short = moved + short
    caps = iter(capacities(base, [x.machine.hardware for x in meeting + short]))  # one solve for all listed
    meeting = [_ranked(x, k, next(caps)) for k, x in enumerate(meeting, start=1)]
    short = [_ranked(x, k, next(caps)) for k, x in enumerate(short, start=len(meeting) + 1)]
    return empty.model_copy(update={"meeting": tuple(meeting), "short": tuple(short)})
