"""What should I buy: the comparison table against evaluate and recommend, the catalog ranking
against the recommender machine by machine, and what-would-it-take against brute force."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pydantic import ValidationError

from advisor.catalog.convert import to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core import machine_grid as grid_module
from advisor.core.budget import StopReason, best_picks, dense_picks, rank_budget
from advisor.core.comparison import compare, compare_row, pool
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware
from advisor.core.machine_grid import machine_grid
from advisor.core.machines import CompareSetup, Machine, catalog_machines, machine_from_entry, scenario_on, with_devices
from advisor.core.model import ModelArch
from advisor.core.presets import PRESETS
from advisor.core.quant import Quant
from advisor.core.recommend import Grid, recommend, solve_grid
from advisor.core.scenario import Scenario
from advisor.core.upgrades import upgrade_candidates, what_would_it_take
from advisor.present.budget_text import budget_reason
from advisor.present.compare_text import (
    comparison_verdict,
    model_quant,
    published_tip,
    row_verdict,
    short_verdict,
    table_cells,
)
from advisor.present.upgrade_text import option_description

CAT = shipped_catalog()
MODELS = [(k, to_model(m)) for k, m in CAT.models.items()]
QUANTS = [(k, to_quant(q)) for k, q in CAT.quants.items() if q.format == "gguf"]
HW = CAT.hardware


def base(model: str = "llama-3.3-70b", quant: str = "q4_k_m", **workload: object) -> Scenario:
    s = Scenario(model=to_model(CAT.models[model]), quant=to_quant(CAT.quants[quant]))
    return s.model_copy(update={"workload": s.workload.model_copy(update=workload)}) if workload else s


def grid_per_machine(b: Scenario, hardware: list[Hardware], models: list[ModelArch], quants: list[Quant]) -> Grid:
    """The reference the stacked solve must equal: one `solve_grid` per machine."""
    grids = [solve_grid(scenario_on(b, h), models, quants) for h in hardware]
    return Grid(
        decode=np.stack([g.decode for g in grids]),
        fits=np.stack([g.fits for g in grids]),
        runs=np.stack([g.runs for g in grids]),
        total_gb=np.stack([g.total_gb for g in grids]),
    )


def test_multi_gpu_set_is_priced_and_powered_per_card() -> None:
    m = machine_from_entry(HW["rtx-3090"], 2)
    assert m.label == "2× NVIDIA GeForce RTX 3090"
    assert m.price_usd == pytest.approx(2 * 1499) and m.power_w == pytest.approx(2 * 350)
    assert m.hardware.devices == 2 and m.hardware.split == "layer" and m.origin == "set"  # llama.cpp's default
    assert m.hardware.fast_capacity_gb == pytest.approx(48) and m.hardware.fast_bandwidth_gbps == pytest.approx(936)
    four = with_devices(m, 4)
    assert four.price_usd == pytest.approx(4 * 1499) and four.label == "4× NVIDIA GeForce RTX 3090"
    assert with_devices(four, 1).label == "NVIDIA GeForce RTX 3090" and with_devices(four, 1).origin == "catalog"
    with pytest.raises(ValueError, match="discrete GPUs"):
        machine_from_entry(HW["m4-max-40c-128gb"], 2)


def test_catalog_machines_add_sets_for_desktop_gpus_only() -> None:
    ms = catalog_machines(HW.values())
    labels = {m.label for m in ms}
    assert "2× NVIDIA GeForce RTX 3090" in labels and "4× NVIDIA GeForce RTX 3090" in labels
    assert not any(m.devices > 1 and m.hardware.kind.value != "discrete_gpu" for m in ms)
    assert not any(m.devices > 1 and "Laptop" in m.label for m in ms)
    with_pc = {m.label: m for m in catalog_machines(HW.values(), pc_price_usd=1000)}
    assert with_pc["2× NVIDIA GeForce RTX 3090"].price_usd == pytest.approx(2 * 1499 + 1000)
    assert with_pc[HW["m4-max-40c-128gb"].name].price_usd == pytest.approx(HW["m4-max-40c-128gb"].price_usd)


@pytest.mark.parametrize(
    "spec",
    [
        ("rtx-3090", 1),
        ("rtx-3090", 2),
        ("m4-max-40c-128gb", 1),
        ("strix-halo-395-128gb", 1),
        ("desktop-ddr5-5600-2ch-64gb", 1),
    ],
)
def test_row_matches_evaluate_and_recommend(spec: tuple[str, int]) -> None:
    m = machine_from_entry(HW[spec[0]], spec[1])
    b = base(context=8192, prompt_tokens=2000)
    row = compare_row(m, b, MODELS, pool(QUANTS, b.workload))
    r = evaluate(scenario_on(b, m.hardware))
    assert row.runs == r.runs and row.fits == r.fits
    assert row.decode_tok_s == pytest.approx(r.decode_tok_s)
    assert row.ttft_s == pytest.approx(r.ttft_s)
    assert row.memory_gb == pytest.approx(m.hardware.fast_capacity_gb)
    pick = recommend(scenario_on(b, m.hardware), MODELS, QUANTS, runner_ups=0).pick
    assert row.largest is not None and pick is not None
    assert (row.largest.model_key, row.largest.quant_key) == (pick.model_key, pick.quant_key)
    assert row.tok_s_per_k_usd == pytest.approx(r.decode_tok_s / (m.price_usd / 1000))
    if m.power_w:
        assert row.tok_s_per_w == pytest.approx(r.decode_tok_s / m.power_w)
    assert table_cells(row, b.workload.interactive_tok_s)["decode_tok_s"] != "—"


def test_verdict_names_the_winner_and_the_cards_that_cannot_hold_it() -> None:
    ms = [machine_from_entry(HW["rtx-3090"]), machine_from_entry(HW["rtx-3090"], 2), machine_from_entry(HW["rtx-4090"])]
    c = compare(ms, base(), MODELS, QUANTS)
    two = c.rows[1]
    assert two.fits and two.interactive and not c.rows[0].fits and not c.rows[2].fits
    verdict = comparison_verdict(c)
    assert verdict.startswith(f"2× RTX 3090 (layer split) runs Llama 3.3 70B Q4_K_M at {two.decode_tok_s:.1f}")
    assert "the 24 GB cards (RTX 3090 and RTX 4090) cannot hold it" in verdict
    assert row_verdict(c.rows[0], model_quant(c), c.threshold_tok_s).startswith(
        "cannot hold Llama 3.3 70B Q4_K_M in 24 GB"
    )
    assert short_verdict(c.rows[1], c.threshold_tok_s) == f"fits: {two.decode_tok_s:.1f} tok/s"


def test_verdict_when_nothing_holds_it() -> None:
    ms = [machine_from_entry(HW["rtx-4060-ti-8gb"]), machine_from_entry(HW["rtx-3070"])]
    c = compare(ms, base("llama-3.1-405b"), MODELS, QUANTS)
    assert not any(r.fits for r in c.rows)
    verdict = comparison_verdict(c)
    assert "405B" in verdict and ("None of these" in verdict or "none holds" in verdict.lower())


def test_a_machine_without_a_memory_size_is_not_checked_for_fit() -> None:
    mystery = Machine(label="mystery", hardware=HW["rtx-4090"].model_copy(update={"memory_gb": None}))
    c = compare([mystery, machine_from_entry(HW["rtx-3090"], 2)], base(), MODELS, QUANTS)
    row = c.rows[0]
    assert row.memory_gb is None and row.fits is None and row.runs
    assert row_verdict(row, model_quant(c), c.threshold_tok_s).endswith("whether it fits is not checked")
    assert table_cells(row, c.threshold_tok_s)["memory_gb"].startswith("not given")
    assert comparison_verdict(c).startswith("2× RTX 3090 (layer split) runs Llama 3.3 70B Q4_K_M")


def test_machine_grid_is_solve_grid_with_a_machine_axis() -> None:
    b = base(context=32768, streams=4)
    machines = catalog_machines(HW.values())
    hw = [m.hardware for m in machines]
    ms, qs = [m for _, m in MODELS], [q for _, q in pool(QUANTS, b.workload)]
    fast, slow = machine_grid(b, hw, ms, qs), grid_per_machine(b, hw, ms, qs)
    assert fast.decode.shape == (len(hw), len(ms), len(qs))
    assert np.allclose(fast.decode, slow.decode) and np.array_equal(fast.fits, slow.fits)
    assert np.array_equal(fast.runs, slow.runs) and np.allclose(fast.total_gb, slow.total_gb)


def test_machine_grid_is_one_solve_and_refuses_what_it_cannot_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path runs: the whole catalog is one call of the roofline's solve; an input that is not
    one number per machine is an error, not a slower answer."""
    real_solve, real_build = grid_module.solve, grid_module.build_inputs
    calls: list[object] = []

    def counted(inputs: object) -> object:
        calls.append(inputs)
        return real_solve(inputs)  # type: ignore[arg-type]

    monkeypatch.setattr(grid_module, "solve", counted)
    b = base()
    hw = [m.hardware for m in catalog_machines(HW.values())]
    ms, qs = [m for _, m in MODELS[:5]], [q for _, q in QUANTS[:3]]
    assert machine_grid(b, hw, ms, qs).decode.shape == (len(hw), 5, 3)
    assert len(calls) == 1
    monkeypatch.setattr(
        grid_module, "build_inputs", lambda s: dataclasses.replace(real_build(s), context=np.array([1024.0, 4096.0]))
    )
    with pytest.raises(ValueError, match="'context' is not one number per machine"):
        machine_grid(b, hw[:2], ms, qs)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_staged_picks_equal_the_full_grid(preset: str) -> None:
    b = base(**PRESETS[preset])
    machines = catalog_machines(HW.values())
    qs = pool(QUANTS, b.workload)
    params = np.array([m.total_params_b for _, m in MODELS])
    bits = np.array([q.bits_per_weight for _, q in qs])
    staged = best_picks(b, [m.hardware for m in machines], MODELS, qs)
    dense = dense_picks(
        grid_per_machine(b, [m.hardware for m in machines], [m for _, m in MODELS], [q for _, q in qs]),
        params,
        bits,
        b.workload.interactive_tok_s,
    )
    assert np.array_equal(staged.has, dense.has)
    assert np.array_equal(staged.model[staged.has], dense.model[dense.has])
    assert np.array_equal(staged.quant[staged.has], dense.quant[dense.has])
    assert np.allclose(staged.decode[staged.has], dense.decode[dense.has])
    assert np.array_equal(staged.nxt, dense.nxt) and np.array_equal(staged.nxt_fits, dense.nxt_fits)


