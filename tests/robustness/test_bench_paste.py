"""Hostile llama-bench pastes: each is one BenchError (never another exception), quickly."""

from __future__ import annotations

import json
import time

import pytest

from advisor.measure.llama_bench import MAX_ROWS, BenchError, parse_llama_bench

CSV = "build_commit,model_type,n_prompt,n_gen,avg_ts\n"
HEAD = "| model | size | params | backend | ngl | test | t/s |\n| --- | --- | --- | --- | --- | --- | --: |\n"


def _md(test: str = "tg128", rate: str = "12.5 ± 0.1") -> str:
    return HEAD + f"| llama 8B Q4_K_M | 4.58 GiB | 8.03 B | CUDA | 99 | {test} | {rate} |\n"


def _record(**over: object) -> dict[str, object]:
    return {"avg_ts": 50.0, "n_prompt": 0, "n_gen": 128, "n_depth": 0, **over}


HOSTILE = {
    "5000-digit test name": _md(test="tg" + "9" * 5000),
    "12+-digit depth": _md(test="tg128 @ d" + "9" * 13),
    "1e999 tok/s": _md(rate="1e999"),
    "1e10 tok/s": _md(rate="1e10"),
    "huge rate digits": _md(rate="9" * 400),
    "a 200,000-character CSV field": CSV + '"' + "x" * 200_000 + '",m,0,128,5\n',
    "CSV 1e999": CSV + "abc,m,0,128,1e999\n",
    "CSV inf": CSV + "abc,m,0,128,inf\n",
    "deep JSON": "[" * 100_000 + "]" * 100_000,
    "deep JSON object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "JSON 1e999": json.dumps([_record()]).replace("50.0", "1e999"),
    "JSON NaN": json.dumps([_record()]).replace("50.0", "NaN"),
    "JSON huge int": json.dumps([_record()]).replace("128", "1" * 5000),
    "JSON list field": json.dumps([_record(avg_ts=[1])]),
    "JSON negative depth": json.dumps([_record(n_depth=-4)]),
    "JSON giant test": json.dumps([_record(n_gen=10**12)]),
    "jsonl deep line": json.dumps(_record()) + "\n" + "[" * 10_000 + "\n",
    f"{MAX_ROWS + 1} rows": json.dumps([_record(n_depth=i) for i in range(MAX_ROWS + 1)]),
    "10,000 markdown rows": HEAD
    + "".join(f"| m | 1 GiB | 1 B | CUDA | 99 | tg128 @ d{i} | 5.0 |\n" for i in range(10_000)),
    "5 MB paste": "x" * (5 << 20),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_one_message_in_bounded_time(name: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(BenchError) as info:
        parse_llama_bench(HOSTILE[name])
    assert time.perf_counter() - t0 < 2.0
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message


def test_the_limits_themselves_are_accepted() -> None:
    rows = parse_llama_bench(json.dumps([_record(n_depth=i) for i in range(MAX_ROWS)]))
    assert len(rows) == MAX_ROWS
    assert parse_llama_bench(_md(rate="1e9"))[0].tok_s == 1e9
