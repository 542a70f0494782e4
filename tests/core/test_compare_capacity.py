"""How many streams a machine serves: held to `evaluate` at that many streams and one more, the same
from the stacked solve as machine by machine, and carried by the compare and budget rows."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.budget_model import rank_for_model
from advisor.core.capacity import EXACT_STREAMS, MAX_STREAMS, STEP_ABOVE, capacities, capacity, stream_axis
from advisor.core.comparison import compare
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware
from advisor.core.machines import catalog_machines, machine_from_entry, scenario_on
from advisor.core.scenario import Scenario
from advisor.present.compare_text import comparison_data, max_streams_tip, table_cells
from advisor.present.serving_text import streams_cell

CAT = shipped_catalog()
MACHINES = [
    machine_from_entry(CAT.hardware[h], n)
    for h, n in (
        ("rtx-3090", 1),
        ("rtx-3090", 2),
        ("rtx-5090", 1),
        ("m4-max-40c-128gb", 1),
        ("strix-halo-395-128gb", 1),
    )
]


def base(model: str, context: int) -> Scenario:
    s = Scenario(model=to_model(CAT.models[model]), quant=to_quant(CAT.quants["q4_k_m"]))
    return s.model_copy(update={"workload": s.workload.model_copy(update={"context": context})})


def at_streams(s: Scenario, n: int) -> Scenario:
    return s.model_copy(update={"workload": s.workload.model_copy(update={"streams": n})})


def test_axis_is_whole_numbers_exact_then_fine() -> None:
    x = stream_axis()
    assert list(x[:EXACT_STREAMS]) == list(range(1, EXACT_STREAMS + 1))
    assert (x == x.round()).all() and (x[1:] > x[:-1]).all() and x[-1] == MAX_STREAMS
    assert (x[EXACT_STREAMS:] / x[EXACT_STREAMS - 1 : -1] - 1).max() <= STEP_ABOVE + 1 / EXACT_STREAMS


@pytest.mark.parametrize("model,context", [("llama-3.1-8b", 32768), ("qwen3-30b-a3b", 32768), ("llama-3.1-8b", 4096)])
def test_max_streams_holds_and_one_more_does_not(model: str, context: int) -> None:
    s0 = base(model, context)
    threshold = s0.workload.interactive_tok_s
    seen = set()
    for m in MACHINES:
        s = scenario_on(s0, m.hardware)
        cap = capacity(s)
        assert cap.max_streams is not None
        seen.add(cap.limit)
        if cap.max_streams:
            r = evaluate(at_streams(s, cap.max_streams))
            assert r.fits and (r.decode_tok_s or 0) >= threshold * (1 - 1e-9)
            assert cap.decode_tok_s == pytest.approx(r.decode_tok_s)
            assert cap.requests_per_hour == pytest.approx(r.requests_per_hour)
            assert cap.aggregate_tok_s == pytest.approx(r.aggregate_tok_s)
        if cap.max_streams < EXACT_STREAMS and cap.limit != "axis":
            nxt = evaluate(at_streams(s, cap.max_streams + 1))
            failed = not nxt.fits if cap.limit == "memory" else (nxt.fits and (nxt.decode_tok_s or 0) < threshold)
            assert failed, (m.label, cap)
    assert seen <= {"memory", "speed", "axis"}


def test_more_context_never_serves_more_streams() -> None:
    for m in MACHINES:
        counts = [
            capacity(scenario_on(base("llama-3.1-8b", c), m.hardware)).max_streams or 0
            for c in (2048, 8192, 32768, 131072)
        ]
        assert counts == sorted(counts, reverse=True), m.label
    # at 2k context an 8B model on a 24 GB card serves many people; at 128k hardly any
    small = capacity(scenario_on(base("llama-3.1-8b", 2048), MACHINES[0].hardware)).max_streams or 0
    assert small >= 8


def test_stacked_solve_is_each_machine_alone() -> None:
    s = base("qwen3-30b-a3b", 32768)
    hws = [m.hardware for m in MACHINES]
    assert capacities(s, hws) == [capacity(scenario_on(s, h)) for h in hws]
    assert capacities(s, []) == []


def test_model_too_big_serves_none_and_unknown_memory_is_unchecked() -> None:
    s = base("llama-3.3-70b", 32768)
    cap = capacity(scenario_on(s, MACHINES[0].hardware))  # 24 GB cannot hold a 70B at Q4
    assert cap.max_streams == 0 and cap.limit == "memory" and cap.requests_per_hour is None
    unknown = Hardware(name="no size", bandwidth_gbps=900, fp16_tflops=80, memory_gb=None)
    assert capacity(scenario_on(s, unknown)).max_streams is None
    assert streams_cell(None, "unchecked", None) == "—"


def test_compare_and_budget_rows_carry_it() -> None:
    s = base("llama-3.1-8b", 32768)
    c = compare(MACHINES, s, [], [])
    for row, m in zip(c.rows, MACHINES, strict=True):
        cap = capacity(scenario_on(s, m.hardware))
        assert row.max_streams == cap.max_streams and row.requests_per_hour == cap.requests_per_hour
        cell = table_cells(row, c.threshold_tok_s)["max_streams"]
        assert cell.startswith(f"{cap.max_streams:,}")
        assert f"{s.workload.context:,} tokens" in max_streams_tip(row, c)
    data = comparison_data(c)
    assert all("max_streams" in r and "requests_per_hour" in r for r in data["rows"])
    b = rank_for_model(catalog_machines(CAT.hardware.values()), s, 2500, top=5)
    for x in (*b.meeting, *b.short):
        assert x.max_streams == capacity(scenario_on(s, x.machine.hardware)).max_streams
    assert all((x.max_streams or 0) >= 1 for x in b.meeting)  # each meets the threshold with one stream
