"""A table of another model than the scenario's: which catalog model and quant it ran, so the dialog can
offer to switch; the switch always makes the table fit."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.catalog.convert import to_model, to_quant
from advisor.catalog.loader import load_catalog
from advisor.core.scenario import Scenario
from advisor.measure.fit import FitError, fit_eta, model_mismatch
from advisor.measure.llama_bench import BenchRow, parse_llama_bench
from advisor.measure.switch import quant_id_of, switch_offer, table_model
from tests.measure.conftest import catalog_scenario, fixture_text

CATALOG = load_catalog(None)
QWEN_Q8 = "dgx_spark_qwen2.5_coder_7b_q8_0.md"


def offer_for(s: Scenario, rows: list[BenchRow], model_id: str):  # type: ignore[no-untyped-def]
    return switch_offer(s, rows, CATALOG.models, CATALOG.quants, model_id)


def switched(s: Scenario, model_id: str, quant_id: str) -> Scenario:
    data = s.model_dump()
    data["model"] = to_model(CATALOG.models[model_id]).model_dump()
    data["quant"] = to_quant(CATALOG.quants[quant_id]).model_dump()
    return Scenario.model_validate(data)


@pytest.mark.parametrize(
    ("file_type", "quant_id"),
    [
        ("Q8_0", "q8_0"),
        ("Q4_K - Medium", "q4_k_m"),
        ("Q5_K - Small", "q5_k_s"),
        ("Q3_K - Large", "q3_k_l"),
        ("Q2_K - Medium", "q2_k"),
        ("IQ4_XS - 4.25 bpw", "iq4_xs"),
        ("IQ3_S mix - 3.66 bpw", "iq3_m"),
        ("MXFP4 MoE", "mxfp4"),
        ("all F32", "f32"),
        ("mostly Q4_0", "q4_0"),
        ("BF16 (guessed)", "bf16"),
        ("", None),
    ],
)
def test_llama_cpp_file_type_names_read_as_catalog_quants(file_type: str, quant_id: str | None) -> None:
    assert quant_id_of(file_type) == quant_id
    if quant_id is not None:
        assert quant_id in CATALOG.quants


def test_the_label_gives_architecture_size_and_quant() -> None:
    row = parse_llama_bench(fixture_text("readme_depth.md"))[0]
    t = table_model(row)
    assert (t.arch, t.size, t.quant_id) == ("qwen2", "7B", "q4_k_m")
    assert "qwen2 7B Q4_K - Medium" in t.describe() and "7.62 B parameters" in t.describe()


def test_the_same_model_at_another_quant_switches_only_the_quant() -> None:
    s = catalog_scenario("dgx-spark", "qwen2.5-coder-7b", "q4_k_m")
    rows = parse_llama_bench(fixture_text(QWEN_Q8))
    with pytest.raises(FitError, match="7.54 GiB file"):
        fit_eta(s, rows)
    offer = offer_for(s, rows, "qwen2.5-coder-7b")
    assert offer is not None and offer.switch is not None
    sw = offer.switch
    assert (sw.model_id, sw.quant_id) == ("qwen2.5-coder-7b", "q8_0")
    assert sw.label == "Qwen2.5-Coder 7B Q8_0"
    assert "Qwen2.5 7B" in sw.also  # the same shape under another name
    assert "Qwen2.5-Coder 7B Q8_0" in offer.message()
    # switched, every row fits: the offer is exactly what the refusal asked for
    fit = fit_eta(switched(s, sw.model_id, sw.quant_id), rows)
    assert fit.decode is not None and fit.decode.n == 5 and not fit.skipped


def test_another_model_follows_the_printed_parameter_count_not_the_scenario() -> None:
    # Llama 3.1 8B (8.03 B) is within 10 % of the table's 7.62 B, but the table says qwen2 with 7.62 B
    s = catalog_scenario("dgx-spark", "llama-3.1-8b", "q4_k_m")
    rows = parse_llama_bench(fixture_text(QWEN_Q8))
    offer = offer_for(s, rows, "llama-3.1-8b")
    assert offer is not None and offer.switch is not None
    # Qwen2 7B, Qwen2.5 7B and Qwen2.5-Coder 7B share the shape and the count: any one, the others named
    twins = {"qwen2-7b", "qwen2.5-7b", "qwen2.5-coder-7b"}
    assert offer.switch.model_id in twins and offer.switch.quant_id == "q8_0"
    assert len(offer.switch.also) >= 1
    assert all(model_mismatch(switched(s, offer.switch.model_id, "q8_0"), r) is None for r in rows)


def test_a_moe_table_on_a_dense_scenario_switches_to_it() -> None:
    s = catalog_scenario("dgx-spark", "qwen2.5-coder-7b", "q8_0")
    rows = parse_llama_bench(fixture_text("dgx_spark_gpt_oss_120b.md"))
    offer = offer_for(s, rows, "qwen2.5-coder-7b")
    assert offer is not None and offer.switch is not None
    assert (offer.switch.model_id, offer.switch.quant_id) == ("gpt-oss-120b", "mxfp4")
    fit = fit_eta(switched(s, "gpt-oss-120b", "mxfp4"), rows)
    assert fit.decode is not None and fit.decode.n == 5


def test_the_scenarios_own_table_and_a_typed_figure_offer_nothing() -> None:
    s = catalog_scenario("dgx-spark", "qwen2.5-coder-7b", "q8_0")
    assert offer_for(s, parse_llama_bench(fixture_text(QWEN_Q8)), "qwen2.5-coder-7b") is None
    typed = BenchRow("tg", 0, 0, 4096, 30.0, source="typed")
    assert offer_for(s, [typed], "qwen2.5-coder-7b") is None


def test_a_cpu_build_is_refused_but_is_no_other_model() -> None:
    s = catalog_scenario("rtx-4090", "llama-3.1-8b", "q4_0")
    rows = [
        dataclasses.replace(r, params=8.03e9, size_bytes=None)
        for r in parse_llama_bench(fixture_text("readme_threads_cpu.md"))
    ]
    with pytest.raises(FitError, match="CPU-only build"):
        fit_eta(s, rows)
    assert offer_for(s, rows, "llama-3.1-8b") is None


def test_no_catalog_match_says_so() -> None:
    s = catalog_scenario("dgx-spark", "qwen2.5-coder-7b", "q8_0")
    assert not any(abs(m.total_params_b / 58.0 - 1) <= 0.10 for m in CATALOG.models.values())
    row = BenchRow("tg", 0, 128, 0, 5.0, model="llama 58B Q4_K - Medium", params=58.0e9, size_bytes=33.1 * 2**30)
    offer = offer_for(s, [row], "qwen2.5-coder-7b")
    assert offer is not None and offer.switch is None
    text = offer.message()
    assert "No catalog model and quant match" in text and "llama 58B Q4_K - Medium" in text and "58.00 B" in text


def test_a_file_type_the_catalog_lacks_is_no_match() -> None:
    # Q5_1 is not in the catalog: a quant of similar size would carry the wrong name
    assert "q5_1" not in CATALOG.quants
    s = catalog_scenario("dgx-spark", "llama-3.1-8b", "q8_0")
    row = BenchRow("tg", 0, 128, 0, 40.0, model="qwen2 7B Q5_1", params=7.62e9, size_bytes=5.3 * 2**30)
    offer = offer_for(s, [row], "llama-3.1-8b")
    assert offer is not None and offer.switch is None
