"""GGUF headers inside the per-array caps but built to cost time or memory: the file-wide budgets
(tensors, keys, strings over all arrays, nested elements over all depths) refuse them at once."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest

from advisor.catalog.gguf_import import MAX_PARTS, GGUFError, import_gguf
from advisor.catalog.gguf_reader import MAX_KV, MAX_NESTED, MAX_STRINGS, MAX_TENSORS

ARRAY, STRING, UINT32 = 9, 8, 4


def _s(text: str) -> bytes:
    return struct.pack("<Q", len(text)) + text.encode()


def _file(*kv: bytes, n_tensors: int = 0, tensors: bytes = b"", n_kv: int | None = None) -> bytes:
    arch = _s("general.architecture") + struct.pack("<I", STRING) + _s("llama")
    return (
        b"GGUF"
        + struct.pack("<IQQ", 3, n_tensors, (n_kv if n_kv is not None else len(kv) + 1))
        + arch
        + b"".join(kv)
        + tensors
    )


def _empty_arrays(key: str, count: int) -> bytes:
    return _s(key) + struct.pack("<IIQ", ARRAY, ARRAY, count) + struct.pack("<IQ", UINT32, 0) * count


CASES = {
    "nested arrays summed over keys": (
        _file(_empty_arrays("a", MAX_NESTED - 10), _empty_arrays("b", 11)),
        "nested arrays past",
    ),
    "4096 x 4096 nested": (
        _file(
            _s("x")
            + struct.pack("<IIQ", ARRAY, ARRAY, 4096)
            + (struct.pack("<IQ", ARRAY, 4096) + struct.pack("<IQ", UINT32, 0) * 4096) * 2
        ),
        "nested arrays past",
    ),
    "strings summed over keys": (
        _file(
            _s("a") + struct.pack("<IIQ", ARRAY, STRING, 10) + _s("t") * 10,
            _s("b") + struct.pack("<IIQ", ARRAY, STRING, MAX_STRINGS),
        ),
        "strings",
    ),
    "a million tensors": (_file(n_tensors=1_000_000), "tensor count 1,000,000 exceeds"),
    "too many keys": (_file(n_kv=MAX_KV + 1), "metadata count"),
    "split count": (_file(_s("split.count") + struct.pack("<IH", 2, 60_000)), "split.count 60,000 exceeds"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_refused_in_bounded_time(tmp_path: Path, name: str) -> None:
    data, match = CASES[name]
    path = tmp_path / "hostile.gguf"
    path.write_bytes(data)
    t0 = time.perf_counter()
    with pytest.raises(GGUFError, match=match) as info:
        import_gguf(path)
    assert time.perf_counter() - t0 < 2.0
    assert str(info.value).startswith("hostile.gguf: ") and "\n" not in str(info.value)


def test_the_budgets_cover_real_files() -> None:
    assert MAX_TENSORS >= 4096 and MAX_STRINGS >= 2 * 262_144 and MAX_PARTS >= 100
