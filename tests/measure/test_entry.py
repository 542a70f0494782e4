"""The user's entry: a "-mine" copy with the fitted η and points, saved and loaded like any custom entry."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from advisor.catalog.loader import load_catalog, load_shipped
from advisor.catalog.schema import HardwareEntry
from advisor.catalog.user_store import save_entry
from advisor.core.scenario import Scenario
from advisor.measure.entry import apply_measured, measured_entry, measured_xy, mine_id
from advisor.measure.fit import fit_eta
from advisor.measure.llama_bench import parse_llama_bench
from advisor.session import Session
from tests.measure.conftest import fixture_text


def spark_entry(spark_qwen: Scenario) -> HardwareEntry:
    fit = fit_eta(spark_qwen, parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md")))
    base = load_catalog(None).hardware["dgx-spark"]
    return measured_entry(
        base,
        spark_qwen.hardware,
        fit,
        model_id="qwen2.5-coder-7b",
        quant_id="q8_0",
        when="2025-11-02",
        model_name="Qwen2.5-Coder 7B Q8_0",
    )


def test_mine_id() -> None:
    assert mine_id("dgx-spark", "x") == "dgx-spark-mine"
    assert mine_id("dgx-spark-mine", "x") == "dgx-spark-mine"
    assert mine_id(None, "My Box (2x 3090)") == "my-box-2x-3090-mine"
    assert len(mine_id("a" * 80, "x")) == 80


def test_measured_entry(spark_qwen: Scenario) -> None:
    e = spark_entry(spark_qwen)
    assert e.id == "dgx-spark-mine" and e.name == "NVIDIA DGX Spark (GB10, 128 GB) (mine)"
    assert e.measured_eta is None and e.measured_compute_eta is None
    assert e.measured is not None and e.measured.decode_runs == 5 and e.measured.prefill_runs == 5
    assert e.bandwidth_gbps == 273.0 and e.vendor == "NVIDIA" and e.price_usd == 3999
    assert e.source.startswith("Measured by you with llama-bench on 2025-11-02 with Qwen2.5-Coder 7B Q8_0; figures")
    assert len(e.measured_points) == 10
    assert e.measured_points[0].tok_s == 29.30 and e.measured_points[0].model_id == "qwen2.5-coder-7b"


def test_saved_entry_loads_back(spark_qwen: Scenario, tmp_path: Path) -> None:
    save_entry("hardware", spark_entry(spark_qwen), tmp_path)
    cat = load_catalog(tmp_path)
    assert not cat.problems and not cat.shadowed  # a copy beside the shipped entry, never shadowing it
    mine = cat.hardware["dgx-spark-mine"]
    assert "hardware/dgx-spark-mine" in cat.user_ids and "dgx-spark" in cat.hardware
    assert mine.measured_eta == spark_entry(spark_qwen).measured_eta


def test_schema_keeps_shipped_entries_valid_and_bounds_eta() -> None:
    shipped = load_shipped()
    assert not shipped.problems
    assert all(e.measured_eta is None and not e.measured_points for e in shipped.hardware.values())
    data = shipped.hardware["rtx-4090"].model_dump()
    with pytest.raises(ValidationError):
        HardwareEntry.model_validate({**data, "measured_eta": 1.2})
    with pytest.raises(ValidationError):
        HardwareEntry.model_validate({**data, "measured_points": [{"test": "tg", "tok_s": -1}]})


def test_apply_measured(spark_qwen: Scenario) -> None:
    mine = spark_entry(spark_qwen)
    shipped = load_catalog(None).hardware
    w = spark_qwen.workload.model_dump()
    picked = apply_measured(w, shipped["dgx-spark"], mine)
    assert picked["efficiency"] == mine.measured_eta and picked["compute_efficiency"] == mine.measured_compute_eta
    away = apply_measured(picked, mine, shipped["rtx-4090"])  # the measured η does not follow onto another GPU
    assert away["efficiency"] is None and away["compute_efficiency"] is None
    own = apply_measured({**picked, "efficiency": 0.5}, mine, shipped["rtx-4090"])  # one the user typed stays
    assert own["efficiency"] == 0.5 and own["compute_efficiency"] is None


def test_measured_xy(spark_qwen: Scenario, tmp_path: Path) -> None:
    save_entry("hardware", spark_entry(spark_qwen), tmp_path)
    cat = load_catalog(tmp_path)
    session = Session(scenario=spark_qwen, hardware_id="dgx-spark-mine", model_id="qwen2.5-coder-7b", quant_id="q8_0")
    xs, ys = measured_xy(cat, session)
    assert xs == [16, 4112, 8208, 16400, 32784]  # depth + tg32 / 2
    assert ys == [29.30, 28.27, 27.42, 25.93, 22.70]
    assert measured_xy(cat, session.model_copy(update={"model_id": "llama-3.1-8b"})) == ([], [])
    assert measured_xy(cat, session.model_copy(update={"hardware_id": "dgx-spark"})) == ([], [])
    assert measured_xy(None, session) == ([], [])
