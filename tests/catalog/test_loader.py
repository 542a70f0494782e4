"""Catalog loader: a bad entry or file is reported with where and why, and never stops the rest."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.catalog.loader import load_catalog, load_shipped, load_user

GOOD_GPU = """
[[hardware]]
id = "good-gpu"
name = "Good GPU"
vendor = "Acme"
memory_gb = 24
bandwidth_gbps = 1000
fp16_tflops = 100
source = "datasheet"
"""
BAD_GPU = """
[[hardware]]
id = "bad-gpu"
name = "Bad GPU"
vendor = "Acme"
memory_gb = -1
bandwidth_gbps = 1000
fp16_tflops = 100
source = "datasheet"
"""
MODEL = """
[[model]]
id = "m"
name = "M"
family = "f"
total_params_b = 7
source = "card"
"""


def _catalog(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_bad_entry_reported_with_file_entry_and_field(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "cat", {"hardware/acme.toml": GOOD_GPU + BAD_GPU, "models/m.toml": MODEL})
    cat = load_shipped(root)
    assert list(cat.hardware) == ["good-gpu"] and list(cat.models) == ["m"]
    assert len(cat.problems) == 1
    assert cat.problems[0].startswith("catalogs/hardware/acme.toml: entry 'bad-gpu' field 'memory_gb':")


def test_malformed_toml_reported_and_other_files_load(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "cat", {"hardware/broken.toml": "[[hardware]\nid = ", "hardware/ok.toml": GOOD_GPU})
    cat = load_shipped(root)
    assert list(cat.hardware) == ["good-gpu"]
    assert len(cat.problems) == 1 and cat.problems[0].startswith("catalogs/hardware/broken.toml: cannot read:")


def test_non_toml_files_and_missing_folders_ignored(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "cat", {"hardware/readme.md": "# notes", "hardware/ok.toml": GOOD_GPU})
    cat = load_shipped(root)
    assert list(cat.hardware) == ["good-gpu"] and cat.models == {} and cat.problems == ()


def _user_model(eid: str, params: float = 7.0) -> dict[str, object]:
    return {"id": eid, "name": eid.upper(), "family": "mine", "total_params_b": params, "source": "my notes"}


def test_user_entries_merge_and_shadowing_is_noted(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "models.json").write_text(json.dumps([_user_model("llama-3.1-8b", 8.5), _user_model("my-model")]))
    cat = load_catalog(user)
    assert cat.models["llama-3.1-8b"].total_params_b == 8.5
    assert "my-model" in cat.models and "qwen3-8b" in cat.models
    assert cat.user_ids == frozenset({"models/llama-3.1-8b", "models/my-model"})
    assert cat.shadowed == ("models/llama-3.1-8b: your entry replaces the shipped one",)
    assert load_catalog(None).models["llama-3.1-8b"].total_params_b == 8.03  # shipped copy untouched


def test_corrupt_user_files_reported(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "hardware.json").write_text("[{")
    (user / "quants.json").write_text('{"id": "x"}')
    bad = _user_model("bad", -3)
    (user / "models.json").write_text(json.dumps([bad, _user_model("fine")]))
    found, problems = load_user(user)
    assert list(found["models"]) == ["fine"]
    assert any(p.startswith(f"{user / 'hardware.json'}: cannot read:") for p in problems)
    assert f"{user / 'quants.json'}: expected a JSON list of entries" in problems
    assert any(p.startswith(f"{user / 'models.json'}: entry 'bad' field 'total_params_b'") for p in problems)
    cat = load_catalog(user)
    assert "fine" in cat.models and len(cat.problems) == len(load_catalog(None).problems) + 3
