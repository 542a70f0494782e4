"""Published measurements beside the estimate: matching, placement per plot, and the model for each run."""

from __future__ import annotations

import statistics

import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.fmt import num
from advisor.core.hardware import HardwareClass
from advisor.core.published import Published, Setup, comparison, machine_id, machine_record, placed, points
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import Engine
from advisor.validation.data import load_dataset
from advisor.validation.predict import predict

CAT = shipped_catalog()
ROWS = CAT.published


def setup(hw: str, model: str, quant: str, **work: object) -> Setup:
    s = Scenario(
        hardware=to_hardware(CAT.hardware[hw]),
        model=to_model(CAT.models[model]),
        quant=to_quant(CAT.quants[quant]),
        workload=Workload(**work),
    )
    return Setup(s, hw, model, quant)


def test_context_plot_gets_the_same_machine_model_and_quant_at_each_context() -> None:
    # XiongjieDai's May 2024 RTX 4090 table: Llama 3 8B Q4_K_M tg512/1024/4096/8192 (Llama 3 has Llama 3.1's shape)
    xs, ys = points(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m"), "context")
    assert xs == [256.0, 512.0, 2048.0, 4096.0]
    assert ys == [130.58, 127.74, 119.44, 110.66]


def test_model_size_plot_keeps_one_run_per_model_nearest_the_context() -> None:
    xs, ys = points(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m", context=512), "params")
    assert xs == [1.1, 8.03]  # TinyLlama (Vulkan, Dec 2025) and Llama 3 8B; 70B Q4_K_M ran on 2 cards
    assert ys == [762.37, 127.74]  # tg1024 (context 512) is the 8B run nearest 512


def test_multi_gpu_runs_match_only_as_many_devices() -> None:
    one = setup("rtx-3090", "llama-3.1-70b", "q4_k_m")
    assert points(ROWS, one, "context") == ([], [])
    two = Setup(
        one.scenario.model_copy(update={"hardware": one.scenario.hardware.model_copy(update={"devices": 2})}),
        "rtx-3090",
        "llama-3.1-70b",
        "q4_k_m",
    )
    xs, ys = points(ROWS, two, "context")
    assert xs == [256.0, 2048.0] and ys == [16.57, 15.36]  # measurements.csv lines 84-85


def test_nothing_matches_without_a_catalog_machine_or_with_another_engine() -> None:
    s = setup("rtx-4090", "llama-3.1-8b", "q4_k_m")
    assert points(ROWS, Setup(s.scenario, None, s.model_id, s.quant_id), "context") == ([], [])
    assert points(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m", engine=Engine.MLX), "context") == ([], [])
    assert points(ROWS, setup("rtx-4090", "llama-3.1-8b", "q8_0"), "context") == ([], [])


def test_a_scenario_with_layers_in_host_ram_is_not_the_published_setup() -> None:
    assert points(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m", gpu_layers=20), "context") == ([], [])
    assert len(points(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m", gpu_layers=32), "context")[0]) == 4


def test_a_users_measured_entry_is_its_machine() -> None:
    assert machine_id("rtx-4090-mine") == "rtx-4090"
    assert machine_id("rtx-4090") == "rtx-4090" and machine_id(None) is None


def test_batch_plot_per_stream_from_batched_bench_aggregates() -> None:
    # DGX Spark llama-batched-bench, gpt-oss-20b: aggregate S_TG ÷ B is drawn per stream
    xs, ys = points(ROWS, setup("dgx-spark", "gpt-oss-20b", "mxfp4", context=512), "batch")
    assert xs[:3] == [1.0, 2.0, 4.0] and len(xs) >= 5
    spark = [
        r
        for r in ROWS
        if r.hardware_id == "dgx-spark" and r.model_id == "gpt-oss-20b" and r.streams == 2 and r.depth == 512
    ]
    assert ys[1] == spark[0].tok_s and all(y2 < y1 for y1, y2 in zip(ys, ys[1:], strict=False))


def test_the_model_for_each_run_is_what_validate_predicts_for_that_row() -> None:
    data = load_dataset(CAT)
    cases = [
        c
        for c in data.cases
        if c.row.hardware_id == "rtx-4090"
        and c.row.model_name == "Meta Llama 3 8B"
        and c.row.quant == "q4_k_m"
        and c.row.gpus == 1
        and c.test == "tg"
    ]
    expected = {c.row.gen_tokens: float(p) for c, p in zip(cases, predict(cases), strict=True)}
    found, more = comparison(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m"))
    assert more == 0 and len(found) == 4
    for r in found:
        assert r.model_tok_s == pytest.approx(expected[r.tokens], abs=1e-4)
    # nearest context first; the 2024-05 build pays the era's fixed time, so the same row is slower than today
    assert [r.tokens for r in found] == [8192, 4096, 1024, 512]
    tg512 = found[-1]
    pct = round((tg512.model_tok_s / tg512.tok_s - 1) * 100)
    off_by = f"{pct:+d}" if pct else "±0"
    assert tg512.versus_model() == (
        "Meta Llama 3 8B tg512: measured 130.58 tok/s (CUDA, build 2024-05, flash "
        f"attention off); the model for that run {num(tg512.model_tok_s)} ({off_by}%)"
    )


def test_a_machine_record_pools_every_published_run_there() -> None:
    # XiongjieDai's M1 Max: 8B and 70B, Q4_K_M and F16, tg512-tg8192
    m1 = machine_record(ROWS, setup("m1-max-32c-64gb", "llama-3.1-8b", "q4_k_m"))
    runs = [r for r in ROWS if r.hardware_id == "m1-max-32c-64gb" and r.test == "tg"]
    mine = [r.tok_s / r.model_tok_s for r in runs]
    assert m1 is not None and m1.runs == len(runs) > 1 and m1.models == len({r.model_id or r.model for r in runs}) == 2
    assert (m1.low, m1.high) == (min(mine), max(mine))
    assert m1.median == pytest.approx(statistics.median(mine))
    # the model holds there as the fit says it holds on its class: the median inside the class's band
    lo, hi = CALIBRATION.get(HardwareClass.UNIFIED, Engine.LLAMA_CPP).decode.band
    assert lo <= m1.median <= hi
    assert m1.text().startswith(
        f"{m1.runs} published runs on this machine (2 models): measured ÷ model "
        f"{m1.low:.2f}–{m1.high:.2f}, median {m1.median:.2f}"
    )
    # any model and quant count, layers in host RAM too; another engine or machine does not
    assert machine_record(ROWS, setup("m1-max-32c-64gb", "qwen2.5-7b", "q8_0", gpu_layers=4)) == m1
    assert machine_record(ROWS, setup("m1-max-32c-64gb", "llama-3.1-8b", "q4_k_m", engine=Engine.MLX)) is None
    assert machine_record(ROWS, setup("rtx-5080", "llama-3.1-8b", "q4_k_m")) is None


def test_comparison_lists_at_most_the_limit_and_counts_the_rest() -> None:
    found, more = comparison(ROWS, setup("rtx-4090", "llama-3.1-8b", "q4_k_m"), limit=2)
    assert len(found) == 2 and more == 2


def test_a_row_states_its_test_as_llama_bench_names_it() -> None:
    r = Published(
        hardware_id="x",
        model="m",
        params_b=8,
        bits=4.5,
        engine=Engine.LLAMA_CPP,
        depth=4096,
        tokens=32,
        context=4112,
        tok_s=50,
        model_tok_s=55,
        source="https://example.org",
    )
    assert r.test_name() == "tg32 @ d4096"
    assert r.model_copy(update={"streams": 8, "depth": 0}).test_name() == "tg32, 8 streams"


def test_all_records_group_by_machine_devices_and_engine() -> None:
    from advisor.core.published import all_records

    entries = all_records(ROWS)
    decode = [r for r in ROWS if r.test == "tg"]  # a record is about decode; prefill runs are listed apart
    keys = {(r.hardware_id, r.devices, r.engine) for r in decode}
    assert len(entries) == len(keys) and sum(e.record.runs for e in entries) == len(decode)
    assert [e.record.runs for e in entries] == sorted((e.record.runs for e in entries), reverse=True)
    m1 = next(e for e in entries if e.hardware_id == "m1-max-32c-64gb")
    assert m1.record == machine_record(ROWS, setup("m1-max-32c-64gb", "llama-3.1-8b", "q4_k_m"))


def test_prefill_runs_of_the_setup_nearest_prompt_first() -> None:
    from advisor.core.published import published_view, same_prefill

    s = setup("rtx-4090", "llama-3.1-8b", "q4_k_m", prompt_tokens=4096)
    runs = same_prefill(ROWS, s)
    # XiongjieDai's May 2024 RTX 4090 table: pp512, pp1024, pp4096, pp8192 of Llama 3 8B Q4_K_M
    assert [r.prompt for r in runs] == [4096, 1024, 512, 8192] and all(r.test == "pp" for r in runs)
    assert runs[0].test_name() == "pp4096" and runs[0].model_tok_s > 0
    view = published_view(ROWS, s, limit=2)
    assert [r.prompt for r in view.prefill] == [4096, 1024] and all(r.test == "tg" for r in view.runs)
    # prefill runs never stand on the decode plots
    assert all(r.test == "tg" for _, r in placed(ROWS, s, "context"))


def test_a_run_within_half_a_percent_reads_plus_minus_zero() -> None:
    r = Published(
        hardware_id="x",
        model="m",
        params_b=8,
        bits=4.5,
        engine=Engine.LLAMA_CPP,
        depth=0,
        tokens=1024,
        context=512,
        tok_s=127.74,
        model_tok_s=127.3,
        source="https://example.org",
    )
    assert r.versus_model().endswith("the model for that run 127 (±0%)")
    assert r.model_copy(update={"model_tok_s": 124.9}).versus_model().endswith("(-2%)")
