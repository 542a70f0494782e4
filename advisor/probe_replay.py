"""Detection on captured probe outputs instead of the live machine (`advisor.cli detect --replay DIR`).

A person can attach such a folder to a bug report; the tests build many. Every file is optional:
a missing one is what a missing command or file would be on the machine.

    system          Linux, Darwin or Windows
    nvidia-smi.txt  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    cpuinfo         a copy of /proc/cpuinfo
    meminfo         a copy of /proc/meminfo
    sysctl.txt      sysctl -n hw.memsize machdep.cpu.brand_string hw.model iogpu.wired_limit_mb
    lspci.txt       lspci -nn
    drm/            a copy of /sys/class/drm/card*/device/{vendor,device,mem_info_vram_total,mem_info_gtt_total}
                    (drm/card0/device/vendor, ...)
    video.txt       Windows: Get-CimInstance Win32_VideoController | ForEach-Object { $_.Name }
    cpu.txt         Windows: the CPU name (HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0,
                    ProcessorNameString)
    ram.txt         total physical memory in bytes (psutil.virtual_memory().total), where the
                    system's own files above do not give it
    nproc.txt       logical CPUs (os.cpu_count())
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.probe import LSPCI, NVIDIA_SMI, SYSCTL, SYSCTL_OLD, VIDEO

COMMAND_FILES = {
    NVIDIA_SMI: "nvidia-smi.txt",
    SYSCTL: "sysctl.txt",
    SYSCTL_OLD: "sysctl.txt",
    LSPCI: "lspci.txt",
    VIDEO: "video.txt",
}
FILES = {"/proc/cpuinfo": "cpuinfo", "/proc/meminfo": "meminfo"}
SYSTEMS = ("Linux", "Darwin", "Windows")
MAX_FILE_BYTES = 1_000_000  # a probe output is a few kB: anything larger is not one


class ReplayError(ValueError):
    pass


def _text(path: Path) -> str:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise OSError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes")
    return path.read_text(encoding="utf-8", errors="replace")


def replay_sources(folder: Path) -> dict[str, Any]:
    """detect_machine's keyword arguments answered from `folder`."""
    if not folder.is_dir():
        raise ReplayError(f"{folder}: not a folder of captured probe outputs")
    system_file = folder / "system"
    system = _text(system_file).strip() if system_file.is_file() else ""
    if system not in SYSTEMS:
        raise ReplayError(f"{system_file}: must say {', '.join(SYSTEMS)} (it says {system[:40]!r})")

    def run(argv: Sequence[str], _timeout: float) -> str:  # a missing file is a command not installed
        name = COMMAND_FILES.get(tuple(argv))
        f = folder / name if name else None
        if f is None or not f.is_file():
            raise FileNotFoundError(argv[0])
        return _text(f)

    def read(path: str) -> str:
        if path in FILES:
            return _text(folder / FILES[path])
        if path.startswith("/sys/class/drm/"):
            return _text(folder / "drm" / path.removeprefix("/sys/class/drm/"))
        raise FileNotFoundError(path)

    def listdir(path: str) -> list[str]:
        if path == "/sys/class/drm" and (folder / "drm").is_dir():
            return sorted(p.name for p in (folder / "drm").iterdir())
        raise FileNotFoundError(path)

    def number(name: str) -> int | None:
        f = folder / name
        text = _text(f).strip() if f.is_file() else ""
        return int(text) if text.isdigit() else None

    def cpu_name() -> str | None:
        f = folder / "cpu.txt"
        return (_text(f).strip() or None) if f.is_file() else None

    return {
        "system": system,
        "run": run,
        "read": read,
        "listdir": listdir,
        "total_ram": lambda: number("ram.txt"),
        "cpu_count": lambda: number("nproc.txt"),
        "windows_cpu": cpu_name,
    }
