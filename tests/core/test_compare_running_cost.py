"""Running cost and break-even: the chain from power and throughput to dollars, against a hand-worked
example built on the seeds' serving example, and carried by the compare rows, CLI and words."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.comparison import compare
from advisor.core.machines import CompareSetup, machine_from_entry
from advisor.core.running_cost import S_PER_MONTH, CostInputs, running_cost
from advisor.core.scenario import Scenario
from advisor.present.compare_text import break_even_row_tip, comparison_data, cost_row_tip, table_cells

CAT = shipped_catalog()


def test_hand_worked_example() -> None:
    """The seeds' 70B FP16 on an H100-class pair at batch 8: 20.34 tok/s per stream × 8 = 162.7 tok/s.
    With two 700 W cards, $0.15/kWh, $60,000 over 3 years at 50 % use and an API at $10 per 1M, by hand:
    1400 ÷ 162.7 = 8.605 J/token; 8.605e6 ÷ 3.6e6 = 2.390 kWh per 1M → $0.3585; tokens a month
    162.7 × 2,629,800 × 0.5 = 213.9M; hardware 60,000 ÷ (213.9M × 36) = $7.79 per 1M → $8.15;
    break-even 60,000 ÷ (213.9 × (10 − 0.3585)) = 29.1 months."""
    k = CostInputs(electricity_usd_per_kwh=0.15, life_years=3, utilization=0.5, api_usd_per_million=10)
    rc = running_cost(162.7, 1400, 60_000, k)
    assert rc is not None
    assert rc.joules_per_token == pytest.approx(8.605, rel=1e-3)
    assert rc.usd_per_million_tokens == pytest.approx(0.3585, rel=1e-3)
    assert rc.million_tokens_per_month == pytest.approx(213.9, rel=1e-3)
    assert rc.usd_per_million_tokens_with_hardware == pytest.approx(8.149, rel=1e-3)
    assert rc.break_even_months == pytest.approx(29.09, rel=1e-3) and rc.pays_off


def test_relations_and_missing_inputs() -> None:
    k = CostInputs(api_usd_per_million=1.0)
    a, b = running_cost(50, 300, 2000, k), running_cost(100, 300, 2000, k)
    assert a and b and a.joules_per_token == pytest.approx(2 * (b.joules_per_token or 0))  # twice the tokens, half
    dear = running_cost(50, 300, 2000, k.model_copy(update={"electricity_usd_per_kwh": 0.34}))
    assert dear and dear.usd_per_million_tokens == pytest.approx(2 * (a.usd_per_million_tokens or 0))
    assert (dear.break_even_months or 0) > (a.break_even_months or 0)
    # more use pays the hardware off sooner and spreads it thinner
    busy = running_cost(50, 300, 2000, k.model_copy(update={"utilization": 1.0}))
    assert busy and (busy.usd_per_million_tokens_with_hardware or 0) < (a.usd_per_million_tokens_with_hardware or 0)
    assert (busy.break_even_months or 0) < (a.break_even_months or 0)
    assert running_cost(0, 300, 2000, k) is None
    no_power = running_cost(50, None, 2000, k)
    assert no_power and no_power.joules_per_token is None and no_power.break_even_months is None
    assert no_power.million_tokens_per_month == pytest.approx(50 * S_PER_MONTH * k.utilization / 1e6)
    # an API cheaper than the electricity never pays off
    cheap = running_cost(5, 450, 2000, CostInputs(api_usd_per_million=0.01))
    assert cheap and cheap.pays_off is False and cheap.break_even_months is None


def _comparison(costs: CostInputs) -> tuple[Scenario, object]:
    s = Scenario(model=to_model(CAT.models["qwen3-30b-a3b"]), quant=to_quant(CAT.quants["q4_k_m"]))
    machines = [machine_from_entry(CAT.hardware["rtx-3090"]), machine_from_entry(CAT.hardware["rtx-5090"])]
    return s, compare(machines, s, [], [], costs=costs)


def test_compare_rows_follow_power_and_price() -> None:
    k = CostInputs(api_usd_per_million=0.6)
    s, c = _comparison(k)
    for row in c.rows:  # type: ignore[attr-defined]
        tok_s = (row.decode_tok_s or 0) * s.workload.streams
        assert row.joules_per_token == pytest.approx((row.power_w or 0) / tok_s)
        rc = running_cost(tok_s, row.power_w, row.price_usd, k)
        assert rc and row.usd_per_million_tokens == pytest.approx(rc.usd_per_million_tokens)
        assert row.break_even_months == pytest.approx(rc.break_even_months)
        cells = table_cells(row, c.threshold_tok_s)  # type: ignore[attr-defined]
        assert cells["cost"].startswith("$") and "J per token" in cost_row_tip(row, c)  # type: ignore[arg-type]
        assert cells["break_even"] != "—" and "$0.60" in break_even_row_tip(row, c)  # type: ignore[arg-type]
    data = comparison_data(c)  # type: ignore[arg-type]
    assert data["costs"]["api_usd_per_million"] == 0.6
    assert all(r["usd_per_million_tokens"] > 0 and "joules_per_token" in r for r in data["rows"])
    # the setup saves the inputs with the comparison
    assert CompareSetup(costs=k).model_dump()["costs"]["api_usd_per_million"] == 0.6
