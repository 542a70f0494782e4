"""This machine as its system reports it: RAM, CPU, GPUs (NVIDIA, AMD, Intel), Apple chip.

    m = detect_machine()    # Machine(system, cpu, cores, ram_gb, gpus, apple_chip, mac_model, ...)

Sources, each optional and bounded:
- Linux: /proc/meminfo (MemTotal), /proc/cpuinfo (model name), os.cpu_count(); AMD and Intel GPUs
  from /sys/class/drm and `lspci -nn` (advisor.probe_pci);
- macOS: `sysctl -n hw.memsize machdep.cpu.brand_string hw.model iogpu.wired_limit_mb` (RAM, chip,
  Mac model, and how much of it the GPU may wire: 0 or absent means the system's default share);
- Windows: the CPU name from the registry, RAM from psutil, adapter names from Win32_VideoController;
- NVIDIA: `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader` (Linux and Windows);
- RAM: psutil wherever the system's own file did not give it.

Nothing found is a normal answer, never an error: a missing nvidia-smi, one that fails, prints
something odd or takes longer than TIMEOUT_S is noted in `machine.problems` and probing carries on.
Every command and file read goes through injectable `run` and `read` functions, so tests fake them.
Matching the result to a catalog entry is advisor.detect. No Qt here.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TIMEOUT_S = 2.0
GIB = 2.0**30
NVIDIA_SMI = ("nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader")
SYSCTL = ("sysctl", "-n", "hw.memsize", "machdep.cpu.brand_string", "hw.model", "iogpu.wired_limit_mb")
SYSCTL_OLD = SYSCTL[:-1]  # macOS before 14 has no iogpu.wired_limit_mb: sysctl then fails as a whole
LSPCI = ("lspci", "-nn")
VIDEO = ("powershell", "-NoProfile", "-Command", "Get-CimInstance Win32_VideoController | ForEach-Object { $_.Name }")

Runner = Callable[[Sequence[str], float], str]  # (argv, timeout s) -> stdout; raises on failure
Reader = Callable[[str], str]  # path -> text; raises OSError
Lister = Callable[[str], list[str]]  # folder -> names; raises OSError


def total_ram_bytes() -> int | None:
    """psutil's physical memory, any system (None if psutil is missing or fails)."""
    try:
        import psutil
    except ImportError:
        return None
    try:
        return int(psutil.virtual_memory().total)
    except (OSError, RuntimeError):
        return None


def windows_cpu_name() -> str | None:
    """The marketing CPU name Windows keeps in the registry (platform.processor() gives a family code)."""
    try:
        import winreg
    except ImportError:
        return None
    try:
        where = r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"
        key = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, where)  # type: ignore[attr-defined]
        return str(winreg.QueryValueEx(key, "ProcessorNameString")[0]).strip() or None  # type: ignore[attr-defined]
    except OSError:
        return None


def run_command(argv: Sequence[str], timeout: float) -> str:
    """stdout of `argv`; FileNotFoundError, subprocess.TimeoutExpired or CalledProcessError on failure."""
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, check=True)
    return done.stdout


def read_file(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gb: float | None  # GiB as nvidia-smi reports MiB; None when it says [N/A]
    vendor: str = "NVIDIA"
    integrated: bool = False  # shares system memory (an APU's or a laptop chip's own graphics)
    shared_gb: float | None = None  # system memory the GPU may map (amdgpu GTT), GiB


@dataclass(frozen=True)
class Machine:
    system: str
    cpu: str | None = None
    cores: int | None = None
    ram_gb: float | None = None  # GiB
    gpus: tuple[Gpu, ...] = ()
    apple_chip: str | None = None  # "Apple M3 Max"
    mac_model: str | None = None  # "Mac15,9"
    gpu_wired_gb: float | None = None  # macOS iogpu.wired_limit_mb when set: what the GPU may use, GiB
    problems: tuple[str, ...] = ()  # what could not be read, and why (normal on most machines)

    def describe(self) -> str:
        parts = []
        if self.apple_chip:
            parts.append(self.apple_chip + (f" ({self.mac_model})" if self.mac_model else ""))
        elif self.cpu:
            parts.append(self.cpu)
        if self.cores:
            parts.append(f"{self.cores} CPU threads")
        if self.ram_gb:
            parts.append(f"{self.ram_gb:.1f} GB RAM")
        for g in _group_gpus(self.gpus):
            parts.append(g)
        if self.gpu_wired_gb:
            parts.append(f"GPU may wire {self.gpu_wired_gb:.0f} GB")
        if not self.gpus and not self.apple_chip:
            parts.append("no GPU found")
        return ", ".join(parts) if parts else "nothing detected"

    @property
    def discrete(self) -> tuple[Gpu, ...]:
        return tuple(g for g in self.gpus if not g.integrated)


def _group_gpus(gpus: Sequence[Gpu]) -> list[str]:
    out: list[str] = []
    seen: dict[str, int] = {}
    for g in gpus:
        seen[g.name] = seen.get(g.name, 0) + 1
    for name, count in seen.items():
        mem = next((g.memory_gb for g in gpus if g.name == name), None)
        text = f"{count} × {name}" if count > 1 else name
        out.append(text + (f" {mem:.0f} GB" if mem else ""))
    return out


# --- reading the machine ---------------------------------------------------------------------


def _try(run: Runner, argv: Sequence[str], problems: list[str]) -> str | None:
    name = argv[0]
    try:
        return run(argv, TIMEOUT_S)
    except FileNotFoundError:
        problems.append(f"{name} not found")
    except subprocess.TimeoutExpired:
        problems.append(f"{name} did not answer within {TIMEOUT_S:g} s")
    except subprocess.CalledProcessError as err:
        detail = (err.stderr or err.stdout or "").strip().splitlines()
        problems.append(f"{name} failed (exit {err.returncode})" + (f": {detail[0][:160]}" if detail else ""))
    except (OSError, ValueError) as err:
        problems.append(f"{name} could not run: {err}")
    return None


def parse_nvidia_smi(text: str, problems: list[str]) -> tuple[Gpu, ...]:
    """`name, 24564 MiB` per line; odd lines are noted and skipped."""
    gpus = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        name, sep, mem = line.rpartition(",")
        name = name.strip()
        if not sep or not name:
            problems.append(f"nvidia-smi printed an unexpected line: {line[:120]!r}")
            continue
        m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*(MiB|GiB|MB|GB)?\s*$", mem, re.IGNORECASE)
        memory = None
        if m:
            value = float(m[1])
            unit = (m[2] or "MiB").lower()
            memory = value / 1024 if unit in ("mib", "mb") else value
        elif "n/a" not in mem.lower() and "not supported" not in mem.lower():
            problems.append(f"nvidia-smi printed an unexpected memory figure: {mem.strip()[:60]!r}")
        gpus.append(Gpu(name=name, memory_gb=memory))
    return tuple(gpus)


def _linux(read: Reader, problems: list[str]) -> tuple[str | None, float | None]:
    cpu = ram = None
    try:
        for line in read("/proc/cpuinfo").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "Hardware", "cpu model") and value.strip():
                cpu = value.strip()
                break
    except OSError as err:
        problems.append(f"/proc/cpuinfo: {err.strerror or err}")
    try:
        m = re.search(r"^MemTotal:\s*(\d+)\s*kB", read("/proc/meminfo"), re.MULTILINE)
        if m:
            ram = int(m[1]) * 1024 / GIB
        else:
            problems.append("/proc/meminfo has no MemTotal line")
    except OSError as err:
        problems.append(f"/proc/meminfo: {err.strerror or err}")
    return cpu, ram


