"""Reading the published measurements: every row parses or is reported, never a crash."""

from __future__ import annotations

import textwrap

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.hardware import HardwareClass
from advisor.validation.data import (
    COLUMNS,
    HARDWARE_SPECS_CSV,
    MEASUREMENTS_CSV,
    Case,
    Skip,
    build_case,
    held_out,
    load_dataset,
    parse_hardware_specs,
    parse_measurements,
)

HEADER = ",".join(COLUMNS)
GOOD = ("rtx-4090,NVIDIA GeForce RTX 4090,1,llama-3.1-8b,Llama 3.1 8B,8.03,,q4_k_m,,llama.cpp,tg,,128,0,1,99,0,"
        "130.5,https://example.org/x,ok")


def test_bad_rows_are_reported_not_fatal() -> None:
    text = "\n".join([
        HEADER,
        GOOD,
        GOOD.replace(",tg,", ",xx,"),  # unknown test
        GOOD.replace("130.5", "fast"),  # not a number
        GOOD.replace("130.5", "-3"),  # negative
        GOOD.replace(",ok", ",ok,extra"),  # too many cells
        GOOD.replace(",1,99,", ",1.5,99,"),  # batch not whole
    ])
    rows, problems = parse_measurements(text)
    assert len(rows) == 1 and rows[0].tok_s == 130.5
    assert len(problems) == 5
    assert problems[0].startswith("line 3: test")
    assert any("line 4: tok_s" in p for p in problems)
    assert any("more cells" in p for p in problems)


def test_missing_columns_reported() -> None:
    rows, problems = parse_measurements("a,b\n1,2\n")
    assert rows == [] and "missing column" in problems[0]


def test_shipped_file_reads_cleanly() -> None:
    data = load_dataset(shipped_catalog())
    assert data.rows == 515 and not data.problems
    assert len(data.cases) + len(data.skipped) == 515
    assert len(data.cases) >= 400
    assert all(s.reason for s in data.skipped)
    # every kind of row the issue asks about is present
    kinds = {c.kind for c in data.cases}
    assert kinds == {"depth 0", "depth sweep", "offload", "batch"}
    assert sum(c.moe for c in data.cases) >= 50
    assert {c.hw_class for c in data.cases} >= {HardwareClass.DISCRETE_GPU, HardwareClass.UNIFIED}


def test_split_is_by_configuration_and_deterministic() -> None:
    data = load_dataset(shipped_catalog())
    held = [c for c in data.cases if c.held_out]
    assert 0.2 < len(held) / len(data.cases) < 0.4
    by_config: dict[tuple[str, str, str], set[bool]] = {}
    for c in data.cases:
        r = c.row
        by_config.setdefault((r.hardware_name + str(r.gpus), r.model_name, r.quant + r.engine), set()).add(c.held_out)
    assert all(len(v) == 1 for v in by_config.values())
    assert [held_out(c.row) for c in data.cases] == [c.held_out for c in data.cases]


def test_hardware_specs_have_sources() -> None:
    specs, problems = parse_hardware_specs(HARDWARE_SPECS_CSV.read_text(encoding="utf-8"))
    assert not problems and specs
    assert all(s.source.startswith("http") for s in specs.values())
    bad, problems = parse_hardware_specs("hardware_name,class,memory_gb,bandwidth_gbps,source\nX,gpu,8,100,nope\n")
    assert not bad and problems


def _row(**changes: str) -> Case | Skip:
    values = dict(zip(COLUMNS, GOOD.split(","), strict=True))
    values.update(changes)
    rows, problems = parse_measurements(HEADER + "\n" + ",".join(values[c] for c in COLUMNS))
    assert not problems
    return build_case(rows[0], shipped_catalog(), {})


def test_rows_become_scenarios() -> None:
    case = _row()
    assert isinstance(case, Case)
    w = case.scenario.workload
    assert w.context == 64 and w.gpu_layers == 32  # tg128: mean context 64; -ngl 99 forces all 32 layers
    assert case.kind == "depth 0" and not case.moe
    pp = _row(test="pp", prompt_tokens="512", gen_tokens="", depth="4096")
    assert isinstance(pp, Case) and pp.kind == "depth sweep"
    assert pp.scenario.workload.prompt_tokens == 512 and pp.scenario.workload.context == 4096 + 512


@pytest.mark.parametrize(("changes", "reason"), [
    ({"hardware_id": "", "hardware_name": "Mystery box"}, "not in the catalog"),
    ({"depth": ""}, "depth not stated"),
    ({"model_id": "", "params_b": ""}, "no parameter count"),
    ({"quant": "", "bits_per_weight": ""}, "weight format"),
    ({"gpu_layers": "10", "hardware_name": "RTX 4090 (+ unstated host CPU/RAM)"}, "host"),
])
def test_unusable_rows_say_why(changes: dict[str, str], reason: str) -> None:
    out = _row(**changes)
    assert isinstance(out, Skip) and reason in out.reason


def test_measurements_file_exists() -> None:
    assert MEASUREMENTS_CSV.exists()
    assert textwrap.dedent(MEASUREMENTS_CSV.read_text(encoding="utf-8").splitlines()[0]) == HEADER
