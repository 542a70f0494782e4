"""FIFOs, folders and devices where a file is expected: every reader refuses them at once, naming the
file, instead of blocking on the first read. Each call runs with an alarm so a regression fails, not hangs."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFWriter

from advisor.catalog.gguf_import import GGUFError, import_gguf
from advisor.catalog.hf_import import HFImportError, import_hf_config
from advisor.catalog.loader import load_user
from advisor.cli import main
from advisor.session import SessionFileError, load_session

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


@contextmanager
def _within(seconds: int) -> Iterator[None]:
    def stop(*_: object) -> None:
        raise TimeoutError(f"blocked for {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


READERS: dict[str, tuple[str, Callable[[Path], object], type[Exception]]] = {
    "gguf": ("model.gguf", import_gguf, GGUFError),
    "config.json": ("config.json", import_hf_config, HFImportError),
    "scenario": ("scenario.json", load_session, SessionFileError),
}


@pytest.mark.parametrize("kind", list(READERS))
def test_a_fifo_is_refused_with_one_message(tmp_path: Path, kind: str) -> None:
    name, read, error = READERS[kind]
    path = _fifo(tmp_path / name)
    with _within(5), pytest.raises(error) as info:
        read(path)
    assert name in str(info.value) and ("FIFO" in str(info.value) or "not a file" in str(info.value))


def test_a_folder_named_like_a_scenario_is_refused(tmp_path: Path) -> None:
    (tmp_path / "scenario.json").mkdir()
    with pytest.raises(SessionFileError, match="folder"):
        load_session(tmp_path / "scenario.json")


def test_a_fifo_as_part_two_of_a_split_gguf(tmp_path: Path) -> None:
    w = GGUFWriter(tmp_path / "big.gguf", "llama", split_max_tensors=2)
    w.add_block_count(1)
    for i in range(4):
        w.add_tensor(f"t{i}.weight", np.zeros((4, 32), np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    second = tmp_path / "big-00002-of-00002.gguf"
    second.unlink()
    _fifo(second)
    with _within(5), pytest.raises(GGUFError, match="FIFO"):
        import_gguf(tmp_path / "big-00001-of-00002.gguf")


def test_a_fifo_in_the_user_catalog_is_a_problem_line(tmp_path: Path) -> None:
    _fifo(tmp_path / "models.json")
    with _within(5):
        found, problems = load_user(tmp_path)
    assert found["models"] == {} and len(problems) == 1 and "FIFO" in problems[0]


@pytest.mark.parametrize("name", ["model.gguf", "config.json", "weird.bin"])
def test_cli_inspect_refuses_a_fifo(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    path = _fifo(tmp_path / name)
    with _within(10):
        assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and name in err and "Traceback" not in err
