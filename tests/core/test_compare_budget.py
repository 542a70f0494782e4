"""The budget for the person's own model: rows held to evaluate machine by machine, the order (those
that hold the model at the threshold first, cheapest first; then the rest), and the reasons."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.budget_model import rank_for_model
from advisor.core.evaluate import evaluate
from advisor.core.machines import catalog_machines, scenario_on
from advisor.core.scenario import Scenario
from advisor.present.budget_text import fit_reason, model_budget_data

CAT = shipped_catalog()
MACHINES = catalog_machines(CAT.hardware.values())


def base(model: str, context: int = 32768) -> Scenario:
    s = Scenario(model=to_model(CAT.models[model]), quant=to_quant(CAT.quants["q4_k_m"]))
    return s.model_copy(update={"workload": s.workload.model_copy(update={"context": context})})


@pytest.mark.parametrize("model", ["qwen3-30b-a3b", "llama-3.3-70b"])
def test_rows_are_evaluate_and_the_order_is_fit_then_price(model: str) -> None:
    s = base(model)
    cap = 2500.0
    b = rank_for_model(MACHINES, s, cap, top=None)
    threshold = s.workload.interactive_tok_s
    within = [m for m in MACHINES if m.price_usd is not None and m.price_usd <= cap]
    assert len(b.meeting) + len(b.short) == len(within)
    assert b.over_budget == sum(1 for m in MACHINES if m.price_usd is not None and m.price_usd > cap)
    for x in (*b.meeting, *b.short):
        r = evaluate(scenario_on(s, x.machine.hardware))
        assert x.price_usd <= cap and x.fits == r.fits and x.runs == r.runs
        assert x.offloaded_fraction == pytest.approx(r.offloaded_fraction)
        if r.runs:
            assert x.decode_tok_s == pytest.approx(r.decode_tok_s)
        assert x.split == x.machine.hardware.split
    for x in b.meeting:
        assert x.fits and (x.decode_tok_s or 0) >= threshold and x.meets
    for x in b.short:
        assert not x.meets and (not x.fits or (x.decode_tok_s or 0) < threshold)
    prices = [x.price_usd for x in b.meeting]
    assert prices == sorted(prices)
    assert [x.rank for x in (*b.meeting, *b.short)] == list(range(1, len(within) + 1))
    # in the rest, everything that holds the model comes before anything that spills
    tiers = [0 if x.fits else 1 if x.runs else 2 for x in b.short]
    assert tiers == sorted(tiers)


def test_a_machine_that_spills_never_ranks_among_those_that_hold() -> None:
    b = rank_for_model(MACHINES, base("qwen3-30b-a3b"), 2500.0, top=None)
    assert b.meeting, "some machine under $2,500 holds a 30B MoE at Q4_K_M"
    spilling = [x for x in b.short if x.shortfall == "spills"]
    assert spilling and all(x.offloaded_fraction > 0 for x in spilling)
    assert max(x.rank for x in b.meeting) < min(x.rank for x in spilling)


def test_reasons_and_data_say_fits_spill_and_speed() -> None:
    b = rank_for_model(MACHINES, base("qwen3-30b-a3b"), 2500.0, top=5)
    assert len(b.meeting) <= 5 and len(b.short) <= 5
    x = b.meeting[0]
    assert fit_reason(x, b.threshold_tok_s).startswith("holds it")
    everything = rank_for_model(MACHINES, base("qwen3-30b-a3b"), 2500.0, top=len(MACHINES))
    spill = next(x for x in everything.short if x.shortfall == "spills")  # 12 GB cards spill an 18 GB model
    assert f"{spill.offloaded_fraction:.0%} spills" in fit_reason(spill, b.threshold_tok_s)
    data = model_budget_data(b)
    row = data["meeting"][0]
    for key in ("fits", "offloaded_fraction", "decode_tok_s", "price_usd", "split", "reason"):
        assert key in row
    assert row["decode_tok_s"] == pytest.approx(x.decode_tok_s)


def test_nothing_under_the_cap() -> None:
    b = rank_for_model(MACHINES, base("llama-3.3-70b"), 50.0)
    assert not b.meeting and not b.short and b.over_budget > 0


def test_what_would_it_take_caps_the_price_and_puts_holding_first() -> None:
    from advisor.core.upgrades import what_would_it_take

    s = base("qwen3-30b-a3b")
    # placed as llama.cpp's --fit would (experts first on a small card: the KV cache stays on it)
    s = s.model_copy(update={"workload": s.workload.model_copy(update={"offload": "auto"})})
    plan = what_would_it_take(s, 20.0, MACHINES, max_price_usd=1500.0, limit=50)
    assert plan.max_price_usd == 1500.0 and plan.over_budget > 0 and plan.cheapest
    assert all((o.machine.price_usd or 0) <= 1500 and o.fits and o.offloaded_fraction == 0 for o in plan.cheapest)
    spilling = what_would_it_take(s, 20.0, MACHINES, max_price_usd=1500.0, limit=50, allow_spill=True)
    assert len(spilling.cheapest) >= len(plan.cheapest)
    assert any(not o.fits and o.offloaded_fraction > 0 for o in spilling.cheapest), "a spilling card meets 20 tok/s"
    # nothing meets an impossible target: the closest list keeps those that hold the model first
    far = what_would_it_take(s, 5000.0, MACHINES, max_price_usd=2500.0, limit=50)
    assert not far.cheapest and far.closest
    holds = [o.fits for o in far.closest]
    assert holds == sorted(holds, reverse=True)