def test_budget_ranking_agrees_with_the_recommender() -> None:
    b = base(**PRESETS["Coding assistant"])
    machines = catalog_machines(HW.values())
    r = rank_budget(machines, b, MODELS, QUANTS, 3000)
    assert r.ranked and all((x.machine.price_usd or 0) <= 3000 for x in r.ranked)
    assert r.over_budget == sum(1 for m in machines if m.price_usd and m.price_usd > 3000)
    assert any(x.machine.devices == 2 for x in r.ranked) and any(x.machine.devices == 4 for x in r.ranked)
    keys = [
        ((x.largest.total_params_b if x.largest else -1), (x.largest.decode_tok_s if x.largest else 0))
        for x in r.ranked
    ]
    assert keys == sorted(keys, key=lambda k: (-k[0], -k[1]))
    for x in r.ranked:
        pick = recommend(scenario_on(b, x.machine.hardware), MODELS, QUANTS, runner_ups=0).pick
        reason = budget_reason(x, r.threshold_tok_s)
        if pick is None:
            assert x.largest is None and reason.startswith("nothing")
            continue
        assert x.largest is not None
        assert (x.largest.model_key, x.largest.quant_key) == (pick.model_key, pick.quant_key)
        assert x.largest.decode_tok_s == pytest.approx(pick.decode_tok_s)
        assert x.largest.decode_tok_s >= 20.0  # the coding preset's threshold
        assert reason.startswith("uses ")
        nxt = x.next_model
        if nxt is None:
            assert x.stop is StopReason.LARGEST
        else:
            assert nxt.total_params_b > x.largest.total_params_b
            assert x.stop is (StopReason.TOO_SLOW if nxt.fits else StopReason.TOO_BIG)
            assert nxt.decode_tok_s is None if not nxt.fits else nxt.decode_tok_s < b.workload.interactive_tok_s
    top = r.ranked[0]
    assert top.tok_s_per_k_usd == pytest.approx(top.largest.decode_tok_s / (top.machine.price_usd / 1000))


