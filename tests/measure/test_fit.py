"""Fitting the user's η: it recovers a known η, means exactly η × ceiling, and says what it skipped."""

from __future__ import annotations

import dataclasses
import statistics

import pytest

from advisor.core.evaluate import evaluate
from advisor.core.scenario import Scenario
from advisor.measure.fit import FitError, fit_eta, predict, prediction_change, row_scenario
from advisor.measure.llama_bench import BenchRow, parse_llama_bench, typed_row
from tests.measure.conftest import catalog_scenario, fixture_text

DEPTHS = (0, 4096, 8192, 16384, 32768)


def synthetic(base: Scenario, eta: float, compute_eta: float, ngl: int | None = 99) -> list[BenchRow]:
    """Rows whose tok/s are the core's own figures at a known η (tg) and compute η (pp)."""
    rows = []
    for d in DEPTHS:
        for template, which, value in (
            (BenchRow("tg", 0, 32, d, 1.0, ngl=ngl), "decode", eta),
            (BenchRow("pp", 2048, 0, d, 1.0, ngl=ngl), "prefill", compute_eta),
        ):
            s = row_scenario(base, template)
            data = s.model_dump()
            data["workload"]["efficiency" if which == "decode" else "compute_efficiency"] = value
            rows.append(dataclasses.replace(template, tok_s=predict(Scenario.model_validate(data), which)))
    return rows


def test_recovers_a_known_eta(spark_qwen: Scenario) -> None:
    fit = fit_eta(spark_qwen, synthetic(spark_qwen, 0.73, 0.41))
    assert fit.decode is not None and fit.prefill is not None
    assert fit.decode.eta == pytest.approx(0.73, abs=1e-9)
    assert fit.prefill.eta == pytest.approx(0.41, abs=1e-9)
    assert fit.decode.n == 5 and fit.prefill.n == 5
    assert fit.decode.std == pytest.approx(0.0, abs=1e-9)
    assert fit.decode.max_abs_residual == pytest.approx(0.0, abs=1e-9)
    assert not fit.skipped


def test_recovers_eta_with_layers_in_host_memory() -> None:
    """Partial offload is not proportional to η (host layers read at the host η): bisection still finds it."""
    base = catalog_scenario("rtx-4060-ti-8gb", "llama-3.1-8b", "q8_0")  # 8.5 GB of weights on an 8 GB card
    rows = synthetic(base, 0.62, 0.5, ngl=20)
    fit = fit_eta(base, rows)
    assert fit.decode is not None
    assert fit.decode.eta == pytest.approx(0.62, abs=1e-6)
    r = fit.decode.rows[0]
    assert r.row.tok_s / r.ceiling > 0.62  # measured ÷ ceiling is not η when the host pool takes part


def test_noisy_rows_give_the_mean_implied_eta_and_its_spread(spark_qwen: Scenario) -> None:
    rows = [r for r in synthetic(spark_qwen, 0.8, 0.3) if r.test == "tg"]
    factors = (0.95, 1.05, 1.0, 0.98, 1.02)
    noisy = [dataclasses.replace(r, tok_s=r.tok_s * f) for r, f in zip(rows, factors, strict=True)]
    fit = fit_eta(spark_qwen, noisy)
    assert fit.decode is not None and fit.prefill is None
    implied = [0.8 * f for f in factors]
    assert fit.decode.eta == pytest.approx(sum(implied) / 5, rel=1e-9)
    assert (fit.decode.low, fit.decode.high) == (pytest.approx(0.76), pytest.approx(0.84))
    assert fit.decode.std == pytest.approx(statistics.stdev(implied), rel=1e-9)  # 0.0305


