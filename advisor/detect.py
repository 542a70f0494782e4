"""This machine's closest catalog entry, from what advisor.probe reads of it.

    d = detect(catalog)                 # Detection(entry_id or None, found text, confidence, machine)
    session = detected_session(catalog) # the default session on the detected hardware, or None

Nothing found is a normal answer (entry None, confidence "none"), never an error. No Qt here.

Matching, by name then memory:
- A discrete GPU (NVIDIA, AMD, Intel Arc): the GPU's model tokens (4090, a100, 7900, a770…) must equal
  the entry's; qualifiers (Ti, SUPER, Laptop, PCIe/SXM, XT/XTX…) that differ lower the score; memory
  breaks ties. high = every qualifier agrees and memory is within 10 %. A laptop GPU matched only to
  a desktop card is low: the desktop part's bandwidth is far above the laptop's.
- Apple: chip (M3 Max) must equal the entry's; then the same unified memory. high = one entry with
  that chip and memory (the GPU core count is not read; when two variants share a memory size,
  medium).
- An APU (Ryzen AI Max+ 395 and the like): its model number in a unified-memory entry's name, then the
  memory: system RAM plus what the firmware carved out for the GPU (amdgpu's VRAM). high = within 10 %.
- CPU only (integrated graphics are not a GPU entry): the CPU's model number (9950X, 285K, 9654…)
  found in an entry's name; always medium,
  since the channel count and memory speed behind the figure are not known. The detected RAM
  replaces the entry's capacity when they differ by more than 10 %.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import Catalog
from advisor.catalog.schema import HardwareEntry
from advisor.core.hardware import HardwareClass
from advisor.defaults import default_session
from advisor.probe import Gpu, Machine, detect_machine
from advisor.session import Session

MEMORY_TOLERANCE = 0.10

Confidence = Literal["high", "medium", "low", "none"]


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


# --- matching the catalog --------------------------------------------------------------------

_STOP = {
    "nvidia",
    "geforce",
    "gpu",
    "graphics",
    "generation",
    "edition",
    "workstation",
    "with",
    "apple",
    "amd",
    "intel",
    "core",
    "gb",
    "hgx",
    "superchip",
    "grace",
    "hopper",
    "nvl4",
}
_ALIAS = {"sxm4": "sxm", "sxm5": "sxm", "hbm3": "sxm", "hbm3e": "sxm", "mobile": "laptop", "maxq": "laptop"}
_QUALIFIERS = {"ti", "super", "laptop", "pcie", "sxm", "ada", "pro", "max", "ultra", "nvl", "blackwell", "xt", "xtx"}


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
    if "laptop" in want and "laptop" not in name_tokens(best.name):
        confidence = "low"
        why += "; no entry for the laptop part: the desktop card's bandwidth is higher than this GPU's"
    if gpu.memory_gb is not None:
        why += f"; {gpu.memory_gb:.0f} GB against the entry's {best.memory_gb:g} GB"
    return best, confidence, why


_CHIP = re.compile(r"\bm(\d)\b(?:\s+(pro|max|ultra))?", re.IGNORECASE)


def _chip(name: str) -> tuple[str, str] | None:
    m = _CHIP.search(name)
    return (m[1], (m[2] or "").lower()) if m else None


def _match_apple(
    chip: str, ram: float | None, entries: Sequence[HardwareEntry]
) -> tuple[HardwareEntry, Confidence, str] | None:
    want = _chip(chip)
    if want is None:
        return None
    same = [
        e for e in entries if e.kind is HardwareClass.UNIFIED and e.name.startswith("Apple") and _chip(e.name) == want
    ]
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


def _match_apu(
    cpu: str, memory_gb: float | None, entries: Sequence[HardwareEntry]
) -> tuple[HardwareEntry, Confidence, str] | None:
    want = _cpu_tokens(cpu)
    same = [
        e
        for e in entries
        if e.kind is HardwareClass.UNIFIED and not e.name.startswith("Apple") and want & _cpu_tokens(e.name)
    ]
    if not want or not same:
        return None
    if memory_gb is None:
        return same[0], "low", f"{cpu} named in {same[0].name}; memory unknown"
    best = min(same, key=lambda e: abs(e.memory_gb - memory_gb))
    close = _mem_close(memory_gb, best.memory_gb)
    return (
        best,
        "high" if close else "low",
        f"{cpu} with {memory_gb:.0f} GB" + ("" if close else f"; the closest entry has {best.memory_gb:g} GB"),
    )


def _cpu_tokens(name: str) -> set[str]:
    s = name.lower()
    s = re.sub(r"\b(?:lp)?ddr\d\w*-\d+|\bmrdimm-\d+|\b\d+-(?:channel|core)\b", " ", s)
    s = re.sub(r"\b\d+(?:\.\d+)?\s*(?:gb|ghz|w(?!/))\b", " ", s)  # "395 w/ Radeon" is no wattage
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
    discrete = machine.discrete
    if discrete:
        hit = _match_gpu(discrete[0], entries)
    if hit is None and machine.apple_chip:
        hit = _match_apple(machine.apple_chip, machine.ram_gb, entries)
    if hit is None and machine.cpu and not discrete:
        carved = sum(g.memory_gb or 0.0 for g in machine.gpus if g.integrated)
        memory = machine.ram_gb + carved if machine.ram_gb else None
        hit = _match_apu(machine.cpu, memory, entries) or _match_cpu(machine.cpu, entries)
    if hit is None:
        if discrete:
            why = f"no catalog GPU named like {discrete[0].name}"
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


def detected_session(
    catalog: Catalog, base: Session | None = None, detection: Detection | None = None, **kwargs: object
) -> Session | None:
    """The first-start session on this machine's closest catalog entry, or None when nothing matched
    (the caller keeps its default). `base` supplies model, quant and workload (default: the app's
    default session). The user's own measured copy (`<id>-mine`) is preferred when one exists, with
    its measured η. Detected RAM fills the host RAM beside a GPU, or a CPU-only machine's memory when
    it differs from the entry's by more than 10 %; several identical NVIDIA GPUs set the device count."""
    d = detection or detect(catalog, **kwargs)
    if d.entry_id is None or d.entry_id not in catalog.hardware:
        return None
    if base is None:
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
    gpus = m.discrete
    if len(gpus) > 1 and len({g.name for g in gpus}) == 1 and entry.kind is HardwareClass.DISCRETE_GPU:
        hw["devices"] = min(len(gpus), 64)
    if m.gpu_wired_gb and entry.kind is HardwareClass.UNIFIED and entry.memory_gb:
        # macOS lets the GPU wire this much (sysctl iogpu.wired_limit_mb) instead of its default share
        hw["gpu_memory_fraction"] = min(max(m.gpu_wired_gb / entry.memory_gb, 0.01), 1.0)
    data = base.model_dump()
    data["scenario"]["hardware"] = hw
    previous = catalog.hardware.get(base.hardware_id) if base.hardware_id else None
    data["scenario"]["workload"] = apply_measured(data["scenario"]["workload"], previous, entry)
    data["hardware_id"] = entry.id
    return Session.model_validate(data)