def test_budget_skips_unpriced_and_over_budget() -> None:
    m = machine_from_entry(HW["rtx-4090"]).model_copy(update={"price_usd": None, "label": "no price"})
    r = rank_budget(
        [m, machine_from_entry(HW["rtx-5090"]), machine_from_entry(HW["rtx-3060-12gb"])], base(), MODELS, QUANTS, 1000
    )
    assert [x.machine.label for x in r.ranked] == [HW["rtx-3060-12gb"].name]
    assert r.no_price == ("no price",) and r.over_budget == 1


def test_what_would_it_take_is_the_cheapest_that_meets_it() -> None:
    b = base()
    machines = catalog_machines(HW.values())
    plan = what_would_it_take(b, 15.0, machines, target_ttft_s=2.0)
    assert plan.cheapest
    prices = [o.machine.price_usd for o in plan.cheapest]
    assert prices == sorted(prices)
    for o in plan.cheapest:
        r = evaluate(scenario_on(b, o.machine.hardware))
        assert o.meets and r.decode_tok_s >= 15 and r.ttft_s <= 2.0
        assert o.decode_tok_s == pytest.approx(r.decode_tok_s)
    # Brute force: nothing cheaper than the first meets it.
    for m in machines:
        if m.price_usd is not None and m.price_usd < prices[0]:
            r = evaluate(scenario_on(b, m.hardware))
            assert not (r.runs and r.decode_tok_s >= 15 and r.ttft_s <= 2.0), m.label


