"""`measure fit --bench FILE`: the size limit holds before the file is read, and any file gives one message."""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import pytest

from advisor.cli import main

FIT = ["measure", "fit", "--hardware", "dgx-spark", "--model", "qwen2.5-coder-7b", "--quant", "q8_0", "--bench"]


def _one_message(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert all(w in err[0] for w in words), err[0]
    return err[0]


def test_a_huge_file_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = tmp_path / "huge.md"
    with huge.open("wb") as f:  # sparse: 8 GiB of zeros that a whole read would have to hold
        f.truncate(8 << 30)
    tracemalloc.start()
    t0 = time.perf_counter()
    assert main([*FIT, str(huge)]) == 2
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    _one_message(capsys, "huge.md", "larger than 4 MiB")
    assert elapsed < 2 and peak < 64 << 20


def test_not_utf8_and_not_regular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"| test | t/s |\n\xff\xfe\n")
    assert main([*FIT, str(bad)]) == 2
    _one_message(capsys, "bad.md", "not UTF-8", "0xff")
    assert main([*FIT, str(tmp_path)]) == 2
    _one_message(capsys, "a folder")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "bench.fifo"
        os.mkfifo(fifo)
        assert main([*FIT, str(fifo)]) == 2  # refused, not waited on
        _one_message(capsys, "bench.fifo", "FIFO")
