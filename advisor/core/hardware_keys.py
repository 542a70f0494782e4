"""What a hardware's name says about it: its vendor, the backends that run on it and the usual one, its GPU
architecture (and the vendor whose Vulkan extension its matmuls use), and the chip across memory sizes.
The fitted factors of advisor.core.calibration are keyed by these."""

from __future__ import annotations

import re
from functools import lru_cache

from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.terms import Backend

BACKEND_LABELS: dict[Backend, str] = {
    Backend.CUDA: "CUDA",
    Backend.ROCM: "ROCm",
    Backend.VULKAN: "Vulkan",
    Backend.METAL: "Metal",
    Backend.SYCL: "SYCL",
    Backend.CPU: "CPU",
}

# Which vendors' hardware each vendor-specific backend runs on (Vulkan and CPU run anywhere).
# Checked in this order: any Mac runs Metal, whatever GPU it holds (an Intel MacBook with a Radeon).
_VENDOR_WORDS: dict[str, tuple[str, ...]] = {
    "apple": ("apple", "macbook", "mac mini", "mac studio", "mac pro", "imac"),
    "nvidia": ("nvidia", "geforce", "rtx", "gtx", "tesla", "quadro", "dgx", "jetson"),
    "amd": ("amd", "radeon", "ryzen", "instinct", "epyc", "threadripper", "strix"),
    "intel": ("intel", "arc ", "xeon", "core ultra", "lunar lake"),
}
_VENDOR_BACKEND = {"nvidia": Backend.CUDA, "amd": Backend.ROCM, "apple": Backend.METAL, "intel": Backend.SYCL}
_BACKEND_VENDOR = {b: v for v, b in _VENDOR_BACKEND.items()}


def hardware_vendor(hw: Hardware) -> str | None:
    """'nvidia', 'amd', 'apple' or 'intel' when the hardware's name says so; None for a custom name."""
    name = f" {hw.name.lower()} "
    for vendor, words in _VENDOR_WORDS.items():
        if any(w in name for w in words):
            return vendor
    return None


def default_backend(hw: Hardware) -> Backend:
    """The backend llama.cpp users usually run on this hardware: CPU without a GPU, else the vendor's
    own (CUDA, ROCm, Metal, SYCL); an unnamed discrete GPU counts as CUDA, unnamed unified memory as
    Metal (the common cases)."""
    if hw.kind is HardwareClass.CPU:
        return Backend.CPU
    vendor = hardware_vendor(hw)
    if vendor is not None:
        return _VENDOR_BACKEND[vendor]
    return Backend.METAL if hw.kind is HardwareClass.UNIFIED else Backend.CUDA


def backend_runs_on(backend: Backend, hw: Hardware) -> bool:
    """False when a vendor backend cannot run on the hardware (CUDA on an Apple chip, a GPU backend on
    a CPU-only machine); unnamed hardware accepts any backend."""
    if hw.kind is HardwareClass.CPU:
        return backend is Backend.CPU
    vendor = _BACKEND_VENDOR.get(backend)
    if vendor is None:
        return True
    found = hardware_vendor(hw)
    return found is None or found == vendor


def resolve_backend(hw: Hardware, chosen: Backend | None) -> Backend:
    """The backend a scenario runs: the chosen one where it can run on the hardware, else the default."""
    if chosen is not None and backend_runs_on(chosen, hw):
        return chosen
    return default_backend(hw)


_MINE = re.compile(r"\s*\(mine\)\s*$")
# A memory size in a hardware name ("…, 192 GB", "… 128 GB", "16GB"; not "GB10")
_MEMORY_SIZE = re.compile(r",?\s*\b\d+(?:\.\d+)?\s*GB\b")


