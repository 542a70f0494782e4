"""This machine as its system reports it: RAM, CPU, NVIDIA GPUs, Apple chip.

    m = detect_machine()    # Machine(system, cpu, cores, ram_gb, gpus, apple_chip, mac_model, problems)

Sources, each optional and bounded:
- Linux: /proc/meminfo (MemTotal), /proc/cpuinfo (model name), os.cpu_count();
- macOS: `sysctl -n hw.memsize machdep.cpu.brand_string hw.model` (Apple chip, RAM, Mac model);
- NVIDIA: `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader` (Linux and Windows).

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
SYSCTL = ("sysctl", "-n", "hw.memsize", "machdep.cpu.brand_string", "hw.model")

Runner = Callable[[Sequence[str], float], str]  # (argv, timeout s) -> stdout; raises on failure
Reader = Callable[[str], str]  # path -> text; raises OSError


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


@dataclass(frozen=True)
class Machine:
    system: str
    cpu: str | None = None
    cores: int | None = None
    ram_gb: float | None = None  # GiB
    gpus: tuple[Gpu, ...] = ()
    apple_chip: str | None = None  # "Apple M3 Max"
    mac_model: str | None = None  # "Mac15,9"
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
        if not self.gpus and not self.apple_chip:
            parts.append("no NVIDIA GPU")
        return ", ".join(parts) if parts else "nothing detected"


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


def _mac(run: Runner, problems: list[str]) -> tuple[str | None, float | None, str | None]:
    out = _try(run, SYSCTL, problems)
    if out is None:
        return None, None, None
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    ram = brand = model = None
    if lines and lines[0].isdigit():
        ram = int(lines[0]) / GIB
        lines = lines[1:]
    else:
        problems.append(f"sysctl printed an unexpected memory size: {(lines or [''])[0][:60]!r}")
    if lines:
        brand = lines[0]
    if len(lines) > 1:
        model = lines[1]
    return brand, ram, model


def detect_machine(*, system: str | None = None, run: Runner = run_command, read: Reader = read_file,
                   cpu_count: Callable[[], int | None] = os.cpu_count) -> Machine:
    system = system or platform.system()
    problems: list[str] = []
    cpu = ram = chip = model = None
    if system == "Darwin":
        brand, ram, model = _mac(run, problems)
        if brand and brand.startswith("Apple M"):
            chip = brand
        else:
            cpu = brand
    elif system == "Linux":
        cpu, ram = _linux(read, problems)
    else:
        cpu = platform.processor() or None
    gpus: tuple[Gpu, ...] = ()
    if system != "Darwin":  # Macs have had no NVIDIA driver since 2019
        out = _try(run, NVIDIA_SMI, problems)
        if out is not None:
            gpus = parse_nvidia_smi(out, problems)
            if not gpus:
                problems.append("nvidia-smi listed no GPU")
    try:
        cores = cpu_count()
    except (OSError, ValueError, NotImplementedError):
        cores = None
    return Machine(system=system, cpu=cpu, cores=cores, ram_gb=ram, gpus=gpus, apple_chip=chip, mac_model=model,
                   problems=tuple(problems))