def test_smallest_upgrade_for_a_4090_is_a_second_card() -> None:
    b = base()
    machines = catalog_machines(HW.values())
    mine = machine_from_entry(HW["rtx-4090"])
    plan = what_would_it_take(b, 15.0, machines, current=mine)
    assert plan.current is not None and not plan.current.meets
    up = plan.smallest_upgrade
    assert up is not None and up.kind == "more_cards" and up.cost_usd == pytest.approx(1599)
    r = evaluate(scenario_on(b, up.machine.hardware))
    assert up.machine.hardware.devices == 2 and r.decode_tok_s >= 15
    assert r.decode_tok_s == pytest.approx(up.decode_tok_s)
    costs = [o.cost_usd for o in plan.upgrades]
    assert costs == sorted(costs)
    # More RAM channels cannot make a 70B that spills half its layers reach 15 tok/s on a 4090.
    assert any(o.kind == "more_ram_channels" and not o.meets for o in plan.short)


def test_options_say_what_they_change() -> None:
    plan = what_would_it_take(base(), 15.0, catalog_machines(HW.values()), current=machine_from_entry(HW["rtx-4090"]))
    up = plan.smallest_upgrade
    assert up is not None and (up.change.cards_before, up.change.cards_after) == (1, 2)
    assert option_description(up) == "add 1 more card: 2 in layer split"
    ram = next(o for o in plan.short if o.kind == "more_ram_channels")
    assert ram.change.part is not None and ram.change.host_bandwidth_before_gbps == HW["rtx-4090"].host_bandwidth_gbps
    assert option_description(ram) == (
        f"move the card to {ram.change.part}: system RAM "
        f"{HW['rtx-4090'].host_bandwidth_gbps:,.0f} → "
        f"{ram.change.part_bandwidth_gbps:,.0f} GB/s"
    )
    assert ram.machine.hardware.host_bandwidth_gbps == ram.change.part_bandwidth_gbps
    assert all(option_description(o) == o.machine.label for o in plan.cheapest)


