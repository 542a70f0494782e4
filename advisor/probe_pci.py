"""GPUs other than what nvidia-smi lists: AMD and Intel (and NVIDIA without its driver) from Linux's
sysfs and `lspci -nn`, and from Windows' list of video controllers.

- sysfs: /sys/class/drm/card*/device/{vendor, device, mem_info_vram_total, mem_info_gtt_total}; the
  amdgpu driver writes the two memory files (VRAM, and the system memory the GPU may map: GTT);
- lspci -nn: `03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31
  [Radeon RX 7900 XT/7900 XTX/7900M] [1002:744c] (rev c8)`: the marketing name in the last bracket
  before the ids; a short table of device ids names the parts that bracket leaves ambiguous.

An integrated GPU (an APU's Radeon, Intel's Iris/Arc Graphics) is reported with integrated=True: it
shares system memory, so detection matches the processor, not a graphics card. No Qt here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

GIB = 2.0**30
VENDORS = {"1002": "AMD", "8086": "Intel", "10de": "NVIDIA"}
DISPLAY_CLASSES = ("0300", "0302", "0380")  # VGA, 3D controller, display controller

# Device ids whose lspci name is ambiguous or a code name, as the catalog names them. 0x744c is both
# the 7900 XT (20 GB) and XTX (24 GB): told apart by VRAM below.
AMD_DEVICES = {
    "744c": "AMD Radeon RX 7900 XTX",
    "7448": "AMD Radeon PRO W7900",
    "7550": "AMD Radeon RX 9070 XT",
    "74a1": "AMD Instinct MI300X",
    "74a5": "AMD Instinct MI325X",
    "1586": "AMD Radeon 8060S (Strix Halo)",
    "150e": "AMD Radeon 890M (Strix Point)",
    "15bf": "AMD Radeon 780M (Phoenix)",
    "1900": "AMD Radeon 780M (Hawk Point)",
    "1681": "AMD Radeon 680M",
    "164e": "AMD Radeon Graphics (Raphael)",
    "13c0": "AMD Radeon Graphics (Granite Ridge)",
}
# APU graphics: shares system memory (names and code names as lspci and Windows print them).
_INTEGRATED = re.compile(
    r"strix|phoenix|hawk point|rembrandt|raphael|granite ridge|renoir|cezanne|lucienne|"
    r"barcelo|krackan|mendocino|van gogh|radeon \d{3,4}m\b|radeon 8[0-9]{3}s|radeon graphics|"
    r"radeon\(tm\) graphics|vega \d+ graphics|iris|uhd graphics|hd graphics|"
    r"intel\(r\) graphics|arc graphics|arc\(tm\) graphics|arc 1[34]0v",
    re.IGNORECASE,
)
_INTEL_DISCRETE = re.compile(r"\barc\s*(?:\(tm\)\s*)?(?:pro\s+)?[ab]\d{3}", re.IGNORECASE)


@dataclass(frozen=True)
class PciGpu:
    vendor: str  # AMD, Intel, NVIDIA
    device_id: str  # four hex digits
    name: str
    memory_gb: float | None = None  # dedicated VRAM (or an APU's carve-out), GiB
    shared_gb: float | None = None  # system memory the GPU may map (amdgpu GTT), GiB
    integrated: bool = False


def is_integrated(vendor: str, name: str) -> bool:
    if vendor == "Intel":
        return not _INTEL_DISCRETE.search(name)
    return vendor == "AMD" and bool(_INTEGRATED.search(name))


def parse_lspci(text: str) -> dict[str, tuple[str, str, str]]:
    """{"vendor:device": (vendor, device, marketing name)} for each display controller in `lspci -nn`."""
    out: dict[str, tuple[str, str, str]] = {}
    for line in text.splitlines():
        m = re.search(r"\[(03\d\d)\]:\s*(.*)\s\[([0-9a-f]{4}):([0-9a-f]{4})\]", line, re.IGNORECASE)
        if not m or m[1] not in DISPLAY_CLASSES:
            continue
        vendor_id, device_id, desc = m[3].lower(), m[4].lower(), m[2]
        vendor = VENDORS.get(vendor_id)
        if vendor is None:
            continue
        brackets = re.findall(r"\[([^\[\]]+)\]", desc)
        brackets = [b for b in brackets if b not in ("AMD/ATI", "AMD")]
        name = brackets[-1] if brackets else desc.split("]")[-1].strip()
        out[f"{vendor_id}:{device_id}"] = (vendor, device_id, _full_name(vendor, name))
    return out


def _full_name(vendor: str, name: str) -> str:
    name = name.strip()
    return name if name.lower().startswith(vendor.lower()) else f"{vendor} {name}"


def _bytes_gib(text: str) -> float | None:
    text = text.strip()
    return int(text) / GIB if text.isdigit() and int(text) > 0 else None


def read_drm(
    read: Callable[[str], str], listdir: Callable[[str], list[str]], lspci: str | None, problems: list[str]
) -> tuple[PciGpu, ...]:
    """The GPUs sysfs lists (one per card), named from lspci or the device table; without sysfs (not
    Linux, or a container), lspci's list alone."""
    names = parse_lspci(lspci) if lspci else {}
    gpus: list[PciGpu] = []
    seen: set[str] = set()
    try:
        cards = sorted(c for c in listdir("/sys/class/drm") if re.fullmatch(r"card\d+", c))
    except OSError:
        cards = []
    for card in cards:
        base = f"/sys/class/drm/{card}/device/"
        try:
            vendor_id = read(base + "vendor").strip().lower().removeprefix("0x")
            device_id = read(base + "device").strip().lower().removeprefix("0x")
        except OSError:
            continue
        vendor = VENDORS.get(vendor_id)
        if vendor is None:
            continue
        vram = gtt = None
        try:
            vram = _bytes_gib(read(base + "mem_info_vram_total"))
            gtt = _bytes_gib(read(base + "mem_info_gtt_total"))
        except OSError:
            pass  # only amdgpu writes them
        key = f"{vendor_id}:{device_id}"
        seen.add(key)
        gpus.append(_gpu(vendor, device_id, names.get(key, (vendor, device_id, ""))[2], vram, gtt))
    for key, (vendor, device_id, name) in names.items():
        if key not in seen:
            gpus.append(_gpu(vendor, device_id, name, None, None))
    unnamed = [g for g in gpus if g.name.endswith(f"[{g.device_id}]")]
    if unnamed and lspci is None:
        problems.append(f"GPU {unnamed[0].vendor} device {unnamed[0].device_id} has no name (lspci not available)")
    return tuple(gpus)


