"""Opening a file the user named: regular files only, of a bounded size.

A FIFO or a device named as a model, config or scenario would block the read forever (or never end),
so the file is opened without blocking and its type checked on the open descriptor (no window
between the check and the read) before a byte is read."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """The path is a folder, FIFO, device or socket; strerror says which."""


class FileTooLarge(OSError):
    """Larger than the reader's limit; strerror gives the limit."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_regular(path: Path) -> None:
    """NotRegularFile unless `path` (followed through links) is a regular file; OSError if it cannot be seen."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(errno.EINVAL, f"not a regular file ({_kind(mode)})", str(path))


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for binary reading, refused unless it is a regular file."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegularFile(errno.EISDIR, "not a regular file (a folder)", str(path)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(errno.EINVAL, f"not a regular file ({_kind(mode)})", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, max_bytes: int) -> bytes:
    """The whole file, refused unless regular and at most `max_bytes` long."""
    with open_regular(path) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLarge(errno.EFBIG, f"larger than {_size(max_bytes)}, too large for this kind of file", str(path))
    return data


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} bytes"
