"""`measure fit`, `measure bandwidth` and `detect` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.catalog.loader import load_catalog
from advisor.cli import main
from advisor.paths import user_catalog_dir
from tests.measure.conftest import FIXTURES

SPARK = ["--hardware", "dgx-spark", "--model", "qwen2.5-coder-7b", "--quant", "q8_0"]
BENCH = str(FIXTURES / "dgx_spark_qwen2.5_coder_7b_q8_0.md")


def test_fit_json_and_save(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "fit", *SPARK, "--bench", BENCH, "--save", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decode"]["eta"] == pytest.approx(0.798, abs=0.005) and out["decode"]["rows"] == 5
    assert out["prefill"]["eta"] == pytest.approx(0.29, abs=0.01)
    assert out["decode"]["points"][0]["measured_tok_s"] == 29.30
    # the scenario (4,096 tokens of context) calibrated on all five runs lands near the one measured there
    # (tg32 @ d4096), within the runs' own scatter about one factor and fixed time
    assert out["scenario"]["decode_after"] == pytest.approx(28.27, rel=0.05)
    assert out["scenario"]["decode_after"] != out["scenario"]["decode_before"]
    assert out["saved"]["id"] == "dgx-spark-mine"
    mine = load_catalog(user_catalog_dir()).hardware["dgx-spark-mine"]
    assert mine.measured_eta is None and mine.measured is not None  # factors on the fitted model, not a plain η
    assert mine.measured.decode_runs == 5 and mine.measured.model == "Qwen2.5-Coder 7B @ Q8_0"
    assert [p.depth for p in mine.measured_points if p.test == "tg"] == [0, 4096, 8192, 16384, 32768]
    # Measuring the saved copy again replaces it instead of making a "-mine-mine".
    mine_args = ["--hardware", "dgx-spark-mine", "--model", "qwen2.5-coder-7b", "--quant", "q8_0"]
    assert main(["measure", "fit", *mine_args, "--bench", BENCH, "--save", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["saved"]["id"] == "dgx-spark-mine"
    assert [e for e in load_catalog(user_catalog_dir()).hardware if e.startswith("dgx-spark")] == [
        "dgx-spark",
        "dgx-spark-mine",
    ]


def test_fit_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "fit", *SPARK, "--bench", BENCH]) == 0
    out = capsys.readouterr().out
    assert out.startswith("η decode 0.798")
    assert "tg32 @ d32768" in out and "this scenario: decode" in out


def test_fit_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("| model | test | t/s |\n|---|---|---|\n| m | tg128 | n/a |\n")
    assert main(["measure", "fit", *SPARK, "--bench", str(bad)]) == 2
    assert "line 3: t/s 'n/a' is not a number" in capsys.readouterr().err
    assert main(["measure", "fit", *SPARK, "--bench", str(tmp_path / "missing.md")]) == 2
    assert "not found" in capsys.readouterr().err
    other = str(FIXTURES / "dgx_spark_gpt_oss_120b.md")
    assert main(["measure", "fit", *SPARK, "--bench", other]) == 2
    assert "ran a 116.83 B model" in capsys.readouterr().err


def test_bandwidth_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "bandwidth", "--seconds", "0.2", "--size-mb", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gbps"] > 0 and out["passes"] >= 2 and out["size_bytes"] == 2**20
    assert main(["measure", "bandwidth", "--seconds", "0"]) == 2


def test_detect_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["confidence"] in ("high", "medium", "low", "none")
    assert (out["entry_id"] is None) == (out["confidence"] == "none")
    assert out["machine"]["system"]
