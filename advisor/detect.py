"""This machine: what it has (RAM, CPU, NVIDIA GPUs, Apple chip) and the closest catalog entry.

    d = detect(catalog)                 # Detection(entry_id or None, found text, confidence, machine)
    session = detected_session(catalog) # the default session on the detected hardware, or None

Sources, each optional and bounded:
- Linux: /proc/meminfo (MemTotal), /proc/cpuinfo (model name), os.cpu_count();
- macOS: `sysctl -n hw.memsize machdep.cpu.brand_string hw.model` (Apple chip, RAM, Mac model);
- NVIDIA: `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader` (Linux and Windows).

Nothing found is a normal answer (entry None, confidence "none"), never an error: a missing
nvidia-smi, one that fails, prints something odd or takes longer than TIMEOUT_S is noted in
`machine.problems` and detection carries on. Every command and file read goes through injectable
`run` and `read` functions, so tests fake them. No Qt here.

Matching, by name then memory:
- NVIDIA: the GPU's model tokens (4090, a100, gb10…) must equal the entry's; qualifiers (Ti, SUPER,
  Laptop, PCIe/SXM, Ada…) that differ lower the score; memory breaks ties. high = every qualifier
  agrees and memory is within 10 %.
- Apple: chip (M3 Max) must equal the entry's; then the same unified memory. high = one entry with
  that chip and memory (the GPU core count is not read; when two variants share a memory size,
  medium).
- CPU only: the CPU's model number (9950X, 285K, 9654…) found in an entry's name; always medium,
  since the channel count and memory speed behind the figure are not known. The detected RAM
  replaces the entry's capacity when they differ by more than 10 %.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import Catalog
from advisor.catalog.schema import HardwareEntry
from advisor.core.hardware import HardwareClass
from advisor.session import Session

TIMEOUT_S = 2.0
GIB = 2.0**30
NVIDIA_SMI = ("nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader")
SYSCTL = ("sysctl", "-n", "hw.memsize", "machdep.cpu.brand_string", "hw.model")
MEMORY_TOLERANCE = 0.10

Confidence = Literal["high", "medium", "low", "none"]
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


@dataclass(frozen=True)
class Detection:
    entry_id: str | None
    found: str  # what was found, in words
    confidence: Confidence
    machine: Machine
    reason: str = ""  # why this entry (or why none)
    alternatives: tuple[str, ...] = field(default=())

    def text(self) -> str:
        if self.entry_id is None:
            return f"Detected {self.found}; no close catalog entry ({self.reason})."
        return f"Detected {self.found} → {self.entry_id} ({self.confidence} confidence: {self.reason})."


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


# --- matching the catalog --------------------------------------------------------------------

_STOP = {"nvidia", "geforce", "gpu", "graphics", "generation", "edition", "workstation", "with", "apple", "amd",
         "intel", "core", "gb", "hgx", "superchip", "grace", "hopper", "nvl4"}
_ALIAS = {"sxm4": "sxm", "sxm5": "sxm", "hbm3": "sxm", "hbm3e": "sxm", "mobile": "laptop", "maxq": "laptop"}
_QUALIFIERS = {"ti", "super", "laptop", "pcie", "sxm", "ada", "pro", "max", "ultra", "nvl", "blackwell", "xt",
               "xtx"}


def name_tokens(name: str) -> set[str]:
    s = name.lower()
    s = re.sub(r"\(\d+-core gpu\)", " ", s)
    s = re.sub(r"\b\d+(?:\.\d+)?\s*(?:gb|gib|mib|tb)\b", " ", s)  # memory sizes are compared as numbers
    s = re.sub(r"\b\d+\s*w\b", " ", s)  # board power
    s = s.replace("max-q", "maxq")
    return {_ALIAS.get(t, t) for t in re.findall(r"[a-z0-9]+", s) if t not in _STOP}


def _model_tokens(tokens: set[str]) -> set[str]:
    return {t for t in tokens if any(ch.isdigit() for ch in t)}


def _mem_close(a: float | None, b: float) -> bool:
    return a is not None and b > 0 and abs(a / b - 1) <= MEMORY_TOLERANCE


def _match_gpu(gpu: Gpu, entries: Sequence[HardwareEntry]) -> tuple[HardwareEntry, Confidence, str] | None:
    want = name_tokens(gpu.name)
    model = _model_tokens(want)
    if not model:
        return None
    scored = []
    for e in entries:
        if e.kind is HardwareClass.CPU:
            continue
        have = name_tokens(e.name) | name_tokens(e.id.replace("-", " "))
        if _model_tokens(name_tokens(e.name)) != model:
            continue
        qualifier_miss = len((want ^ have) & _QUALIFIERS)
        other_miss = len((want ^ have) - _QUALIFIERS - model)
        mem = abs((gpu.memory_gb or e.memory_gb) - e.memory_gb) / e.memory_gb
        scored.append((qualifier_miss, mem if gpu.memory_gb else 0.0, other_miss, e))
    if not scored:
        return None
    scored.sort(key=lambda t: (t[0], t[1], t[2]))
    miss, _mem, _other, best = scored[0]
    mem_ok = gpu.memory_gb is None or _mem_close(gpu.memory_gb, best.memory_gb)
    confidence: Confidence = "high" if miss == 0 and mem_ok else "medium"
    why = f"name matches {best.name}"
    if miss:
        why += " except a variant word (Ti, SUPER, Laptop, PCIe/SXM…)"
    if gpu.memory_gb is not None:
        why += f"; {gpu.memory_gb:.0f} GB against the entry's {best.memory_gb:g} GB"
    return best, confidence, why


_CHIP = re.compile(r"\bm(\d)\b(?:\s+(pro|max|ultra))?", re.IGNORECASE)


def _chip(name: str) -> tuple[str, str] | None:
    m = _CHIP.search(name)
    return (m[1], (m[2] or "").lower()) if m else None


def _match_apple(chip: str, ram: float | None, entries: Sequence[HardwareEntry]
                 ) -> tuple[HardwareEntry, Confidence, str] | None:
    want = _chip(chip)
    if want is None:
        return None
    same = [e for e in entries if e.kind is HardwareClass.UNIFIED and e.name.startswith("Apple")
            and _chip(e.name) == want]
    if not same:
        return None
    if ram is None:
        return same[0], "low", f"chip matches {same[0].name}; memory unknown"
    exact = [e for e in same if abs(e.memory_gb - ram) < 0.5]
    if exact:
        best = max(exact, key=lambda e: e.bandwidth_gbps)
        confidence: Confidence = "high" if len(exact) == 1 else "medium"
        why = f"{chip} with {ram:.0f} GB"
        if len(exact) > 1:
            why += " (GPU core count not read: the larger variant is assumed)"
        return best, confidence, why
    best = min(same, key=lambda e: abs(e.memory_gb - ram))
    return best, "low", f"{chip}, but no entry with {ram:.0f} GB; closest is {best.memory_gb:g} GB"


def _cpu_tokens(name: str) -> set[str]:
    s = name.lower()
    s = re.sub(r"\b(?:lp)?ddr\d\w*-\d+|\bmrdimm-\d+|\b\d+-(?:channel|core)\b", " ", s)
    s = re.sub(r"\b\d+(?:\.\d+)?\s*(?:gb|ghz|w)\b", " ", s)
    return {t for t in re.findall(r"[a-z0-9]+", s) if sum(ch.isdigit() for ch in t) >= 3}


def _match_cpu(cpu: str, entries: Sequence[HardwareEntry]) -> tuple[HardwareEntry, Confidence, str] | None:
    want = _cpu_tokens(cpu)
    if not want:
        return None
    for e in entries:
        if e.kind is HardwareClass.CPU and _cpu_tokens(e.name) & want:
            return e, "medium", f"CPU {cpu} named in {e.name}; its channels and memory speed are assumed"
    return None


def match_entry(machine: Machine, catalog: Catalog) -> Detection:
    """The closest catalog entry to `machine`: NVIDIA GPU first, then Apple chip, then a CPU entry."""
    entries = [e for eid, e in catalog.hardware.items() if f"hardware/{eid}" not in catalog.user_ids]
    found = machine.describe()
    hit = None
    if machine.gpus:
        hit = _match_gpu(machine.gpus[0], entries)
    if hit is None and machine.apple_chip:
        hit = _match_apple(machine.apple_chip, machine.ram_gb, entries)
    if hit is None and machine.cpu and not machine.gpus:
        hit = _match_cpu(machine.cpu, entries)
    if hit is None:
        if machine.gpus:
            why = f"no catalog GPU named like {machine.gpus[0].name}"
        elif machine.apple_chip:
            why = f"no catalog entry for {machine.apple_chip}"
        elif machine.cpu:
            why = f"no catalog CPU entry names {machine.cpu}"
        else:
            why = "neither a GPU nor a CPU model could be read"
        return Detection(entry_id=None, found=found, confidence="none", machine=machine, reason=why)
    entry, confidence, why = hit
    return Detection(entry_id=entry.id, found=found, confidence=confidence, machine=machine, reason=why)


def detect(catalog: Catalog, **kwargs: object) -> Detection:
    """detect_machine (kwargs: system, run, read, cpu_count) then match_entry."""
    return match_entry(detect_machine(**kwargs), catalog)  # type: ignore[arg-type]


def detected_session(catalog: Catalog, base: Session | None = None, detection: Detection | None = None,
                     **kwargs: object) -> Session | None:
    """The first-start session on this machine's closest catalog entry, or None when nothing matched
    (the caller keeps its default). `base` supplies model, quant and workload (default: the app's
    default session). The user's own measured copy (`<id>-mine`) is preferred when one exists, with
    its measured η. Detected RAM fills the host RAM beside a GPU, or a CPU-only machine's memory when
    it differs from the entry's by more than 10 %; several identical NVIDIA GPUs set the device count."""
    d = detection or detect(catalog, **kwargs)
    if d.entry_id is None or d.entry_id not in catalog.hardware:
        return None
    if base is None:
        from advisor.app import default_session  # lazily: advisor.app may import this module

        base = default_session(catalog)
    from advisor.measure.entry import apply_measured, mine_id

    entry = catalog.hardware[d.entry_id]
    mine = catalog.hardware.get(mine_id(entry.id, entry.name))
    if mine is not None and mine.kind is entry.kind:
        entry = mine
    hw = to_hardware(entry).model_dump()
    m = d.machine
    if m.ram_gb:
        if entry.kind is HardwareClass.DISCRETE_GPU:
            hw["host_memory_gb"] = float(round(m.ram_gb))
        elif entry.kind is HardwareClass.CPU and not _mem_close(m.ram_gb, entry.memory_gb):
            hw["memory_gb"] = float(max(round(m.ram_gb), 1))
    if len(m.gpus) > 1 and len({g.name for g in m.gpus}) == 1 and entry.kind is HardwareClass.DISCRETE_GPU:
        hw["devices"] = min(len(m.gpus), 64)
    data = base.model_dump()
    data["scenario"]["hardware"] = hw
    previous = catalog.hardware.get(base.hardware_id) if base.hardware_id else None
    data["scenario"]["workload"] = apply_measured(data["scenario"]["workload"], previous, entry)
    data["hardware_id"] = entry.id
    return Session.model_validate(data)
