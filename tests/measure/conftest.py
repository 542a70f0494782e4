from __future__ import annotations

from pathlib import Path

import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import load_catalog
from advisor.core.scenario import Scenario

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def catalog_scenario(hardware: str, model: str, quant: str) -> Scenario:
    c = load_catalog(None)
    return Scenario(
        hardware=to_hardware(c.hardware[hardware]), model=to_model(c.models[model]), quant=to_quant(c.quants[quant])
    )


@pytest.fixture
def spark_qwen() -> Scenario:
    """DGX Spark · Qwen2.5-Coder 7B · Q8_0: the scenario of the dgx_spark_qwen2.5_coder_7b_q8_0.md fixture."""
    return catalog_scenario("dgx-spark", "qwen2.5-coder-7b", "q8_0")
