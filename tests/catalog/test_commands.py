"""The catalog, inspect and catalog add subcommands, run through advisor.cli.main."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.paths import user_catalog_dir
from tests.catalog.gguf_files import write_gguf
from tests.catalog.test_hf_import import QWEN3_30B_A3B


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse errors
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.mark.parametrize(
    ("kind", "expect"),
    [
        ("hardware", ["rtx-4090", "memory GB", "GB/s"]),
        ("models", ["llama-3.1-8b", "params B", "131,072"]),
        ("quants", ["q4_k_m", "bpw", "4.89"]),
    ],
)
def test_listing(capsys: pytest.CaptureFixture[str], kind: str, expect: list[str]) -> None:
    code, out, _ = run(capsys, "catalog", kind)
    assert code == 0
    for text in expect:
        assert text in out
    header, rule = out.splitlines()[:2]
    assert len(header) <= len(rule) + 2 and set(rule.replace(" ", "")) == {"-"}  # aligned columns


def test_listing_json_and_search(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "catalog", "models", "--json", "--search", "qwen3 30b")
    assert code == 0
    rows = json.loads(out)
    assert {r["id"] for r in rows} == {
        "qwen3-30b-a3b",
        "qwen3-coder-30b-a3b",
        "qwen3-30b-a3b-instruct-2507",
        "qwen3-30b-a3b-thinking-2507",
    }
    assert all(r["origin"] == "shipped" and r["shadows_shipped"] is False for r in rows)
    code, out, _ = run(capsys, "catalog", "hardware", "--search", "no such thing at all")
    assert code == 0 and "0 of" in out


def test_inspect_gguf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = write_gguf(tmp_path / "tiny.gguf")
    code, out, _ = run(capsys, "inspect", str(w.path))
    assert code == 0
    assert "Tiny Llama  (GGUF, llama)" in out and "bits per weight (Q4_K_M)" in out and "q4_k_m" in out
    code, out, _ = run(capsys, "inspect", str(w.path), "--json")
    data = json.loads(out)
    assert data["format"] == "gguf" and data["tensor_count"] == 21 and data["suggested_quant"] == "q4_k_m"
    assert data["entry"]["total_params_b"] * 1e9 == pytest.approx(w.params)
    assert not user_catalog_dir().exists()  # inspect saves nothing


def test_inspect_config_and_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "Qwen3-30B-A3B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(QWEN3_30B_A3B))
    for target in (folder / "config.json", folder):
        code, out, _ = run(capsys, "inspect", str(target))
        assert code == 0 and "Qwen3-30B-A3B  (config.json)" in out and "B active" in out


def test_add_gguf_saves_a_user_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = write_gguf(tmp_path / "tiny.gguf")
    code, out, _ = run(capsys, "catalog", "add", str(w.path))
    assert code == 0
    assert "Saved model 'tiny-llama'" in out and "bits per weight" in out and "--quant q4_k_m" in out
    saved = json.loads((user_catalog_dir() / "models.json").read_text())
    assert [e["id"] for e in saved] == ["tiny-llama"]
    code, out, _ = run(capsys, "catalog", "add", str(w.path))
    assert code == 0 and "replaced your earlier entry" in out
    code, out, _ = run(capsys, "catalog", "models", "--search", "tiny")
    assert "+  tiny-llama" in out and "+ your entry" in out
    code, out, _ = run(capsys, "estimate", "--model", "tiny-llama", "--quant", "q4_k_m", "--hardware", "rtx-4090")
    assert code == 0 and "Tiny Llama" in out


def test_add_with_id_and_shadowing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(QWEN3_30B_A3B))
    code, out, _ = run(capsys, "catalog", "add", str(path), "--id", "qwen3-30b-a3b")
    assert code == 0 and "replaces the shipped 'qwen3-30b-a3b'" in out
    code, out, _ = run(capsys, "catalog", "models", "--json", "--search", "qwen3-30b-a3b")
    row = next(r for r in json.loads(out) if r["id"] == "qwen3-30b-a3b")
    assert row["origin"] == "user" and row["shadows_shipped"] is True


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "{tmp}/missing.gguf"],
        ["catalog", "add", "{tmp}/missing.gguf"],
        ["inspect", "{tmp}/notes.txt"],
        ["inspect", "{tmp}/broken.gguf"],
        ["inspect", "{tmp}/bad.json"],
        ["inspect", "{tmp}"],
        ["catalog", "add", "{tmp}/tiny.gguf", "--id", "Not A Slug!"],
    ],
)
def test_bad_input_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    w = write_gguf(tmp_path / "tiny.gguf")
    (tmp_path / "broken.gguf").write_bytes(w.path.read_bytes()[:100])
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "other.gguf").write_bytes(w.path.read_bytes())  # two models: the folder is ambiguous
    args = [a.format(tmp=tmp_path) for a in argv]
    code, _, err = run(capsys, *args)
    name = Path(args[-1]).name if not args[-1].startswith("Not") else "--id"
    _one_line_error(code, err, name)


def test_corrupt_user_store_blocks_add(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = write_gguf(tmp_path / "tiny.gguf")
    store = user_catalog_dir() / "models.json"
    store.parent.mkdir(parents=True)
    store.write_text("[{ not json")
    code, _, err = run(capsys, "catalog", "add", str(w.path))
    _one_line_error(code, err, str(store), "nothing was saved")
    assert store.read_text() == "[{ not json"


def test_argparse_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "catalog")
    _one_line_error(code, err, "required")
    code, _, err = run(capsys, "catalog", "add")
    _one_line_error(code, err, "PATH")


def test_inspect_moe_gguf_gives_both_precisions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = write_gguf(tmp_path / "moe.gguf", arch="qwen3moe", name="Tiny MoE", experts=8, used=2)
    code, out, _ = run(capsys, "inspect", str(w.path))
    assert code == 0 and ": experts " in out and ", the rest " in out
    code, out, _ = run(capsys, "inspect", str(w.path), "--json")
    data = json.loads(out)
    assert data["expert_bits_per_weight"] < data["bits_per_weight"] < data["dense_bits_per_weight"]


def test_hybrids_say_how_many_layers_attend(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "catalog", "models", "--search", "qwen3.6")
    assert code == 0 and "qwen3.6-35b-a3b" in out and "hybrid (10 attend)" in out
    code, out, _ = run(capsys, "catalog", "models", "--search", "llama 3.1 8b")
    assert code == 0 and "hybrid" not in out and out.splitlines()[2].rstrip().endswith("full")
