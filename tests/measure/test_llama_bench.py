"""llama-bench parsing on real outputs (tests/measure/fixtures/README.md names the sources)."""

from __future__ import annotations

import pytest

from advisor.measure.llama_bench import BenchError, parse_llama_bench, typed_row
from tests.measure.conftest import fixture_text

GIB = 2.0**30


def test_markdown_depth_sweep_dgx_spark() -> None:
    rows = parse_llama_bench(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    assert len(rows) == 10
    tg = [r for r in rows if r.test == "tg"]
    pp = [r for r in rows if r.test == "pp"]
    assert [r.depth for r in tg] == [0, 4096, 8192, 16384, 32768]
    assert [r.tok_s for r in tg] == [29.30, 28.27, 27.42, 25.93, 22.70]
    assert all(r.gen == 32 and r.prompt == 0 for r in tg)
    assert all(r.prompt == 2048 and r.gen == 0 for r in pp)
    first = rows[0]
    assert first.label == "pp2048" and first.tok_s == 2276.28 and first.stddev == 4.92
    assert first.ngl == 99 and first.n_ubatch == 2048 and first.backend == "CUDA"
    assert first.model == "qwen2 7B Q8_0"
    assert first.size_bytes == pytest.approx(7.54 * GIB)
    assert first.params == pytest.approx(7.62e9)
    assert first.bits_per_weight == pytest.approx(7.54 * GIB * 8 / 7.62e9)
    assert rows[-1].label == "tg32 @ d32768" and rows[-1].line == 14  # the line in the pasted text
    assert all(r.flash_attn for r in rows)  # its `fa` column says 1


def test_markdown_old_spelling_and_two_models() -> None:
    rows = parse_llama_bench(fixture_text("readme_text_generation.md"))
    assert [(r.model, r.gen, r.tok_s) for r in rows[:3]] == [
        ("llama 7B mostly Q4_0", 128, 132.19),
        ("llama 7B mostly Q4_0", 256, 129.37),
        ("llama 7B mostly Q4_0", 512, 123.83),
    ]
    assert rows[3].params == pytest.approx(13.02e9) and rows[3].tok_s == 82.17
    assert all(r.test == "tg" and r.depth == 0 for r in rows)


def test_markdown_cpu_threads_without_ngl() -> None:
    rows = parse_llama_bench(fixture_text("readme_threads_cpu.md"))
    assert len(rows) == 12
    assert all(r.ngl is None and r.backend == "CPU" for r in rows)
    assert [(r.threads, r.label, r.tok_s) for r in rows[:2]] == [(1, "pp64", 6.17), (1, "tg16", 4.05)]
    assert rows[-1].threads == 32 and rows[-1].tok_s == 16.41


def test_markdown_ngl_sweep_and_depth_spelling() -> None:
    rows = parse_llama_bench(fixture_text("readme_ngl_sweep.md"))
    assert [r.ngl for r in rows if r.test == "tg"] == [10, 20, 30, 31, 32, 33, 34, 35]
    assert rows[-1].tok_s == 131.66
    depth = parse_llama_bench(fixture_text("readme_depth.md"))
    assert [(r.label, r.depth, r.tok_s) for r in depth] == [
        ("pp512", 0, 7340.20),
        ("tg128", 0, 120.60),
        ("pp512 @ d512", 512, 6425.91),
        ("tg128 @ d512", 512, 116.71),
    ]


@pytest.mark.parametrize("name", ["readme_rtx4080.json", "readme_rtx4080.jsonl", "readme_rtx4080.csv"])
def test_machine_readable_outputs(name: str) -> None:
    rows = parse_llama_bench(fixture_text(name))
    assert [r.test for r in rows] == ["pp", "tg"]
    pp, tg = rows
    assert pp.prompt == 512 and pp.gen == 0 and tg.gen == 128 and tg.prompt == 0
    assert pp.size_bytes == 4677120000 and pp.params == 7615616512
    assert pp.ngl == 99 and pp.model == "qwen2 7B Q4_K - Medium" and pp.kv_type == "f16"
    assert pp.n_batch == 2048 and pp.n_ubatch == 512 and pp.threads == 8 and pp.backend == "CUDA"
    assert pp.flash_attn is False and tg.flash_attn is False  # "flash_attn": false / 0
    expected = {
        "readme_rtx4080.json": (7100.002165, 118.881588),
        "readme_rtx4080.jsonl": (7263.609157, 119.844681),
        "readme_rtx4080.csv": (7285.676949, 119.915244),
    }[name]
    assert (pp.tok_s, tg.tok_s) == expected


def test_json_rows_know_their_lines() -> None:
    rows = parse_llama_bench(fixture_text("readme_rtx4080.json"))
    assert [r.line for r in rows] == [2, 39]


def test_surrounding_text_and_other_tables_are_skipped() -> None:
    text = (
        "ggml_cuda_init: found 1 CUDA devices:\n"
        "|    PP |     TG |    B |   N_KV |\n|-------|--------|------|--------|\n"
        "|   512 |     32 |    1 |    544 |\n\n" + fixture_text("readme_depth.md") + "\nbuild: 2f68ce7cf (6918)\n"
    )
    assert len(parse_llama_bench(text)) == 4


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello world\nthis is not a benchmark", "line 1: not a llama-bench table row or JSON: 'hello world'"),
        ("", "nothing to read"),
        ("| model | test | t/s |\n|---|---|---|\n| m | tg128 | fast |", "line 3: t/s 'fast' is not a number"),
        ("| model | test | t/s |\n|---|---|---|\n| m | xx128 | 3.0 |", "line 3: test 'xx128' is not ppN, tgN"),
        ("| model | test | t/s |\n|---|---|---|\n| m | tg128 |", "line 3: 2 cells, but the header on line 1 has 3"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "no llama-bench results found"),
        ('[{"avg_ts": 12.5, "n_gen": 128}]', "line 1 (result 1): missing 'n_prompt'"),
        ('[\n  {"avg_ts": 12.5,\n', "line 3: not valid JSON"),
        ('{"avg_ts": 1, "n_prompt": 0, "n_gen": 16}\n{"avg_ts": 2, "n_prompt": 0\n', "line 2: not a JSON object"),
        ('{"avg_ts": "x", "n_prompt": 0, "n_gen": 16}', "line 1: 'avg_ts' is 'x', not a number"),
    ],
)
def test_garbage_names_the_line(text: str, message: str) -> None:
    with pytest.raises(BenchError) as err:
        parse_llama_bench(text)
    assert message in str(err.value)


def test_jsonl_garbage_after_good_lines_names_that_line() -> None:
    good = fixture_text("readme_rtx4080.jsonl").splitlines()[0]
    with pytest.raises(BenchError, match=r"^line 3: not a JSON object"):
        parse_llama_bench(good + "\n\nnot json at all\n")


def test_typed_row() -> None:
    row = typed_row(42.5, 8192)
    assert (row.test, row.depth, row.gen, row.tok_s, row.source) == ("tg", 8192, 0, 42.5, "typed")
    with pytest.raises(BenchError):
        typed_row(0.0, 100)


def test_a_table_without_an_fa_column_does_not_say() -> None:
    """llama-bench prints `fa` only when -fa differs from its default, and the default changed (off until
    mid-2026, auto since): without the column the row does not say."""
    assert all(r.flash_attn is None for r in parse_llama_bench(fixture_text("readme_depth.md")))
