"""Machines side by side, as numbers: for one model, quant and workload, each machine's speed, fit,
value for money, the largest catalog model it keeps interactive, and how the model did on the runs
published on it. advisor.present.compare_text words and tabulates these rows.

Every number comes from `evaluate` and `recommend`; tests hold the rows to them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from advisor.core.base import Frozen
from advisor.core.capacity import Capacity, Limit, capacity
from advisor.core.evaluate import evaluate
from advisor.core.hardware import HardwareClass
from advisor.core.machines import Machine, Origin, PriceKind, Split, scenario_on
from advisor.core.model import ModelArch
from advisor.core.published import Published, Setup, machine_record
from advisor.core.quant import Quant
from advisor.core.recommend import Recommendation, Standing, recommend
from advisor.core.running_cost import CostInputs, running_cost
from advisor.core.scenario import Scenario, Workload

ModelList = Sequence[tuple[str, ModelArch]]
QuantList = Sequence[tuple[str, Quant]]


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
    """One machine on the chosen model. `runs`, `fits` and `interactive` say how far it gets: it runs
    at all (fast and system memory together hold it), it fits fast memory, and it reaches the
    workload's interactive speed. Hardware without a memory size has `memory_gb` and `fits` None:
    the fit is not checked."""

    label: str
    catalog_id: str | None
    origin: Origin
    kind: HardwareClass
    devices: int
    split: Split = Field(
        description="How a multi-device machine shares the model: layer (each device holds "
        "whole layers, one after another) or tensor (every layer across all)"
    )
    price_usd: float | None
    price_estimate: bool
    price_kind: PriceKind | None = Field(None, description="New or used; None for a price the person typed")
    price_seen: str | None = Field(None, description="Month the price was seen, YYYY-MM")
    power_w: float | None
    memory_gb: float | None = Field(description="Fast memory across all devices; None when the size is not given")
    host_gb: float
    bandwidth_gbps: float = Field(description="Datasheet bandwidth weights stream from (summed under tensor split)")
    runs: bool
    fits: bool | None
    interactive: bool
    decode_tok_s: float | None
    ttft_s: float | None
    total_gb: float
    offloaded_fraction: float
    largest: Largest | None
    tok_s_per_k_usd: float | None
    tok_s_per_w: float | None
    max_streams: int | None = Field(
        None,
        description="Most concurrent streams held in fast memory at the context, "
        "each at or above the interactive speed (advisor.core.capacity)",
    )
    streams_limit: Limit | None = Field(None, description="What stops one more stream: memory, speed, axis, unchecked")
    max_streams_tok_s: float | None = Field(None, description="Per-stream decode at max_streams")
    max_streams_aggregate_tok_s: float | None = None
    requests_per_hour: float | None = Field(None, description="At max_streams, every stream busy")
    aggregate_tok_s: float | None = Field(None, description="Per-stream decode × the workload's streams")
    million_tokens_per_month: float | None = Field(None, description="At that throughput and the utilization")
    joules_per_token: float | None = Field(None, description="Rated power ÷ aggregate tok/s at the workload's streams")
    usd_per_million_tokens: float | None = Field(None, description="Electricity alone (advisor.core.running_cost)")
    usd_per_million_tokens_with_hardware: float | None = Field(None, description="Plus the price over its life")
    break_even_months: float | None = Field(None, description="Against the API price; None without one or never")
    pays_off: bool | None = Field(None, description="False when electricity alone costs more than the API")
    published_runs: int = Field(0, description="Published decode runs on this catalog machine")
    published_median: float | None = Field(None, description="Measured ÷ model over those runs, median")
    published_low: float | None = None
    published_high: float | None = None


class Comparison(Frozen):
    model_name: str
    quant_name: str
    context: int
    prompt_tokens: int
    output_tokens: int = 0
    streams: int
    threshold_tok_s: float
    rows: tuple[CompareRow, ...]
    costs: CostInputs = CostInputs()


def largest_interactive(rec: Recommendation) -> Largest | None:
    p = rec.pick
    if p is None:
        return None
    return Largest(
        model_key=p.model_key,
        model_name=p.model_name,
        quant_key=p.quant_key,
        quant_name=p.quant_name,
        total_params_b=p.total_params_b,
        decode_tok_s=p.decode_tok_s,
        total_gb=p.total_gb,
    )


def pool(quants: QuantList, workload: Workload) -> list[tuple[str, Quant]]:
    """Quants the recommender considers: at or above the quality floor."""
    return [(k, q) for k, q in quants if q.bits_per_weight >= workload.min_bits]


def compare_row(
    machine: Machine,
    base: Scenario,
    models: ModelList,
    quants: QuantList,
    published: Sequence[Published] = (),
    standing: Mapping[str, Standing] | None = None,
) -> CompareRow:
    """One machine's row: the chosen model at the chosen context and prompt, the largest catalog
    model that stays interactive (via the recommender), and how the model did on the runs published
    on that catalog machine."""
    s = scenario_on(base, machine.hardware)
    record = machine_record(published, Setup(s, machine.catalog_id, None, None))
    r = evaluate(s)
    rec = recommend(s, list(models), list(quants), runner_ups=0, standing=standing)
    d = r.decode_tok_s if r.runs else None
    hw = machine.hardware
    cap = capacity(s)
    return CompareRow(
        label=machine.label,
        catalog_id=machine.catalog_id,
        origin=machine.origin,
        kind=hw.kind,
        devices=hw.devices,
        split=hw.split,
        price_usd=machine.price_usd,
        price_estimate=machine.price_estimate,
        price_kind=machine.price_kind,
        price_seen=machine.price_seen,
        power_w=machine.power_w,
        memory_gb=hw.fast_capacity_gb if hw.memory_known else None,
        host_gb=hw.host_capacity_gb,
        bandwidth_gbps=hw.fast_bandwidth_gbps,
        runs=r.runs,
        fits=r.fits,
        interactive=r.interactive,
        decode_tok_s=d,
        ttft_s=r.ttft_s,
        total_gb=r.total_gb,
        offloaded_fraction=r.offloaded_fraction,
        largest=largest_interactive(rec),
        tok_s_per_k_usd=d / (machine.price_usd / 1000) if d and machine.price_usd else None,
        tok_s_per_w=d / machine.power_w if d and machine.power_w else None,
        **capacity_fields(cap),
        published_runs=record.runs if record else 0,
        published_median=record.median if record else None,
        published_low=record.low if record else None,
        published_high=record.high if record else None,
    )


def capacity_fields(cap: Capacity) -> dict[str, Any]:
    return {
        "max_streams": cap.max_streams,
        "streams_limit": cap.limit,
        "max_streams_tok_s": cap.decode_tok_s,
        "max_streams_aggregate_tok_s": cap.aggregate_tok_s,
        "requests_per_hour": cap.requests_per_hour,
    }


def with_costs(row: CompareRow, streams: int, costs: CostInputs) -> CompareRow:
    """The row with its running cost at the workload's streams (cheap: not cached with the row)."""
    rc = running_cost((row.decode_tok_s or 0.0) * streams, row.power_w, row.price_usd, costs)
    return row.model_copy(
        update={
            "aggregate_tok_s": rc.tok_s if rc else None,
            "million_tokens_per_month": rc.million_tokens_per_month if rc else None,
            "joules_per_token": rc.joules_per_token if rc else None,
            "usd_per_million_tokens": rc.usd_per_million_tokens if rc else None,
            "usd_per_million_tokens_with_hardware": rc.usd_per_million_tokens_with_hardware if rc else None,
            "break_even_months": rc.break_even_months if rc else None,
            "pays_off": rc.pays_off if rc else None,
        }
    )


def compare(
    machines: Sequence[Machine],
    base: Scenario,
    models: ModelList,
    quants: QuantList,
    rows: Sequence[CompareRow] | None = None,
    published: Sequence[Published] = (),
    costs: CostInputs | None = None,
    standing: Mapping[str, Standing] | None = None,
) -> Comparison:
    """The table for the base scenario's model, quant and workload on each machine, with each
    machine's running cost under `costs`. Pass `rows` to reuse rows already computed (the window
    caches them per machine)."""
    costs = costs or CostInputs()
    w = base.workload
    qs = pool(quants, w)
    rows = (
        tuple(rows)
        if rows is not None
        else tuple(compare_row(m, base, models, qs, published, standing) for m in machines)
    )
    rows = tuple(with_costs(r, w.streams, costs) for r in rows)
    return Comparison(
        model_name=base.model.name,
        quant_name=base.quant.name,
        context=w.context,
        prompt_tokens=w.prompt_tokens,
        output_tokens=w.output_tokens,
        streams=w.streams,
        threshold_tok_s=w.interactive_tok_s,
        rows=rows,
        costs=costs,
    )