def _mac(run: Runner, problems: list[str]) -> tuple[str | None, float | None, str | None, float | None]:
    quiet: list[str] = []
    out = _try(run, SYSCTL, quiet)
    if out is None:
        out = _try(run, SYSCTL_OLD, problems)
    if out is None:
        return None, None, None, None
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    ram = brand = model = wired = None
    if lines and lines[0].isdigit():
        ram = int(lines[0]) / GIB
        lines = lines[1:]
    else:
        problems.append(f"sysctl printed an unexpected memory size: {(lines or [''])[0][:60]!r}")
    if lines:
        brand = lines[0]
    if len(lines) > 1:
        model = lines[1]
    if len(lines) > 2 and lines[2].isdigit() and int(lines[2]) > 0:
        wired = int(lines[2]) / 1024
    return brand, ram, model, wired


def detect_machine(
    *,
    system: str | None = None,
    run: Runner = run_command,
    read: Reader = read_file,
    cpu_count: Callable[[], int | None] = os.cpu_count,
    listdir: Lister = os.listdir,
    total_ram: Callable[[], int | None] = total_ram_bytes,
    windows_cpu: Callable[[], str | None] = windows_cpu_name,
) -> Machine:
    """Everything this machine says about itself; every source is injectable (advisor.probe_replay
    answers them from a folder of captured outputs)."""
    from advisor.probe_pci import PciGpu, parse_video_controllers, read_drm

    system = system or platform.system()
    problems: list[str] = []
    cpu = ram = chip = model = wired = None
    if system == "Darwin":
        brand, ram, model, wired = _mac(run, problems)
        if brand and brand.startswith("Apple M"):
            chip = brand
        else:
            cpu = brand
    elif system == "Linux":
        cpu, ram = _linux(read, problems)
    elif system == "Windows":
        cpu = windows_cpu()
    else:
        cpu = platform.processor() or None
    if ram is None:
        total = total_ram()
        if total:
            ram = total / GIB
            problems[:] = [p for p in problems if not p.startswith("/proc/meminfo")]
    gpus: tuple[Gpu, ...] = ()
    if system != "Darwin":  # Macs have had no NVIDIA driver since 2019
        out = _try(run, NVIDIA_SMI, problems)
        if out is not None:
            gpus = parse_nvidia_smi(out, problems)
            if not gpus:
                problems.append("nvidia-smi listed no GPU")
    others: tuple[PciGpu, ...] = ()
    if system == "Linux":
        quiet: list[str] = []  # lspci is missing on many minimal systems: sysfs alone then
        others = read_drm(read, listdir, _try(run, LSPCI, quiet), problems)
    elif system == "Windows":
        quiet = []
        video = _try(run, VIDEO, quiet)
        others = parse_video_controllers(video) if video else ()
    for g in others:
        if g.vendor == "NVIDIA" and gpus:
            continue  # nvidia-smi named it, with its memory
        gpus += (
            Gpu(name=g.name, memory_gb=g.memory_gb, vendor=g.vendor, integrated=g.integrated, shared_gb=g.shared_gb),
        )
    try:
        cores = cpu_count()
    except (OSError, ValueError, NotImplementedError):
        cores = None
    return Machine(
        system=system,
        cpu=cpu,
        cores=cores,
        ram_gb=ram,
        gpus=gpus,
        apple_chip=chip,
        mac_model=model,
        gpu_wired_gb=wired,
        problems=tuple(problems),
    )
