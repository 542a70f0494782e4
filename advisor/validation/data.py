"""Published measurements (benchmarks/data/measurements.csv) read into scenarios the core can predict.

Every row becomes either a `Case` (a Scenario plus what was measured and how to compare) or a `Skip`
with the reason it cannot be predicted honestly. Parsing never raises on a bad row: the row is
reported in `problems` and left out.

What a row needs:
- hardware: the catalog entry when `hardware_id` is set, else a line of hardware_specs.csv with the
  same `hardware_name` (datasheet figures with their source);
- a parameter count (`params_b`, or a catalog model);
- bits per weight (the row's printed `bits_per_weight`, its catalog quant, or a well-defined format
  named in its notes, see QUANT_FROM_NOTES);
- a known context (`depth`), and for rows that read weights from host RAM, a known host.

A row whose `exclude_reason` is set stays in the file but is neither fitted nor counted in the
statistics: it becomes an `Excluded` (with its prediction when it can be made), and `validate`
lists every one with its reason. The optional `backend` column names llama.cpp's backend as the
source states it; an empty cell leaves the scenario's default for its hardware. The optional
`flash_attn` column (0/1) says whether llama.cpp ran with flash attention; an empty cell leaves the
scenario's default (on). The optional `build_date` column (YYYY-MM) is the month of the build the
source ran, where it says; it puts a llama.cpp row in a build era (terms.BuildEra), whose
fixed time per token the fit sets apart from the current era's.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import Catalog
from advisor.core.efficiency import Backend, Engine
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import split_params
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import BuildEra, build_era

DATA_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
MEASUREMENTS_CSV = DATA_DIR / "measurements.csv"
HARDWARE_SPECS_CSV = DATA_DIR / "hardware_specs.csv"

COLUMNS = ("hardware_id", "hardware_name", "gpus", "model_id", "model_name", "params_b", "active_params_b", "quant",
           "bits_per_weight", "engine", "test", "prompt_tokens", "gen_tokens", "depth", "batch", "gpu_layers",
           "n_cpu_moe", "tok_s", "source_url", "notes")
# Read when present (older copies of the file lack them).
OPTIONAL_COLUMNS = ("backend", "exclude_reason", "flash_attn", "build_date")
BACKEND_NAMES = {b.value: b for b in Backend}
BUILD_DATE = re.compile(r"20[0-9]{2}-(0[1-9]|1[0-2])")
SPEC_COLUMNS = ("hardware_name", "class", "memory_gb", "bandwidth_gbps", "fp16_tflops", "host_memory_gb",
                "host_bandwidth_gbps", "host_link_gbps", "source", "notes")

# llama-bench's "all layers" value; the data set writes 99 for -ngl 99, -1 and "all".
ALL_LAYERS = 99

Kind = Literal["depth 0", "depth sweep", "offload", "batch"]
KINDS: tuple[Kind, ...] = ("depth 0", "depth sweep", "offload", "batch")

# Rows whose model has no catalog id but whose name clearly names a catalog architecture: the layer
# and head shape (hence KV bytes and layer count) come from that entry; parameters stay the row's own.
MODEL_ALIASES: dict[str, str] = {
    # Llama 3 8B/70B: same layers, heads and GQA shape as Llama 3.1 (only RoPE scaling and context differ).
    "Meta Llama 3 8B": "llama-3.1-8b",
    "Meta Llama 3 70B": "llama-3.1-70b",
    # llama.cpp prints "llama 8B" for the Llama 3.x 8B shape and "llama 70B" for the 80-layer, 8-KV-head
    # 70B shape that Llama 2 70B and Llama 3.x 70B share.
    "Llama 8B-class (llama 8B)": "llama-3.1-8b",
    "Llama 70B-class (llama 70B Q4_K_M)": "llama-3.1-70b",
    # "qwen3moe 30B.A3B" is the architecture label of Qwen3-30B-A3B (and its Coder variant, same shape).
    "Qwen3 30B-A3B-class MoE (qwen3moe 30B.A3B Q8_0)": "qwen3-30b-a3b",
    # Mistral 7B v0.2 and v0.3 share the shape (v0.3 only grew the vocabulary).
    "Mistral 7B Instruct v0.2": "mistral-7b-v0.3",
    # Mistral Small 3 / 3.1 / 3.2 24B share the text architecture.
    "Mistral-Small-24B (dense; exact release not stated)": "mistral-small-3.1-24b",
    # Qwen3.5-35B-A3B and Qwen3.6-35B-A3B share the architecture and model_type (llama.cpp: qwen35moe), a
    # hybrid whose Gated DeltaNet layers keep a fixed state instead of a KV cache (session 9).
    "Qwen3.5-35B-A3B (Qwen3.5-35B-A3B-Q8_0; qwen35moe 35B.A3B Q8_0)": "qwen3.6-35b-a3b",
    "Qwen3.5-35B-A3B (Unsloth UD-Q3_K_XL GGUF; printed as qwen35moe 35B.A3B Q3_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.5-35B-A3B (Unsloth UD-Q4_K_XL GGUF; printed as qwen35moe 35B.A3B Q4_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.6-35B-A3B (Qwen3.6-35B-A3B-UD-Q4_K_M.gguf; qwen35moe 35B.A3B Q4_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.6-35B-A3B (Unsloth UD-Q3_K_XL GGUF; printed as qwen35moe 35B.A3B Q3_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.6-35B-A3B (Unsloth UD-Q4_K_XL GGUF; printed as qwen35moe 35B.A3B Q4_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3-Coder-Next 80B-A3B": "qwen3-coder-next",
}

# Weight formats without a catalog id, recognised in the notes. MLX affine quantization stores one f16
# scale and one f16 bias per group of 64 weights (mlx_lm's default group size): bits + 32/64.
QUANT_FROM_NOTES: tuple[tuple[str, float, str], ...] = (
    ("MLX 4-bit", 4.5, "MLX 4-bit, group 64: 4 + 32/64 bits"),
    ("MLX 8-bit", 8.5, "MLX 8-bit, group 64: 8 + 32/64 bits"),
)

HOST_UNSTATED = ("unstated host", "host CPU/RAM not stated", "host not stated")


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
    name: str
    hardware: Hardware
    host_known: bool
    source: str
    notes: str


@dataclass(frozen=True)
class Case:
    """A row the core can predict."""

    row: Measurement
    scenario: Scenario
    kind: Kind
    moe: bool
    hw_class: HardwareClass
    engine: Engine
    aggregate: bool  # tok_s counts all streams together
    held_out: bool
    caveats: tuple[str, ...] = ()

    @property
    def test(self) -> Literal["tg", "pp"]:
        return self.row.test

    @property
    def measured(self) -> float:
        return self.row.tok_s

    @property
    def era(self) -> BuildEra | None:
        """The build era of the row's build (None when the source does not date the build)."""
        return build_era(self.row.build_date)


