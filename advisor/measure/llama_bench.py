"""Read what llama-bench prints: its markdown table (the default), or -o json / jsonl / csv.

    rows = parse_llama_bench(text)      # list[BenchRow]; BenchError names the line on garbage

A markdown table is recognised by its header line: it needs a `test` and a `t/s` column; other
tables (llama-batched-bench, comparison tables) and everything that is not a table (build lines,
log lines, the command) are skipped. Inside a llama-bench table every row must parse, or the error
names that row's line. Tests are `pp512`, `tg128`, `pp512+tg128`, with ` @ d4096` for a context
depth; older builds print `pp 512` / `tg 128`, which are read too.

Pure: no Qt, no I/O."""

from __future__ import annotations

from advisor.measure.bench_records import parse_csv, parse_json_records
from advisor.measure.bench_rows import (
    MAX_DIGITS,
    MAX_PASTE_CHARS,
    MAX_ROWS,
    RATE,
    SEPARATOR,
    TEST_NAME,
    BenchError,
    BenchRow,
    TestKind,
    check_bounds,
    check_count,
    finite_or_none,
    flag_value,
    int_or_none,
    param_count,
    size_bytes,
    typed_row,
)

__all__ = ["BenchError", "BenchRow", "MAX_PASTE_CHARS", "MAX_ROWS", "parse_llama_bench", "typed_row"]


def parse_llama_bench(text: str) -> list[BenchRow]:
    """Every llama-bench result in `text`; BenchError when there is none or a result is malformed."""
    if len(text) > MAX_PASTE_CHARS:
        raise BenchError(
            f"the paste has {len(text):,} characters; llama-bench output is far shorter "
            f"(at most {MAX_PASTE_CHARS:,} are read)"
        )
    stripped = text.strip()
    if not stripped:
        raise BenchError("nothing to read: paste the table llama-bench printed, or its -o json / jsonl output")
    if stripped[0] in "[{":
        rows = parse_json_records(text)
    else:
        first = stripped.splitlines()[0].strip()
        if first.startswith("build_commit,") or (first.count(",") >= 3 and "avg_ts" in first.split(",")):
            rows = parse_csv(text)
        else:
            rows = _parse_markdown(text)
    if len(rows) > MAX_ROWS:
        raise BenchError(
            f"{len(rows):,} results: at most {MAX_ROWS} can be fitted and saved at once "
            "(paste one llama-bench run, or split the sweep)"
        )
    return rows


# --- markdown ----------------------------------------------------------------------------------


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def _parse_markdown(text: str) -> list[BenchRow]:
    rows: list[BenchRow] = []
    header: list[str] | None = None
    header_line = 0
    in_table = False
    skip_table = False
    first_text: tuple[int, str] | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line.startswith("|"):
            in_table = skip_table = False
            header = None
            if line and first_text is None and not line.startswith(("```", "$", "#", "-", "build:")):
                first_text = (n, line)
            continue
        cells = _cells(line)
        if not in_table:  # the first line of a table is its header
            in_table = True
            names = [c.lower() for c in cells]
            if "test" in names and "t/s" in names:
                header, header_line, skip_table = names, n, False
            else:
                header, skip_table = None, True
            continue
        if skip_table or header is None:
            continue
        if all(SEPARATOR.match(c) for c in cells if c) and any(cells):
            continue
        if len(cells) != len(header):
            raise BenchError(
                f"line {n}: {len(cells)} cells, but the header on line {header_line} has {len(header)}: {line[:120]}"
            )
        rows.append(_markdown_row(dict(zip(header, cells, strict=True)), n))
        check_count(rows)
    if not rows:
        if first_text is not None:
            n, line = first_text
            raise BenchError(
                f"line {n}: not a llama-bench table row or JSON: {line[:120]!r} — paste the table "
                "llama-bench printed (with its header line), or its -o json / -o jsonl output"
            )
        raise BenchError("no llama-bench results found: a table needs a header line with 'test' and 't/s' columns")
    return rows


def _test(text: str, where: str) -> tuple[TestKind, int, int, int]:
    m = TEST_NAME.match(text.strip()) if len(text) <= 200 else None
    if not m:
        raise BenchError(
            f"{where}: test {text[:60]!r}{'…' if len(text) > 60 else ''} is not ppN, tgN or ppN+tgN (optionally '@ dN')"
        )
    if any(g is not None and len(g) > MAX_DIGITS for g in m.groups()):
        raise BenchError(f"{where}: test {text[:60]!r}: a count of more than {MAX_DIGITS} digits")
    depth = int(m["depth"] or 0)
    if m["kind"]:
        kind = m["kind"].lower()
        n = int(m["n"])
        return ("pp", n, 0, depth) if kind == "pp" else ("tg", 0, n, depth)
    return "pg", int(m["pp"]), int(m["tg"]), depth


def _markdown_row(cells: dict[str, str], n: int) -> BenchRow:
    where = f"line {n}"
    kind, prompt, gen, depth = _test(cells["test"], where)
    rate = cells["t/s"]
    m = RATE.match(rate.replace(",", "")) if len(rate) <= 80 else None
    if not m:
        raise BenchError(f"{where}: t/s {rate[:60]!r} is not a number like '123.45 ± 1.20'")
    tok_s = float(m["avg"])
    if tok_s <= 0:
        raise BenchError(f"{where}: t/s must be positive, not {rate!r}")
    check_bounds(where, prompt, gen, depth, tok_s)
    return BenchRow(
        test=kind,
        prompt=prompt,
        gen=gen,
        depth=depth,
        tok_s=tok_s,
        stddev=finite_or_none(float(m["sd"])) if m["sd"] else None,
        ngl=int_or_none(cells.get("ngl")),
        model=cells.get("model", ""),
        size_bytes=size_bytes(cells.get("size")),
        params=param_count(cells.get("params")),
        backend=cells.get("backend", ""),
        n_batch=int_or_none(cells.get("n_batch")),
        n_ubatch=int_or_none(cells.get("n_ubatch")),
        threads=int_or_none(cells.get("threads")),
        n_cpu_moe=int_or_none(cells.get("n_cpu_moe")),
        kv_type=cells.get("type_k"),
        flash_attn=flag_value(cells.get("fa", cells.get("flash_attn"))),
        line=n,
    )


# --- json, jsonl, csv --------------------------------------------------------------------------
