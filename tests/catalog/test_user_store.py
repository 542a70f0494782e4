"""User catalog files: atomic saves, replace by id, delete, and never losing a file we cannot read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.catalog.loader import load_catalog, load_user
from advisor.catalog.schema import HardwareEntry, ModelEntry, QuantEntry
from advisor.catalog.user_store import UserStoreError, delete_entry, save_entry, saved_ids, slugify
from advisor.paths import user_catalog_dir


def _model(eid: str = "my-model", params: float = 7.0) -> ModelEntry:
    return ModelEntry(
        id=eid,
        name=f"My {eid}",
        family="mine",
        total_params_b=params,
        layers=32,
        hidden=4096,
        heads=32,
        kv_heads=8,
        source="my own notes",
    )


def test_round_trip_every_kind(tmp_path: Path) -> None:
    hw = HardwareEntry(
        id="my-gpu", name="My GPU", vendor="me", memory_gb=20, bandwidth_gbps=700, fp16_tflops=80, source="datasheet"
    )
    q = QuantEntry(id="my-q", name="My Q", format="gguf", bits_per_weight=4.5, source="measured")
    for kind, entry in (("hardware", hw), ("models", _model()), ("quants", q)):
        path = save_entry(kind, entry, tmp_path)
        assert path == tmp_path / f"{kind}.json"
    found, problems = load_user(tmp_path)
    assert problems == []
    assert found["hardware"]["my-gpu"] == hw and found["quants"]["my-q"] == q
    assert found["models"]["my-model"] == _model()


def test_default_folder_is_the_user_catalog() -> None:
    path = save_entry("models", _model())
    assert path == user_catalog_dir() / "models.json"
    assert "models/my-model" in load_catalog(user_catalog_dir()).user_ids


def test_dict_entries_validated_and_errors_name_the_field(tmp_path: Path) -> None:
    save_entry("models", {"id": "d", "family": "f", "total_params_b": 3, "source": "src"}, tmp_path)
    with pytest.raises(UserStoreError, match="entry 'bad' field 'total_params_b'"):
        save_entry("models", {"id": "bad", "family": "f", "total_params_b": -1, "source": "src"}, tmp_path)
    with pytest.raises(UserStoreError, match="unknown catalog kind 'gpus'"):
        save_entry("gpus", _model(), tmp_path)
    assert saved_ids("models", tmp_path) == ["d"]


def test_replace_keeps_order_and_delete(tmp_path: Path) -> None:
    save_entry("models", _model("a"), tmp_path)
    save_entry("models", _model("b"), tmp_path)
    save_entry("models", _model("a", params=9.0), tmp_path)
    raw = json.loads((tmp_path / "models.json").read_text())
    assert [e["id"] for e in raw] == ["a", "b"] and raw[0]["total_params_b"] == 9.0
    assert delete_entry("models", "a", tmp_path) is True
    assert delete_entry("models", "a", tmp_path) is False
    assert delete_entry("quants", "a", tmp_path) is False  # no file at all
    assert saved_ids("models", tmp_path) == ["b"]


def test_entries_we_cannot_validate_are_kept(tmp_path: Path) -> None:
    foreign = {"id": "from-the-future", "family": "f", "total_params_b": 1, "source": "src", "new_field": 1}
    (tmp_path / "models.json").write_text(json.dumps([foreign]))
    save_entry("models", _model(), tmp_path)
    raw = json.loads((tmp_path / "models.json").read_text())
    assert raw[0] == foreign and raw[1]["id"] == "my-model"


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_entry("models", _model("a"), tmp_path)
    before = (tmp_path / "models.json").read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk pulled out")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk pulled out"):
        save_entry("models", _model("b"), tmp_path)
    assert (tmp_path / "models.json").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["models.json"]  # no temp file left behind


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'[{"id": ', "is not valid JSON (line 1, column 9)"),
        (b'{"id": "x"}', "is not a JSON list of entries"),
        (b"\xff\xfe[]", "is not UTF-8 text"),
    ],
)
def test_corrupt_file_raises_and_is_untouched(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "models.json"
    path.write_bytes(content)
    with pytest.raises(UserStoreError) as info:
        save_entry("models", _model(), tmp_path)
    assert str(info.value).startswith(f"{path} {problem}") and "nothing was saved" in str(info.value)
    assert path.read_bytes() == content
    with pytest.raises(UserStoreError):
        delete_entry("models", "x", tmp_path)
    assert path.read_bytes() == content
    assert saved_ids("models", tmp_path) == []


def test_corrupt_file_set_aside_on_request(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_bytes(b"not json")
    save_entry("models", _model("a"), tmp_path, set_aside_corrupt=True)
    path.write_bytes(b"still not json")
    save_entry("models", _model("b"), tmp_path, set_aside_corrupt=True)  # same second: a second copy, not a clobber
    bad = sorted(p for p in tmp_path.iterdir() if p.name.startswith("models.json.bad-"))
    assert sorted(p.read_bytes() for p in bad) == [b"not json", b"still not json"]
    assert saved_ids("models", tmp_path) == ["b"]


def test_slugify() -> None:
    assert slugify("Qwen3 30B-A3B (Instruct)") == "qwen3-30b-a3b-instruct"
    assert slugify("***") == "imported-model"
    assert len(slugify("x" * 300)) == 80