def test_the_kept_calibration_sits_on_the_fitted_model(spark_qwen: Scenario) -> None:
    fit = fit_eta(spark_qwen, parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md")))
    assert fit.decode is not None and fit.terms is not None
    row = fit.decode.rows[0]  # tg32 at depth 0
    s = row_scenario(spark_qwen, row.row)
    applied = evaluate(fit.apply(s))
    shipped = evaluate(s)
    # the fitted fixed time and unpacking stay: the figure is not η × ceiling for any plain η fitted
    assert applied.decode_tok_s != pytest.approx(fit.decode.eta * applied.decode_ceiling_tok_s, rel=1e-3)
    # and it moves from the fitted model toward the run, by the fitted factor
    measured, before, after = row.row.tok_s, shipped.decode_tok_s, applied.decode_tok_s
    assert abs(measured / after - 1) < abs(measured / before - 1)
    assert fit.terms.decode_runs == 5 and fit.terms.prefill_runs == 5 and 0.5 < fit.terms.decode_factor < 2


def test_real_depth_sweep_on_dgx_spark(spark_qwen: Scenario) -> None:
    fit = fit_eta(spark_qwen, parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md")))
    assert fit.decode is not None and fit.prefill is not None
    # 8.10 GB of Q8_0 weights stored, 7.52 GB read at 273 GB/s: a 36.4 tok/s ceiling, 29.30 measured.
    # weights read: all but the untied input table (152,064 × 3,584), of which a token reads one row
    assert fit.decode.rows[0].ceiling == pytest.approx(273 / ((7.62 - 0.545) * 8.5 / 8), rel=0.01)
    assert fit.decode.rows[0].implied_eta == pytest.approx(29.30 / fit.decode.rows[0].ceiling, rel=1e-9)
    assert fit.decode.eta == pytest.approx(0.798, abs=0.005)
    assert fit.decode.max_abs_residual < 0.05
    assert fit.prefill.eta == pytest.approx(0.29, abs=0.01)
    assert not fit.notes  # llama-bench's 7.54 GiB file matches the scenario's 8.10 GB of weights


def test_prediction_change(spark_qwen: Scenario) -> None:
    fit = fit_eta(spark_qwen, [typed_row(30.0, spark_qwen.workload.context)])
    change = prediction_change(spark_qwen, fit)
    assert change.after.decode_tok_s == pytest.approx(30.0, rel=1e-6)  # the typed figure, for this very scenario
    assert change.before.decode_tok_s == evaluate(spark_qwen).decode_tok_s
    assert change.decode_change == pytest.approx(30.0 / change.before.decode_tok_s - 1, rel=1e-6)
    assert fit.decode is not None and fit.decode.n == 1 and "one point" in fit.decode.summary()


def test_other_models_and_combined_tests_are_skipped(spark_qwen: Scenario) -> None:
    rows = parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    other = parse_llama_bench(fixture_text("dgx_spark_gpt_oss_120b.md"))
    pg = BenchRow("pg", 512, 128, 0, 100.0)
    fit = fit_eta(spark_qwen, rows + other + [pg])
    assert fit.decode is not None and fit.decode.n == 5
    reasons = [why for _, why in fit.skipped]
    assert len(reasons) == 11
    assert "ran a 116.83 B model (gpt-oss 120B MXFP4 MoE)" in reasons[0]
    assert any("pp+tg" in why for why in reasons)
    with pytest.raises(FitError, match="ran a 116.83 B model"):
        fit_eta(spark_qwen, other)


def test_faster_than_the_ceiling_keeps_eta_at_one(spark_qwen: Scenario) -> None:
    fit = fit_eta(spark_qwen, [typed_row(60.0, 0)])
    assert fit.decode is not None
    assert fit.decode.eta == 1.0 and fit.decode.clipped and fit.decode.raw_eta > 1.5
    text = fit.decode.summary()
    assert "the table's machine or model may differ from the scenario's" in text and "> 1" not in text


def test_cpu_backend_on_a_gpu_is_not_fitted() -> None:
    base = catalog_scenario("rtx-4090", "llama-3.1-8b", "q4_0")
    with pytest.raises(FitError, match="CPU-only build"):
        fit_eta(
            base,
            [
                dataclasses.replace(r, params=8.03e9, size_bytes=None)
                for r in parse_llama_bench(fixture_text("readme_threads_cpu.md"))
            ],
        )


def test_a_table_of_another_file_size_is_refused(spark_qwen: Scenario) -> None:
    data = spark_qwen.model_dump()
    data["quant"] = {"name": "Q4_K_M", "bits_per_weight": 4.89}
    with pytest.raises(FitError, match=r"ran a 7.54 GiB file \(qwen2 7B Q8_0\).*at Q4_K_M is 4.33 GiB"):
        fit_eta(Scenario.model_validate(data), parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md")))


def test_points_for_the_entry(spark_qwen: Scenario) -> None:
    fit = fit_eta(spark_qwen, parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md")))
    points = fit.points("qwen2.5-coder-7b", "q8_0")
    assert len(points) == 10
    assert points[0] == {
        "test": "tg",
        "prompt": 0,
        "gen": 32,
        "depth": 0,
        "tok_s": 29.30,
        "model_id": "qwen2.5-coder-7b",
        "quant_id": "q8_0",
    }


def test_nothing_to_fit(spark_qwen: Scenario) -> None:
    with pytest.raises(FitError, match="no measurements"):
        fit_eta(spark_qwen, [])


def test_long_rows_without_flash_attention_are_noted(spark_qwen: Scenario) -> None:
    rows = parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    # pp2048 and every row at depth 4096 or more: over 2k tokens of context.
    assert sum(1 for r in rows if r.depth + r.prompt + r.gen > 2048) == 8
    off = [dataclasses.replace(r, flash_attn=False) for r in rows]
    notes = fit_eta(spark_qwen, off).notes
    assert len(notes) == 1 and notes[0].startswith("8 of these rows ran without flash attention")
    assert "-fa 1" in notes[0]
    unknown = [dataclasses.replace(r, flash_attn=None) for r in rows]
    notes = fit_eta(spark_qwen, unknown).notes
    assert len(notes) == 1 and notes[0].startswith("8 of these rows at more than 2k tokens of context do not say")
    assert not fit_eta(spark_qwen, rows).notes  # its fa column says 1
    assert row_scenario(spark_qwen, off[1]).workload.flash_attention is False
    assert row_scenario(spark_qwen, rows[1]).workload.flash_attention is True
    assert row_scenario(spark_qwen, unknown[1]).workload.flash_attention is spark_qwen.workload.flash_attention


def band_text(s: Scenario) -> str:
    return next(step.text for step in evaluate(s).steps if step.label == "Band")


def test_the_band_step_names_your_runs_for_the_measured_model_only(spark_qwen: Scenario) -> None:
    assert "in the validation" in band_text(spark_qwen)
    fit = fit_eta(spark_qwen, parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md")))
    assert fit.terms is not None and fit.terms.decode_runs == 5
    calibrated = fit.apply(spark_qwen)
    text = band_text(calibrated)
    assert "from your 5 runs on this machine" in text and "in the validation" not in text
    # another quant of the model is another model to the calibration: its band is the validation's
    data = calibrated.model_dump()
    data["quant"] = {"name": "Q4_K_M", "bits_per_weight": 4.89}
    assert "in the validation" in band_text(Scenario.model_validate(data))