def _gpu(vendor: str, device_id: str, name: str, vram: float | None, gtt: float | None) -> PciGpu:
    if vendor == "AMD" and device_id in AMD_DEVICES:
        name = AMD_DEVICES[device_id]
        if device_id == "744c" and vram is not None and vram < 22:
            name = "AMD Radeon RX 7900 XT"
    name = name or f"{vendor} GPU [{device_id}]"
    integrated = is_integrated(vendor, name)
    return PciGpu(vendor=vendor, device_id=device_id, name=name, memory_gb=vram, shared_gb=gtt, integrated=integrated)


def parse_video_controllers(text: str) -> tuple[PciGpu, ...]:
    """Windows' adapter names (one per line, Win32_VideoController.Name): AMD and Intel by name only
    (its AdapterRAM field stops at 4 GB, so memory is not read from it)."""
    out = []
    for line in text.splitlines():
        name = line.strip()
        vendor = (
            "AMD"
            if re.search(r"\b(amd|radeon)\b", name, re.IGNORECASE)
            else "Intel"
            if re.search(r"\bintel\b|\barc\b", name, re.IGNORECASE)
            else None
        )
        if vendor is None:
            continue  # NVIDIA comes from nvidia-smi, with its memory; virtual adapters are skipped
        name = re.sub(r"\((?:tm|r)\)", "", name, flags=re.IGNORECASE)
        out.append(
            PciGpu(vendor=vendor, device_id="", name=_full_name(vendor, name), integrated=is_integrated(vendor, name))
        )
    return tuple(out)
