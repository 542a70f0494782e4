"""Physical lower bounds outside the scenario: the user's measured η and points, catalog prices and power,
comparison machines and published runs refuse values no real figure has, and the CLI names the field."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from advisor.catalog.loader import load_catalog
from advisor.cli import main
from advisor.core.machines import CompareSetup, Machine
from advisor.core.published import Published

TINY = 5e-324  # the smallest positive float: "greater than 0" lets it through


@pytest.mark.parametrize("value", ["5e-324", "1e-300", "0.5", "1e300"])
def test_bits_flag_is_named(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--bits", value]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("advisor: error: --bits:") and "name" not in err[0]


def test_bits_flag_in_range_still_names_the_quant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--bits", "4.5", "--json"]) == 0
    assert "4.50 bits" in capsys.readouterr().out


def _hardware_entry(**update: Any) -> dict[str, Any]:
    entry = load_catalog(None).hardware["rtx-4090"].model_dump()
    entry.update(id="rtx-4090-mine", **update)
    return entry


@pytest.mark.parametrize(
    "field", ["measured_eta", "measured_compute_eta", "memory_gb", "power_w", "price_usd", "used_price_usd"]
)
def test_catalog_hardware_fields_have_physical_minimums(field: str) -> None:
    from advisor.catalog.schema import HardwareEntry

    with pytest.raises(ValidationError) as info:
        HardwareEntry.model_validate(_hardware_entry(**{field: TINY}))
    assert info.value.errors()[0]["loc"] == (field,)
    HardwareEntry.model_validate(_hardware_entry(measured_eta=0.01, measured_compute_eta=1.0))


def test_measured_point_rate_has_a_minimum() -> None:
    from advisor.catalog.schema import MeasuredPoint

    with pytest.raises(ValidationError):
        MeasuredPoint(test="tg", gen=128, tok_s=TINY)
    assert MeasuredPoint(test="tg", gen=128, tok_s=0.5).tok_s == 0.5


@pytest.mark.parametrize("field", ["price_usd", "power_w"])
def test_machine_fields_have_physical_minimums(field: str) -> None:
    good = Machine(label="m", hardware=load_catalog(None).hardware["rtx-4090"])  # type: ignore[arg-type]
    data = good.model_dump()
    data[field] = TINY
    with pytest.raises(ValidationError):
        Machine.model_validate(data)


@pytest.mark.parametrize("field", ["budget_usd", "target_tok_s", "target_ttft_s", "take_max_price_usd"])
def test_compare_setup_fields_have_physical_minimums(field: str) -> None:
    with pytest.raises(ValidationError) as info:
        CompareSetup.model_validate({field: TINY})
    assert info.value.errors()[0]["loc"] == (field,)


@pytest.mark.parametrize("field", ["params_b", "bits", "tok_s"])
def test_published_fields_have_physical_minimums(field: str) -> None:
    run = load_catalog(None).published[0].model_dump()
    Published.model_validate(run)
    run[field] = TINY
    with pytest.raises(ValidationError) as info:
        Published.model_validate(run)
    assert info.value.errors()[0]["loc"] == (field,)
