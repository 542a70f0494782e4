"""Atomic writes: a crash mid-save leaves the old file, never half a new one.

The new file keeps the old one's permission bits (a new file gets what the umask allows, as open()
would give it); a symbolic link is written through, so the link stays and its target changes; temp
files that an interrupted save left beside the file are removed by the next save."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

STALE_AFTER_S = 24 * 3600  # a temp file this old is a leftover whatever process named it
_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask, without changing it where the system can say (Linux: /proc)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        old = os.umask(0o022)
        os.umask(old)
    return old


def _mode_for(target: Path) -> int:
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":  # os.kill(pid, 0) on Windows would send CTRL_C_EVENT: rely on the age alone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's live process
        return True
    return True


def temp_prefix(target: Path) -> str:
    return f".{target.name}."


def stale_temps(target: Path) -> list[Path]:
    """Temp files of saves of `target` that will never finish: their process is gone, or they are old."""
    prefix = temp_prefix(target)
    out: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return out
    now = time.time()
    for e in entries:
        if not (e.name.startswith(prefix) and e.name.endswith(".tmp")):
            continue
        middle = e.name[len(prefix) : -len(".tmp")]
        pid_text = middle.split(".", 1)[0]
        try:
            if not e.is_file(follow_symlinks=False):
                continue
            old = now - e.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S
        except OSError:
            continue
        if old or ("." in middle and pid_text.isdigit() and not _alive(int(pid_text))):
            out.append(Path(e.path))
    return out


def _clean(target: Path) -> None:
    for p in stale_temps(target):
        try:
            p.unlink()
        except OSError:
            pass


def write_target(path: Path) -> Path:
    """Where a save of `path` lands: a symbolic link's final target, else the path itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def write_atomic(path: Path, data: str | bytes) -> None:
    target = write_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    mode = _mode_for(target)
    _clean(target)
    # the pid in the name tells a later save whether this one can still finish
    fd, tmp = tempfile.mkstemp(prefix=f"{temp_prefix(target)}{os.getpid()}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), mode)
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        if not hasattr(os, "fchmod"):
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def set_aside(path: Path) -> Path:
    """Rename an unreadable file to <name>.bad-<timestamp> (never over an earlier copy); the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    bad = path.with_name(f"{path.name}.bad-{stamp}")
    n = 1
    while bad.exists() or bad.is_symlink():  # two in one second must not overwrite the first copy
        bad = path.with_name(f"{path.name}.bad-{stamp}-{n}")
        n += 1
    path.rename(bad)
    return bad