# GPU architecture generations by the words of a hardware name (checked in order; {0} = the regex's group)
_GENERATIONS: tuple[tuple[str, str], ...] = (
    (r"\bapple m(\d)\b", "Apple M{0}"),
    (r"rtx 50\d\d(?! ada)|rtx pro \d+ blackwell|\bgb10\b|dgx spark|\bb200\b|jetson (?:agx )?thor", "NVIDIA Blackwell"),
    (r"rtx 40\d\d|\brtx \d+ ada\b|\bl40s?\b|\bl4\b", "NVIDIA Ada"),
    (r"\bh100\b|\bh200\b|\bgh200\b", "NVIDIA Hopper"),
    (r"rtx 30\d\d|\ba100\b|\brtx a\d000\b|\ba40\b|\ba10\b|jetson (?:agx )?orin", "NVIDIA Ampere"),
    (r"rtx 20\d\d|titan rtx|\bt4\b", "NVIDIA Turing"),
    (r"\bv100\b|titan v\b", "NVIDIA Volta"),
    (r"\bp40\b|\bp100\b|gtx 10\d\d", "NVIDIA Pascal"),
    (r"rx 9\d\d\d|\br9700\b", "AMD RDNA 4"),
    (r"rx 7\d\d\d|\bw7[89]00\b|\b7[89]0m\b|strix halo|ai max", "AMD RDNA 3"),
    (r"rx 6\d\d\d|\bw6[89]00\b", "AMD RDNA 2"),
    (r"\bmi[123]\d\dx?\b", "AMD CDNA"),
    (r"\bmi[56]0\b|radeon vii", "AMD GCN 5"),
    (r"\barc (?:pro )?b\d", "Intel Battlemage"),
    (r"\barc (?:pro )?a\d", "Intel Alchemist"),
)


def generation_key(hw: Hardware) -> str | None:
    """The GPU architecture generation the hardware's name says ("Apple M1", "NVIDIA Ada"); None for a
    CPU-only machine and for a name that says none (custom hardware)."""
    return None if hw.kind is HardwareClass.CPU else _generation_of(hw.name)


# Vulkan is the one backend every vendor's GPUs run, on each vendor's own driver and shader compiler: how
# well its kernels stream weights differs by architecture (on an Arc Pro B70 the same build decodes at
# half its SYCL rate under Vulkan, while an RTX 3090 decodes near its CUDA rate). An architecture's Vulkan
# runs carry a factor of their own on top of the architecture's.
VULKAN_SUFFIX = " under Vulkan"


def vulkan_generation_key(hw: Hardware) -> str | None:
    """The key of the architecture's own factor under Vulkan ("Intel Battlemage under Vulkan")."""
    key = generation_key(hw)
    return None if key is None else key + VULKAN_SUFFIX


def vulkan_vendor(hw: Hardware) -> str | None:
    """The GPU vendor whose cooperative-matrix extension Vulkan's matmuls run on ("NVIDIA", "AMD", "Intel")."""
    key = generation_key(hw)
    return None if key is None else key.split()[0]


def machine_key(hw: Hardware) -> str:
    """One chip across its memory sizes: the name without the size, and the bandwidth, so the M2 Ultra
    76-core with 128 GB and with 192 GB share a key ("Apple M2 Ultra (76-core GPU) @ 800 GB/s") while
    an RTX 3060 8 GB (240 GB/s) and 12 GB (360 GB/s) do not."""
    return f"{_chip_stem(hw.name)} @ {hw.bandwidth_gbps:g} GB/s"


# Cached by name: the fit looks both keys up for every measurement at every step (a third of its time
# uncached), and a catalog has a few hundred names.
@lru_cache(maxsize=4096)
def _generation_of(name: str) -> str | None:
    lowered = name.lower()
    for pattern, label in _GENERATIONS:
        if (m := re.search(pattern, lowered)) is not None:
            return label.format(*m.groups())
    return None


@lru_cache(maxsize=4096)
def _chip_stem(name: str) -> str:
    # the user's own copy of an entry ("… (mine)") is the same chip: it keeps the chip's fitted factor
    return re.sub(r"\(\s+", "(", _MEMORY_SIZE.sub("", _MINE.sub("", name))).strip()
