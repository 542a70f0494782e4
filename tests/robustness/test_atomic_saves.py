"""Atomic saves: killed at any moment they leave the old or the new file whole; the file keeps its mode
(a new one gets the umask's), a symbolic link stays a link to the file that changed, and the temp files
of killed saves are gone after the next save."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.atomic import STALE_AFTER_S, stale_temps, write_atomic

posix = pytest.mark.skipif(os.name != "posix", reason="modes, links and kill are POSIX")

WRITER = """
import sys
from pathlib import Path
from advisor.atomic import write_atomic
path = Path(sys.argv[1])
n = 0
print("ready", flush=True)
while True:
    n += 1
    write_atomic(path, (f"{n:08d}" * 250_000).encode())  # 2 MB: a save takes long enough to be cut
"""


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@posix
def test_new_file_gets_the_umask_default(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "a.json", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a.json") == 0o640
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "b.json", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "b.json") == 0o644


@posix
def test_saving_over_a_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "shared.json"
    path.write_text("old")
    os.chmod(path, 0o664)
    write_atomic(path, "new")
    assert path.read_text() == "new" and _mode(path) == 0o664


@posix
def test_saving_through_a_symlink_writes_its_target(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "settings.json"
    target.write_text("old")
    os.chmod(target, 0o600)
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new" and _mode(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real", "settings.json"]


def test_old_and_dead_temp_files_are_cleaned(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    dead = tmp_path / ".models.json.999999999.abcd1234.tmp"  # no such process
    old = tmp_path / ".models.json.x1y2z3w4.tmp"  # an older naming, stale by age
    fresh = tmp_path / f".models.json.{os.getpid()}.live1234.tmp"  # this process, still writing
    other = tmp_path / ".other.json.999999999.abcd1234.tmp"  # another file's: not ours to touch
    for p in (dead, old, fresh, other):
        p.write_text("partial")
    os.utime(old, (time.time() - STALE_AFTER_S - 60,) * 2)
    assert set(stale_temps(path)) == ({dead, old} if os.name == "posix" else {old})
    write_atomic(path, "[]")
    assert fresh.exists() and other.exists() and not old.exists()


@posix
@pytest.mark.parametrize("kills", [3, pytest.param(30, marks=pytest.mark.slow)])
def test_killed_saves_leave_whole_files_modes_links_and_no_leftovers(tmp_path: Path, kills: int) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "models.json"
    target.write_bytes(b"00000000" * 250_000)
    os.chmod(target, 0o640)
    link = tmp_path / "models.json"
    link.symlink_to(target)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for k in range(kills):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(link)], stdout=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(0.02 + 0.013 * k)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        data = target.read_bytes()
        assert len(data) == 2_000_000 and data == data[:8] * 250_000  # one whole save, never half of one
        assert link.is_symlink() and _mode(target) == 0o640
    write_atomic(link, b"[]")
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["models.json"]  # the killed saves' temps gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models.json", "real"]