@dataclass(frozen=True)
class Skip:
    row: Measurement
    reason: str


@dataclass(frozen=True)
class Excluded:
    """A row marked in the file as not representative (its `exclude_reason`); `case` is its scenario
    when one can be built (so `validate` can still show how far off it lands), else None."""

    row: Measurement
    reason: str
    case: Case | None


@dataclass(frozen=True)
class DataSet:
    cases: tuple[Case, ...]
    skipped: tuple[Skip, ...]
    problems: tuple[str, ...]  # rows that could not even be read
    rows: int  # data rows in the file
    excluded: tuple[Excluded, ...] = ()

    def skip_reasons(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.skipped:
            counts[s.reason] = counts.get(s.reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


# --- parsing ----------------------------------------------------------------------------------------


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
    missing = [c for c in ("hardware_name", "class", "memory_gb", "bandwidth_gbps", "source")
               if c not in (reader.fieldnames or [])]
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
                name=name, kind=kind, memory_gb=_opt_float(raw, "memory_gb"),
                bandwidth_gbps=_opt_float(raw, "bandwidth_gbps"),
            )
            for key, col in (("fp16_tflops", "fp16_tflops"), ("host_memory_gb", "host_memory_gb"),
                             ("host_bandwidth_gbps", "host_bandwidth_gbps"), ("host_link_gbps", "host_link_gbps")):
                value = _opt_float(raw, col)
                if value is not None:
                    fields[key] = value
            if kind is not HardwareClass.DISCRETE_GPU:
                fields.setdefault("host_memory_gb", 0.0)
                fields.setdefault("host_bandwidth_gbps", fields["bandwidth_gbps"])
            hw = Hardware.model_validate(fields)
            if not (raw.get("source") or "").startswith("http"):
                raise _Bad("source: must be a URL")
        except (_Bad, ValueError, ValidationError) as err:
            problems.append(f"hardware_specs line {n}: {str(err).splitlines()[0]}")
            continue
        specs[name] = HardwareSpec(name=name, hardware=hw, host_known=host_bw is not None,
                                   source=raw["source"].strip(), notes=(raw.get("notes") or "").strip())
    return specs, problems


# --- rows to scenarios ------------------------------------------------------------------------------


def config_key(row: Measurement) -> str:
    """A row's configuration (machine × GPU count × model × quant × bits × engine): the unit every
    split of the rows keeps whole (the held-out split here, the cross-validation folds in cv.py)."""
    return "|".join((row.hardware_name, str(row.gpus), row.model_name, row.quant,
                     "" if row.bits_per_weight is None else f"{row.bits_per_weight:g}", row.engine))


def held_out(row: Measurement) -> bool:
    """Deterministic split by configuration (machine × model × quant × engine), not by row: the tg512
    and tg1024 of one configuration land on the same side, so the held-out part is never a near copy
    of something the fit saw. About 30 % is held out."""
    return int(hashlib.sha256(config_key(row).encode()).hexdigest(), 16) % 10 < 3


def row_kind(row: Measurement, offloaded: bool) -> Kind:
    """Exclusive kinds, most specific first: offload, batch, depth sweep, depth 0."""
    if offloaded:
        return "offload"
    if row.batch > 1:
        return "batch"
    if (row.depth or 0) > 0:
        return "depth sweep"
    return "depth 0"


def _hardware(row: Measurement, catalog: Catalog, specs: Mapping[str, HardwareSpec]) -> tuple[Hardware, bool] | str:
    if row.hardware_id:
        entry = catalog.hardware.get(row.hardware_id)
        if entry is None:
            return f"hardware id '{row.hardware_id}' not in the catalog"
        return to_hardware(entry), False
    spec = specs.get(row.hardware_name)
    if spec is None:
        if row.gpus == 0:
            return "CPU-only machine without a sourced memory bandwidth"
        return "machine not in the catalog or hardware_specs.csv"
    return spec.hardware, spec.host_known


# llama-bench's size label of a mixture-of-experts model, "30B.A3B": predicted as dense, every expert would
# count as read per token
MOE_LABEL = re.compile(r"\d+(?:\.\d+)?B\.A\d+(?:\.\d+)?B")


def _model(row: Measurement, catalog: Catalog) -> tuple[ModelArch, list[str]] | str:
    caveats: list[str] = []
    base: ModelArch | None = None
    key = row.model_id or MODEL_ALIASES.get(row.model_name, "")
    if key:
        entry = catalog.models.get(key)
        if entry is None:
            return f"model id '{key}' not in the catalog"
        base = to_model(entry)
        if not row.model_id:
            caveats.append(f"shape from catalog '{key}'")
    total = row.params_b if row.params_b is not None else (base.total_params_b if base else None)
    if total is None or total <= 0:
        return "no parameter count for the model"
    active = row.active_params_b if row.active_params_b is not None else (base.active_params_b if base else None)
    if (base is not None and base.active_params_b is not None and active is not None
            and total == base.total_params_b and active != base.active_params_b):
        # the same model's published count in another convention (gpt-oss's card leaves out the input
        # embedding): the catalog's, every weight but the unused experts, is what the core splits by
        caveats.append(f"active {active:g} B counted as the catalog's {base.active_params_b:g} B")
        active = base.active_params_b
    if active is not None and active >= total:
        active = None
    if active is None and MOE_LABEL.search(row.model_name):
        return "mixture-of-experts model (llama.cpp's A…B size label) without an active parameter count"
    if base is None:
        caveats.append("KV shape unknown: counted as zero")
        return ModelArch(name=row.model_name[:200] or "model", total_params_b=total, active_params_b=active), caveats
    update: dict[str, Any] = {"total_params_b": total, "active_params_b": active}
    if base.experts and active is None:
        update["experts"] = update["experts_active"] = None
    try:
        return ModelArch.model_validate({**base.model_dump(), **update}), caveats
    except ValidationError as err:
        return f"model: {err.errors()[0]['msg']}"


def _bits(row: Measurement, catalog: Catalog) -> tuple[float, str | None] | str:
    if row.bits_per_weight:
        return row.bits_per_weight, None
    if row.quant:
        entry = catalog.quants.get(row.quant)
        if entry is None:
            return f"quant '{row.quant}' not in the catalog"
        return to_quant(entry).bits_per_weight, None
    for needle, bits, why in QUANT_FROM_NOTES:
        if needle in row.notes or needle in row.model_name:
            return bits, why
    return "weight format not identified (no catalog quant, no printed bits per weight)"


def _quant(row: Measurement, catalog: Catalog, arch: ModelArch, bpw: float) -> tuple[Quant, str | None]:
    """The row's weight format. Where the catalog quant keeps an MoE model's non-expert tensors at other
    bits (MXFP4 files: Q8_0), the experts get the bits that make the file's printed average come out."""
    name = row.quant or "as printed"
    entry = catalog.quants.get(row.quant) if row.quant else None
    dense_bits = entry.dense_bits_per_weight if entry is not None else None
    dense, experts, _ = split_params(arch)
    if dense_bits is None or not arch.is_moe or experts <= 0:
        return Quant(name=name, bits_per_weight=bpw), None
    if row.bits_per_weight is None:  # the catalog's own bits: its expert precision
        return Quant(name=name, bits_per_weight=bpw, dense_bits_per_weight=dense_bits), None
    expert_bits = (bpw * (dense + experts) - dense_bits * dense) / experts
    if not 0 < expert_bits <= bpw:
        return Quant(name=name, bits_per_weight=bpw), None
    return (Quant(name=name, bits_per_weight=expert_bits, dense_bits_per_weight=dense_bits),
            f"{row.quant}: {dense_bits:g} bits outside the experts, {expert_bits:.2f} in them "
            f"(the file averages {bpw:g})")


def _host_unstated(row: Measurement) -> bool:
    text = f"{row.hardware_name} {row.notes}"
    return any(s in text for s in HOST_UNSTATED)


def build_case(row: Measurement, catalog: Catalog, specs: Mapping[str, HardwareSpec]) -> Case | Skip:
    hw = _hardware(row, catalog, specs)
    if isinstance(hw, str):
        return Skip(row, hw)
    hardware, host_known = hw
    model = _model(row, catalog)
    if isinstance(model, str):
        return Skip(row, model)
    arch, caveats = model
    bits = _bits(row, catalog)
    if isinstance(bits, str):
        return Skip(row, bits)
    bpw, bits_note = bits
    if bits_note:
        caveats.append(bits_note)
    try:
        engine = Engine(row.engine)
    except ValueError:
        return Skip(row, f"engine '{row.engine}' not modelled")
    if "Output token throughput" in row.notes:
        return Skip(row, "serving-benchmark throughput (includes prefill and queueing), not decode speed")
    if "nkvo 1" in row.notes:
        return Skip(row, "KV cache kept in host RAM (-nkvo 1): not modelled")
    if "-sm tensor (experimental" in row.notes:
        return Skip(row, "llama.cpp's experimental tensor split: not the modelled engine behaviour")
    if row.depth is None:
        return Skip(row, "context depth not stated")
    if row.test == "pp" and not row.prompt_tokens:
        return Skip(row, "prompt size of the pp test not stated")

    if row.gpus > 1:
        split = "tensor" if ("-sm tensor" in row.notes or "tensor parallel" in row.notes.lower()) else "layer"
        hardware = hardware.model_copy(update={"devices": row.gpus, "split": split})
    if row.gpus == 0 and hardware.kind is not HardwareClass.CPU:
        return Skip(row, "CPU-only run on a GPU machine entry")

    layers = arch.layers
    ngl = row.gpu_layers
    on_host = (ngl is not None and ngl < ALL_LAYERS and (layers is None or ngl < layers)) or row.n_cpu_moe > 0
    if on_host and not host_known:
        return Skip(row, "weights in host RAM, but the host's memory is not stated")
    if ngl is not None and 0 < ngl < ALL_LAYERS and layers is None:
        return Skip(row, "-ngl given but the model's layer count is unknown")
    if row.n_cpu_moe > 0 and layers is None:
        return Skip(row, "--n-cpu-moe given but the model's layer count is unknown")
    if row.n_cpu_moe > 0 and not arch.is_moe:
        return Skip(row, "--n-cpu-moe on a dense model")

    # Context: llama-bench's tgN is the mean over N tokens generated after `depth`, so the cache holds
    # depth + N/2 tokens on average; ppN at depth d prefills N tokens after d.
    gen = row.gen_tokens or 0
    if row.test == "tg":
        work: dict[str, Any] = dict(context=row.depth + gen // 2, output_tokens=gen - gen // 2, prompt_tokens=0)
    else:
        work = dict(context=row.depth + (row.prompt_tokens or 0), output_tokens=0, prompt_tokens=row.prompt_tokens)
    work.update(streams=row.batch, engine=engine)
    if row.backend is not None:
        work["backend"] = row.backend
    if row.flash_attn is False and engine is Engine.LLAMA_CPP:
        work["flash_attention"] = False
    if ngl is not None:
        # -ngl 99 means every layer on the GPU: force it, so the capacity model never spills a run
        # that demonstrably fitted.
        work["gpu_layers"] = min(ngl, layers or 1000) if ngl < ALL_LAYERS else (layers or 1000)
    if row.n_cpu_moe > 0:
        work["cpu_moe_layers"] = min(row.n_cpu_moe, layers or 1000)
    quant, quant_note = _quant(row, catalog, arch, bpw)
    if quant_note:
        caveats.append(quant_note)
    try:
        scenario = Scenario(hardware=hardware, model=arch, quant=quant, workload=Workload(**work))
    except ValidationError as err:
        return Skip(row, f"scenario: {err.errors()[0]['msg']}")
    return Case(row=row, scenario=scenario, kind=row_kind(row, on_host), moe=arch.is_moe, hw_class=hardware.kind,
                engine=engine, aggregate=row.batch > 1, held_out=held_out(row), caveats=tuple(caveats))


def build_cases(rows: Iterable[Measurement], catalog: Catalog, specs: Mapping[str, HardwareSpec]
                ) -> tuple[list[Case], list[Skip], list[Excluded]]:
    cases: list[Case] = []
    skipped: list[Skip] = []
    excluded: list[Excluded] = []
    for row in rows:
        out = build_case(row, catalog, specs)
        if row.exclude_reason:
            excluded.append(Excluded(row, row.exclude_reason, out if isinstance(out, Case) else None))
        elif isinstance(out, Case):
            cases.append(out)
        else:
            skipped.append(out)
    return cases, skipped, excluded


def load_dataset(catalog: Catalog, measurements: Path = MEASUREMENTS_CSV, specs: Path = HARDWARE_SPECS_CSV
                 ) -> DataSet:
    """Read both CSVs and build every case; a missing specs file just means fewer machines."""
    rows, problems = parse_measurements(measurements.read_text(encoding="utf-8"))
    spec_map: dict[str, HardwareSpec] = {}
    if specs.exists():
        spec_map, spec_problems = parse_hardware_specs(specs.read_text(encoding="utf-8"))
        problems += spec_problems
    cases, skipped, excluded = build_cases(rows, catalog, spec_map)
    return DataSet(cases=tuple(cases), skipped=tuple(skipped), problems=tuple(problems),
                   rows=len(rows) + sum(1 for p in problems if p.startswith("line ")), excluded=tuple(excluded))
