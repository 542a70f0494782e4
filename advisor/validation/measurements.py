"""The published measurements' files read into typed rows: benchmarks/data/measurements.csv into
`Measurement`s and hardware_specs.csv into `HardwareSpec`s. Reading never raises on a bad row: the
row is reported as a problem ("line N: field: problem") and left out."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.terms import Backend

COLUMNS = (
    "hardware_id",
    "hardware_name",
    "gpus",
    "model_id",
    "model_name",
    "params_b",
    "active_params_b",
    "quant",
    "bits_per_weight",
    "engine",
    "test",
    "prompt_tokens",
    "gen_tokens",
    "depth",
    "batch",
    "gpu_layers",
    "n_cpu_moe",
    "tok_s",
    "source_url",
    "notes",
)
# Read when present (older copies of the file lack them).
OPTIONAL_COLUMNS = ("backend", "exclude_reason", "flash_attn", "build_date", "build_flags")
BACKEND_NAMES = {b.value: b for b in Backend}
BUILD_DATE = re.compile(r"20[0-9]{2}-(0[1-9]|1[0-2])")
BUILD_FLAG = re.compile(r"GGML_[A-Z0-9_]+=(ON|OFF)")
SPEC_COLUMNS = (
    "hardware_name",
    "class",
    "memory_gb",
    "bandwidth_gbps",
    "fp16_tflops",
    "host_memory_gb",
    "host_bandwidth_gbps",
    "host_link_gbps",
    "source",
    "notes",
    "catalog_id",
)
HOST_FIELDS = ("host_memory_gb", "host_bandwidth_gbps", "host_link_gbps")

# llama-bench's "all layers" value; the data set writes 99 for -ngl 99, -1 and "all".
ALL_LAYERS = 99


@dataclass(frozen=True)
class Measurement:
    """One CSV row, typed. Optional numbers are None when the cell is empty."""

    line: int
    hardware_id: str
    hardware_name: str
    gpus: int
    model_id: str
    model_name: str
    params_b: float | None
    active_params_b: float | None
    quant: str
    bits_per_weight: float | None
    engine: str
    test: Literal["tg", "pp"]
    prompt_tokens: int | None
    gen_tokens: int | None
    depth: int | None
    batch: int
    gpu_layers: int | None
    n_cpu_moe: int
    tok_s: float
    source_url: str
    notes: str
    backend: Backend | None = None  # as the source states it; None when it does not
    exclude_reason: str = ""  # set: kept in the file, not fitted, not in the statistics
    flash_attn: bool | None = None  # llama.cpp's -fa as the source shows it; None when it does not say
    build_date: str = ""  # YYYY-MM of the build the source ran; "" when it does not say
    # the build's CMake options the source states that change the model ("GGML_SYCL_F16=ON"), space-separated
    build_flags: tuple[str, ...] = ()

    @property
    def sycl_f16(self) -> bool:
        """Built with GGML_SYCL_F16=ON (SYCL's FP16 prefill path; off by default)."""
        return "GGML_SYCL_F16=ON" in self.build_flags

    @property
    def source(self) -> str:
        """The source without a pinned commit or anchor: rows of one table share it."""
        url = self.source_url.split("#")[0]
        parts = url.split("/")
        if "blob" in parts or "tree" in parts:
            i = parts.index("blob") if "blob" in parts else parts.index("tree")
            parts = parts[:i]
        return "/".join(parts)


@dataclass(frozen=True)
class HardwareSpec:
    """A machine hardware_specs.csv describes. With `catalog_id` the device is that catalog entry's (the
    row's `hardware` holds the line's own figures, which must agree) and the line adds the host it ran in:
    `host` holds the host fields the line gives, which replace the entry's."""

    name: str
    hardware: Hardware
    host_known: bool
    source: str
    notes: str
    catalog_id: str = ""
    host: Mapping[str, float] = field(default_factory=dict)


class _Bad(ValueError):
    pass


def _opt_float(row: Mapping[str, str], key: str) -> float | None:
    text = (row.get(key) or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise _Bad(f"{key}: not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise _Bad(f"{key}: must be a finite number >= 0, got {text!r}")
    return value


def _opt_int(row: Mapping[str, str], key: str) -> int | None:
    value = _opt_float(row, key)
    if value is None:
        return None
    if value != int(value):
        raise _Bad(f"{key}: not a whole number: {row[key]!r}")
    return int(value)


def _parse_row(line: int, row: Mapping[str, str]) -> Measurement:
    test = (row.get("test") or "").strip()
    if test not in ("tg", "pp"):
        raise _Bad(f"test: expected 'tg' or 'pp', got {test!r}")
    tok_s = _opt_float(row, "tok_s")
    if tok_s is None or tok_s <= 0:
        raise _Bad("tok_s: must be a positive number")
    gpus = _opt_int(row, "gpus")
    fa_text = (row.get("flash_attn") or "").strip()
    if fa_text not in ("", "0", "1"):
        raise _Bad(f"flash_attn: expected 0, 1 or empty, got {fa_text!r}")
    build_date = (row.get("build_date") or "").strip()
    if build_date and not BUILD_DATE.fullmatch(build_date):
        raise _Bad(f"build_date: expected YYYY-MM or empty, got {build_date!r}")
    flags = tuple((row.get("build_flags") or "").split())
    if bad := [f for f in flags if not BUILD_FLAG.fullmatch(f)]:
        raise _Bad(f"build_flags: expected CMake options like GGML_SYCL_F16=ON, got {bad[0]!r}")
    backend_text = (row.get("backend") or "").strip().lower()
    if backend_text and backend_text not in BACKEND_NAMES:
        raise _Bad(f"backend: expected one of {', '.join(b.value for b in Backend)} or empty, got {backend_text!r}")
    return Measurement(
        line=line,
        hardware_id=(row.get("hardware_id") or "").strip(),
        hardware_name=(row.get("hardware_name") or "").strip(),
        gpus=1 if gpus is None else gpus,
        model_id=(row.get("model_id") or "").strip(),
        model_name=(row.get("model_name") or "").strip(),
        params_b=_opt_float(row, "params_b"),
        active_params_b=_opt_float(row, "active_params_b"),
        quant=(row.get("quant") or "").strip(),
        bits_per_weight=_opt_float(row, "bits_per_weight"),
        engine=(row.get("engine") or "").strip(),
        test=test,  # type: ignore[arg-type]
        prompt_tokens=_opt_int(row, "prompt_tokens"),
        gen_tokens=_opt_int(row, "gen_tokens"),
        depth=_opt_int(row, "depth"),
        batch=_opt_int(row, "batch") or 1,
        gpu_layers=_opt_int(row, "gpu_layers"),
        n_cpu_moe=_opt_int(row, "n_cpu_moe") or 0,
        tok_s=tok_s,
        source_url=(row.get("source_url") or "").strip(),
        notes=(row.get("notes") or "").strip(),
        backend=BACKEND_NAMES.get(backend_text),
        exclude_reason=(row.get("exclude_reason") or "").strip(),
        flash_attn=None if not fa_text else fa_text == "1",
        build_date=build_date,
        build_flags=flags,
    )


def parse_measurements(text: str) -> tuple[list[Measurement], list[str]]:
    """All readable rows, and one line per unreadable one ("line N: field: problem")."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        return [], [f"header: missing column(s) {', '.join(missing)}"]
    rows: list[Measurement] = []
    problems: list[str] = []
    for n, raw in enumerate(reader, start=2):
        if None in raw:  # more cells than the header
            problems.append(f"line {n}: more cells than columns")
            continue
        try:
            rows.append(_parse_row(n, raw))
        except _Bad as err:
            problems.append(f"line {n}: {err}")
    return rows, problems


def parse_hardware_specs(text: str) -> tuple[dict[str, HardwareSpec], list[str]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [
        c
        for c in ("hardware_name", "class", "memory_gb", "bandwidth_gbps", "source")
        if c not in (reader.fieldnames or [])
    ]
    if missing:
        return {}, [f"hardware_specs header: missing column(s) {', '.join(missing)}"]
    specs: dict[str, HardwareSpec] = {}
    problems: list[str] = []
    for n, raw in enumerate(reader, start=2):
        try:
            name = (raw.get("hardware_name") or "").strip()
            kind = HardwareClass((raw.get("class") or "").strip())
            host_bw = _opt_float(raw, "host_bandwidth_gbps")
            fields: dict[str, Any] = dict(
                name=name,
                kind=kind,
                memory_gb=_opt_float(raw, "memory_gb"),
                bandwidth_gbps=_opt_float(raw, "bandwidth_gbps"),
            )
            for key, col in (
                ("fp16_tflops", "fp16_tflops"),
                ("host_memory_gb", "host_memory_gb"),
                ("host_bandwidth_gbps", "host_bandwidth_gbps"),
                ("host_link_gbps", "host_link_gbps"),
            ):
                value = _opt_float(raw, col)
                if value is not None:
                    fields[key] = value
            if kind is not HardwareClass.DISCRETE_GPU:
                fields.setdefault("host_memory_gb", 0.0)
                fields.setdefault("host_bandwidth_gbps", fields["bandwidth_gbps"])
            hw = Hardware.model_validate(fields)
            host = {k: fields[k] for k in HOST_FIELDS if _opt_float(raw, k) is not None}
            if not (raw.get("source") or "").startswith("http"):
                raise _Bad("source: must be a URL")
        except (_Bad, ValueError, ValidationError) as err:
            problems.append(f"hardware_specs line {n}: {str(err).splitlines()[0]}")
            continue
        specs[name] = HardwareSpec(
            name=name,
            hardware=hw,
            host_known=host_bw is not None,
            source=raw["source"].strip(),
            notes=(raw.get("notes") or "").strip(),
            catalog_id=(raw.get("catalog_id") or "").strip(),
            host=host,
        )
    return specs, problems
