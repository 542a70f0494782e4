"""llama-bench's -o json, jsonl and csv output read into BenchRows. Pure: no Qt, no I/O."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from advisor.json_files import JSONProblem, parse_json
from advisor.measure.bench_rows import (
    BenchError,
    BenchRow,
    TestKind,
    check_bounds,
    check_count,
    flag_value,
    int_or_none,
)


def parse_json_records(text: str) -> list[BenchRow]:
    try:
        data = parse_json(text)
    except JSONProblem as problem:
        try:
            json.loads(text)
        except json.JSONDecodeError as whole_err:
            if text.lstrip().startswith("{"):
                return _parse_jsonl(text)
            raise BenchError(f"line {whole_err.lineno}: not valid JSON ({whole_err.msg})") from None
        except (ValueError, RecursionError):
            pass
        raise BenchError(f"the pasted JSON cannot be read: {problem}") from None
    items = data if isinstance(data, list) else [data]
    if not items:
        raise BenchError("line 1: the JSON list is empty: no llama-bench results")
    starts = _object_lines(text) if isinstance(data, list) else [1]
    rows = []
    for k, item in enumerate(items):
        line = starts[k] if k < len(starts) else None
        if not isinstance(data, list):
            where = "line 1"
        else:
            where = f"line {line} (result {k + 1})" if line else f"result {k + 1}"
        rows.append(_record_row(item, where, line))
        check_count(rows)
    return rows


def _object_lines(text: str) -> list[int]:
    """Line numbers where the top-level array's objects start (for error messages)."""
    out: list[int] = []
    depth = 0
    in_str = esc = False
    line = 1
    for ch in text:
        if ch == "\n":
            line += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            if ch == "{" and depth == 1:
                out.append(line)
            depth += 1
        elif ch in "]}":
            depth -= 1
    return out


def _parse_jsonl(text: str) -> list[BenchRow]:
    rows = []
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            item = parse_json(raw)
        except JSONProblem as err:
            raise BenchError(f"line {n}: not a JSON object ({err}): {raw.strip()[:120]!r}") from None
        rows.append(_record_row(item, f"line {n}", n))
        check_count(rows)
    return rows


def parse_csv(text: str) -> list[BenchRow]:
    reader = csv.DictReader(io.StringIO(text.strip()))
    rows = []
    try:
        for k, record in enumerate(reader):
            n = k + 2  # the header is line 1
            if None in record or any(v is None for v in record.values()):
                raise BenchError(f"line {n}: the number of fields does not match the header")
            rows.append(_record_row(record, f"line {n}", n))
            check_count(rows)
    except csv.Error as err:  # a field over the csv module's limit, a NUL byte, an unclosed quote
        raise BenchError(f"line {reader.line_num}: not llama-bench CSV ({err})") from None
    if not rows:
        raise BenchError("line 2: the CSV has a header but no results")
    return rows


def _number(item: dict[str, Any], key: str, where: str, *, required: bool) -> float | None:
    value = item.get(key)
    if value is None or value == "":
        if required:
            raise BenchError(f"{where}: missing '{key}' — not a llama-bench result")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str) or len(str(value)) > 40:
        raise BenchError(f"{where}: '{key}' is {str(value)[:40]!r}, not a number")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise BenchError(f"{where}: '{key}' is {value!r}, not a number") from None
    if not math.isfinite(x):
        raise BenchError(f"{where}: '{key}' is {value!r}, not a finite number")
    return x


def _record_row(item: Any, where: str, line: int | None) -> BenchRow:
    if not isinstance(item, dict):
        raise BenchError(f"{where}: expected a JSON object with llama-bench fields, got {type(item).__name__}")
    tok_s = _number(item, "avg_ts", where, required=True)
    prompt = int(_number(item, "n_prompt", where, required=True) or 0)
    gen = int(_number(item, "n_gen", where, required=True) or 0)
    depth = int(_number(item, "n_depth", where, required=False) or 0)
    assert tok_s is not None
    if tok_s <= 0:
        raise BenchError(f"{where}: 'avg_ts' must be positive, not {tok_s}")
    if prompt <= 0 and gen <= 0:
        raise BenchError(f"{where}: neither 'n_prompt' nor 'n_gen' is positive: no test to read")
    kind: TestKind = "pg" if prompt > 0 and gen > 0 else ("pp" if prompt > 0 else "tg")
    check_bounds(where, prompt, gen, depth, tok_s)
    ngl = _number(item, "n_gpu_layers", where, required=False)
    moe = _number(item, "n_cpu_moe", where, required=False)
    return BenchRow(
        test=kind,
        prompt=prompt,
        gen=gen,
        depth=depth,
        tok_s=tok_s,
        stddev=_number(item, "stddev_ts", where, required=False),
        ngl=int(ngl) if ngl is not None else None,
        model=str(item.get("model_type", "")),
        size_bytes=_number(item, "model_size", where, required=False),
        params=_number(item, "model_n_params", where, required=False),
        backend=str(item.get("backends", "")),
        n_batch=int_or_none(item.get("n_batch")),
        n_ubatch=int_or_none(item.get("n_ubatch")),
        threads=int_or_none(item.get("n_threads")),
        n_cpu_moe=int(moe) if moe is not None else None,
        kv_type=str(item["type_k"]) if item.get("type_k") else None,
        flash_attn=flag_value(item.get("flash_attn")),
        line=line,
    )