def test_upgrade_kinds_by_machine_class() -> None:
    singles = [m for m in catalog_machines(HW.values()) if m.devices == 1]
    cpu = {k for k, *_ in upgrade_candidates(machine_from_entry(HW["desktop-ddr5-5600-2ch-64gb"]), singles)}
    assert cpu == {"more_ram_channels", "add_gpu"}
    mac = upgrade_candidates(machine_from_entry(HW["m4-pro-20c-48gb"]), singles)
    assert {k for k, *_ in mac} == {"bigger_machine"}
    assert all(m.hardware.memory_gb > 48 or m.hardware.bandwidth_gbps > 273 for _, m, _, _ in mac)
    gpu = upgrade_candidates(machine_from_entry(HW["rtx-3090"]), singles)
    ram = [m for k, m, _, _ in gpu if k == "more_ram_channels"]
    assert ram and all(m.hardware.host_bandwidth_gbps > 80 and m.hardware.memory_gb == 24 for m in ram)


def test_setup_round_trip_and_unique_labels() -> None:
    m = machine_from_entry(HW["rtx-3090"], 2)
    setup = CompareSetup(machines=(m,), model=to_model(CAT.models["llama-3.3-70b"]), budget_usd=2500)
    assert CompareSetup.model_validate_json(setup.model_dump_json()) == setup
    with pytest.raises(ValidationError, match="unique"):
        CompareSetup(machines=(m, m))
    with pytest.raises(ValidationError):
        CompareSetup(machines=tuple(m.model_copy(update={"label": str(i)}) for i in range(7)))
    with pytest.raises(ValidationError):
        Machine(label="x", hardware=m.hardware, price_usd=-5)


def test_each_row_carries_the_machines_published_record() -> None:
    base = Scenario(model=to_model(CAT.models["llama-3.1-8b"]), quant=to_quant(CAT.quants["q4_k_m"]))
    qs = pool(QUANTS, base.workload)
    m1 = compare_row(machine_from_entry(HW["m1-max-32c-64gb"]), base, MODELS, qs, CAT.published)
    # XiongjieDai's M1 Max: 12 runs (Llama 3 8B and 70B, Q4_K_M and F16), all slower than the model for them
    ratios = sorted(
        r.tok_s / r.model_tok_s for r in CAT.published if r.hardware_id == "m1-max-32c-64gb" and r.test == "tg"
    )
    assert m1.published_runs == 12 == len(ratios)
    assert m1.published_median == pytest.approx((ratios[5] + ratios[6]) / 2)
    assert (m1.published_low, m1.published_high) == (ratios[0], ratios[-1])
    assert table_cells(m1, base.workload.interactive_tok_s)["published"] == f"{m1.published_median:.2f} (12 runs)"
    assert published_tip(m1).endswith(f"(median, from {ratios[0]:.2f} to {ratios[-1]:.2f})")
    # a machine with no published runs, or no catalog id (an edited copy), says so with a dash
    none = compare_row(machine_from_entry(HW["rtx-5080"]), base, MODELS, qs, CAT.published)
    edited = compare_row(
        machine_from_entry(HW["m1-max-32c-64gb"]).model_copy(update={"catalog_id": None}),
        base,
        MODELS,
        qs,
        CAT.published,
    )
    assert none.published_runs == edited.published_runs == 0
    threshold = base.workload.interactive_tok_s
    assert table_cells(none, threshold)["published"] == table_cells(edited, threshold)["published"] == "—"
    # two cards of a kind are their own machine: 2x RTX 3090 runs from the May 2024 table
    pair = compare_row(with_devices(machine_from_entry(HW["rtx-3090"]), 2), base, MODELS, qs, CAT.published)
    assert pair.published_runs == sum(
        1 for r in CAT.published if r.hardware_id == "rtx-3090" and r.devices == 2 and r.test == "tg"
    )
    assert pair.published_runs > 0
