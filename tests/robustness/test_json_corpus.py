"""A hostile JSON corpus, generated here, through every JSON reader and the command line: each file is
one message naming it (no traceback), in bounded time, and a settings or catalog file never blocks start."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from advisor.catalog.hf_import import HFImportError, import_hf_config
from advisor.catalog.loader import load_user
from advisor.catalog.user_store import UserStoreError, save_entry
from advisor.cli import main
from advisor.session import SessionFileError, load_session
from advisor.settings import Settings, load_settings, settings_path
from tests.catalog.test_hf_import import LLAMA_31_8B

CORPUS: dict[str, bytes] = {
    "deep list": b"[" * 100_000 + b"]" * 100_000,
    "deep object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "nesting past the limit": b"[" * 70 + b"]" * 70,
    "5000-digit integer": b'{"x": ' + b"9" * 5000 + b"}",
    "NaN": b'{"x": NaN}',
    "Infinity": b'{"x": -Infinity}',
    "1e999": b'{"x": 1e999}',
    "malformed": b'{"x": ',
    "not UTF-8": b'\xff\xfe{"x": 1}',
    "empty": b"",
    "a list": b"[1, 2, 3]",
    "a string": b'"text"',
    "wrong types": json.dumps({"scenario": [1], "metadata": [1], "hardware": "x"}).encode(),
}

CONFIGS: dict[str, dict[str, object]] = {  # HF configs that parse but hold nonsense
    "NaN layers": {**LLAMA_31_8B, "num_hidden_layers": "NaN"},
    "huge layers": {**LLAMA_31_8B, "num_hidden_layers": 10**15},
    "float layers": {**LLAMA_31_8B, "num_hidden_layers": 1e300},
    "list heads": {**LLAMA_31_8B, "num_attention_heads": [32]},
    "qwen-moe layers": {
        **LLAMA_31_8B,
        "num_hidden_layers": 10**12,
        "num_experts": 8,
        "decoder_sparse_step": 2,
        "moe_intermediate_size": 64,
    },
}


def _timed(call: Callable[[], object]) -> None:
    t0 = time.perf_counter()
    call()
    assert time.perf_counter() - t0 < 2.0


def _one_line(message: str, name: str) -> None:
    assert name in message and "\n" not in message and "Traceback" not in message and len(message) < 500, message


@pytest.mark.parametrize("case", list(CORPUS))
def test_scenario_files(tmp_path: Path, case: str) -> None:
    path = tmp_path / "scenario.json"
    path.write_bytes(CORPUS[case])
    with pytest.raises(SessionFileError) as info:
        _timed(lambda: load_session(path))
    _one_line(str(info.value), "scenario.json")


@pytest.mark.parametrize("case", list(CORPUS))
def test_hf_configs_and_indexes(tmp_path: Path, case: str) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_bytes(CORPUS[case])
    with pytest.raises(HFImportError) as info:
        _timed(lambda: import_hf_config(cfg))
    _one_line(str(info.value), "config.json")
    cfg.write_text(json.dumps(LLAMA_31_8B))
    index = tmp_path / "model.safetensors.index.json"
    index.write_bytes(CORPUS[case])
    with pytest.raises(HFImportError) as info:
        _timed(lambda: import_hf_config(cfg))
    _one_line(str(info.value), "model.safetensors.index.json")


@pytest.mark.parametrize("case", list(CONFIGS))
def test_hf_configs_with_nonsense_values(tmp_path: Path, case: str) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(CONFIGS[case]))
    with pytest.raises(HFImportError) as info:
        _timed(lambda: import_hf_config(cfg))
    _one_line(str(info.value), "config.json")


@pytest.mark.parametrize("case", list(CORPUS))
def test_settings_never_block_start(case: str) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(CORPUS[case])
    loaded, problem = load_settings()
    if case == "empty" or problem is not None:
        assert loaded == Settings()
    assert problem is not None and str(path) in problem and "set aside" in problem
    assert list(path.parent.glob("settings.json.bad-*"))[0].read_bytes() == CORPUS[case]  # byte for byte


@pytest.mark.parametrize("case", list(CORPUS))
def test_user_catalog_files(tmp_path: Path, case: str) -> None:
    (tmp_path / "models.json").write_bytes(CORPUS[case])
    found, problems = load_user(tmp_path)
    if case != "a list":  # [1, 2, 3] is a list of three bad entries: three problems
        assert found["models"] == {} and len(problems) == 1
        _one_line(problems[0], "models.json")
        with pytest.raises(UserStoreError) as info:
            save_entry("models", {"id": "x"}, tmp_path)
        assert "models.json" in str(info.value) or "field" in str(info.value)
    assert (tmp_path / "models.json").read_bytes() == CORPUS[case]  # never overwritten


@pytest.mark.parametrize("case", list(CORPUS))
def test_cli_starts_with_any_corrupt_user_file(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`estimate` runs whatever the user's catalog folder holds (the bad file is named on stderr by the
    commands that list problems; it never stops a command)."""
    from advisor.paths import user_catalog_dir

    for kind in ("hardware", "models", "quants"):
        user_catalog_dir().mkdir(parents=True, exist_ok=True)
        (user_catalog_dir() / f"{kind}.json").write_bytes(CORPUS[case])
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_bytes(CORPUS[case])
    assert main(["estimate", "--params", "8", "--bandwidth", "500", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decode_tok_s"] > 0


def test_estimate_many_gives_every_line_an_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = json.dumps({"params": 8, "bandwidth": 500})
    bad = [c.decode("utf-8", "replace").replace("\n", " ") for c in CORPUS.values()]
    lines = [good, *bad, '{"bits": 5e-324}', '{"prefill-rate": 5e-324}', '{"bandwidth": 1e-300}', good]
    path = tmp_path / "many.jsonl"
    path.write_bytes(
        b"\n".join(x.encode() for x in lines) + b"\n\xff\xfe\n" + b"x" * (2 << 20) + b"\n" + good.encode() + b"\n"
    )
    t0 = time.perf_counter()
    assert main(["estimate", "--many", str(path)]) == 1
    assert time.perf_counter() - t0 < 30
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    answered = {o["line"] for o in out}
    nonblank = {n for n, x in enumerate(lines, start=1) if x.strip()} | {len(lines) + 1, len(lines) + 2, len(lines) + 3}
    assert answered == nonblank
    assert out[0]["decode_tok_s"] > 0 and out[-1]["decode_tok_s"] > 0
    assert all(("error" in o) != ("decode_tok_s" in o) for o in out)
