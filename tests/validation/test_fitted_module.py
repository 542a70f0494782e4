"""advisor/core/fitted.py is generated: the refit script's text of the committed calibration is the file,
byte for byte, and calibration.py holds no fitted values of its own."""

from __future__ import annotations

from types import ModuleType

import pytest

from advisor.core import fitted
from advisor.core.calibration import CALIBRATION, FLAT
from tests import fitted_ranges as r
from tests.fitted_ranges import within
from tests.scripts import ROOT, load

FITTED_PY = ROOT / "advisor" / "core" / "fitted.py"


@pytest.fixture(scope="module")
def validate() -> ModuleType:
    return load(ROOT / "benchmarks" / "validate.py", "validate_script")


def test_the_generator_reproduces_the_committed_module(validate: ModuleType) -> None:
    text = validate.fitted_module_text(CALIBRATION, CALIBRATION.notes)
    assert text == FITTED_PY.read_bytes().decode("utf-8")
    assert validate.FITTED_PY == FITTED_PY


def test_the_module_says_it_is_generated_and_holds_only_the_fitted_names() -> None:
    text = FITTED_PY.read_text(encoding="utf-8")
    assert "benchmarks/validate.py --write" in text.split('"""')[1]
    public = {n for n in vars(fitted) if n.isupper()}
    assert public and all(n.startswith("FITTED_") for n in public)


def test_the_calibration_is_the_flat_defaults_with_the_fitted_groups_on_top() -> None:
    assert CALIBRATION.terms == {**FLAT.terms, **fitted.FITTED_TERMS}
    assert all(t.fitted for t in fitted.FITTED_TERMS.values())
    assert CALIBRATION.notes == fitted.FITTED_NOTES
    assert CALIBRATION.machines == fitted.FITTED_MACHINES and CALIBRATION.generations == fitted.FITTED_GENERATIONS
    assert "FITTED: begin" not in (ROOT / "advisor" / "core" / "calibration.py").read_text(encoding="utf-8")


def test_every_fitted_constant_lies_in_its_plausible_range() -> None:
    """What a refit may change and what it may not: the digits move, the physics stays (tests/fitted_ranges.py)."""
    assert any(t.fitted for t in CALIBRATION.terms.values())
    for group, t in CALIBRATION.terms.items():
        if not t.fitted:
            continue
        d, p = t.decode, t.prefill
        assert within(d.eta, r.ETA) and within(d.token_ms, r.TOKEN_MS) and within(d.kv_factor, r.KV_FACTOR), group
        assert 0 <= d.stream_cost <= r.STREAM_COST_MAX and 0 <= d.dequant_flop <= r.DEQUANT_FLOP_MAX, group
        assert within(d.band[0], r.BAND_LOW) and within(d.band[1], r.BAND_HIGH), group
        assert within(p.eta, r.PREFILL_ETA), group
        assert all(within(f, r.PREFILL_FACTOR) for f in (p.quant_factor, p.moe_factor)), group
        assert within(p.attn_factor, r.ATTN_FACTOR), group
        assert t.rows > 0, group
    assert within(CALIBRATION.host_eta, r.HOST_ETA) and within(CALIBRATION.expert_spread, r.EXPERT_SPREAD)
    assert within(CALIBRATION.unfused_attn_eta, r.UNFUSED_ATTN_ETA) and within(CALIBRATION.moe_token, r.MOE_TOKEN)
    assert within(CALIBRATION.cpu_attn_gbps, r.CPU_ATTN_GBPS)
    assert (
        within(CALIBRATION.fused_attn_eta, r.FUSED_ATTN_ETA)
        and CALIBRATION.fused_attn_eta > CALIBRATION.unfused_attn_eta
    )
    assert CALIBRATION.era_token and all(within(f, r.ERA_TOKEN) for f in CALIBRATION.era_token.values())
    for b, bt in CALIBRATION.backends.items():
        assert within(bt.decode, r.FACTOR) and within(bt.prefill, r.FACTOR) and bt.rows > 0, b
    for table in (CALIBRATION.machines, CALIBRATION.generations):
        assert table and all(within(mt.decode, r.FACTOR) and mt.rows > 0 for mt in table.values())
