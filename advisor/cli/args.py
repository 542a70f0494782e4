"""Argument handling every command shares: the raw-figure flags, number parsing, and turning the
parsed flags into a validated Scenario (catalog picks first, raw figures over them)."""

from __future__ import annotations

import argparse
import difflib
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.hardware_search import find_hardware
from advisor.catalog.loader import Catalog
from advisor.catalog.longtail import is_longtail
from advisor.cli.errors import CliError
from advisor.core.fmt import num
from advisor.core.scenario import Scenario
from advisor.measure.entry import apply_measured


@dataclass(frozen=True)
class Flag:
    name: str
    section: str  # hardware | model | quant | workload | speculative
    field: str
    type: Callable[[str], Any]
    help: str


FLAGS: tuple[Flag, ...] = (
    Flag("--bandwidth", "hardware", "bandwidth_gbps", float, "memory bandwidth per device, GB/s"),
    Flag("--memory", "hardware", "memory_gb", float, "fast memory per device (VRAM or unified), GB"),
    Flag("--host-memory", "hardware", "host_memory_gb", float, "system RAM beside the GPU, GB"),
    Flag("--host-bandwidth", "hardware", "host_bandwidth_gbps", float, "system RAM bandwidth, GB/s"),
    Flag("--host-link", "hardware", "host_link_gbps", float, "GPU-host link (PCIe) bandwidth, GB/s"),
    Flag(
        "--disk-read",
        "hardware",
        "disk_read_gbps",
        float,
        "SSD read bandwidth, GB/s: llama.cpp reads weights beyond host RAM from disk each token",
    ),
    Flag("--tflops", "hardware", "fp16_tflops", float, "peak dense FP16 compute per device, TFLOPS"),
    Flag(
        "--fp32-tflops",
        "hardware",
        "fp32_tflops",
        float,
        "peak FP32 compute of the shader/CUDA cores per device (not tensor units), TFLOPS",
    ),
    Flag("--gpus", "hardware", "devices", int, "number of identical devices"),
    Flag("--split", "hardware", "split", str, "how devices share the model: tensor or layer"),
    Flag("--params", "model", "total_params_b", float, "total parameters, billions"),
    Flag("--active-params", "model", "active_params_b", float, "parameters read per token (MoE), billions"),
    Flag("--layers", "model", "layers", int, "transformer layers"),
    Flag("--kv-heads", "model", "kv_heads", int, "KV heads (grouped-query attention)"),
    Flag("--heads", "model", "heads", int, "attention heads"),
    Flag("--head-dim", "model", "head_dim", int, "dimension of each head"),
    Flag(
        "--kv-bytes-per-token",
        "model",
        "kv_bytes_per_token_override",
        float,
        "KV cache bytes per token at f16, instead of the shape",
    ),
    Flag("--max-context", "model", "max_context", int, "model's maximum context, tokens"),
    Flag("--bits", "quant", "bits_per_weight", float, "average bits per weight"),
    Flag(
        "--dense-bits",
        "quant",
        "dense_bits_per_weight",
        float,
        "MoE models: bits per weight outside the experts (MXFP4 files: 8.5; default: as --bits)",
    ),
    Flag("--context", "workload", "context", int, "tokens already in context during decode"),
    Flag("--prompt", "workload", "prompt_tokens", int, "prompt tokens to prefill"),
    Flag("--output", "workload", "output_tokens", int, "output tokens per response"),
    Flag("--batch", "workload", "streams", int, "concurrent streams"),
    Flag("--kv-cache", "workload", "kv_cache", str, "KV cache precision: f16, q8_0, q4_0, fp8"),
    Flag("--efficiency", "workload", "efficiency", float, "η: share of bandwidth realized (default per class)"),
    Flag("--compute-efficiency", "workload", "compute_efficiency", float, "η for prefill compute"),
    Flag("--engine", "workload", "engine", str, "llama.cpp, vllm or mlx"),
    Flag("--backend", "workload", "backend", str, "llama.cpp backend: cuda, rocm, vulkan, metal, sycl or cpu"),
    Flag(
        "--flash-attention",
        "workload",
        "flash_attention",
        str,
        "llama.cpp flash attention: on (default) or off (slower decode at long context)",
    ),
    Flag(
        "--sycl-f16",
        "workload",
        "sycl_f16",
        str,
        "SYCL built with GGML_SYCL_F16=ON: on (FP16 prefill on XMX) or off (default: FP32 on the vector engines)",
    ),
    Flag("--gpu-layers", "workload", "gpu_layers", int, "force N layers on the GPU (llama.cpp -ngl)"),
    Flag(
        "--offload",
        "workload",
        "offload",
        str,
        "where things go when fast memory is full: layers (-ngl), experts (--n-cpu-moe), kv (-nkvo) or auto "
        "(the fastest that fits)",
    ),
    Flag(
        "--threads",
        "workload",
        "threads",
        int,
        "CPU threads for host-resident work (llama.cpp -t; default: the host's physical cores)",
    ),
    Flag(
        "--n-cpu-moe",
        "workload",
        "cpu_moe_layers",
        int,
        "keep the MoE experts of the first N layers in host RAM (llama.cpp --n-cpu-moe)",
    ),
    Flag("--prefill-rate", "workload", "prefill_rate", float, "measured prefill tok/s instead of the estimate"),
    Flag("--overhead", "workload", "overhead_gb", float, "runtime memory besides weights and KV, GB"),
    Flag("--threshold", "workload", "interactive_tok_s", float, "interactive threshold, tok/s"),
    Flag(
        "--draft-params",
        "speculative",
        "draft_params_b",
        float,
        "speculative decoding: draft model size, billions (turns it on)",
    ),
    Flag("--draft-length", "speculative", "draft_length", int, "speculative decoding: tokens drafted per pass"),
    Flag("--acceptance", "speculative", "acceptance", float, "speculative decoding: acceptance rate 0-0.99"),
)
FLAG_BY_FIELD = {(f.section, f.field): f.name for f in FLAGS}


def dest(flag: str) -> str:
    """The attribute argparse stores a long flag under: '--host-memory' -> 'host_memory'."""
    return flag[2:].replace("-", "_")


# --- numbers ----------------------------------------------------------------------------------

_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_SUFFIXED = re.compile(r"^([+-]?\d+(?:\.\d+)?)\s*([km])$", re.IGNORECASE)


def plain_number(text: str, kind: Callable[[str], Any], binary: bool) -> Any:
    """'2,500' (thousands separators), '32k' / '1.5M' (k = 1,024 for `binary` token counts, else 1,000)."""
    t = text.strip().replace("_", "")
    if _THOUSANDS.match(t):
        t = t.replace(",", "")
    m = _SUFFIXED.match(t)
    if m:
        scale = (1024 if binary else 1000) ** (1 if m[2].lower() == "k" else 2)
        value = float(m[1]) * scale
        if kind is int:
            if value != int(value):
                raise ValueError(text)
            return int(value)
        return kind(str(value))
    return kind(t)


def number(kind: Callable[[str], Any], binary: bool = False) -> Callable[[str], Any]:
    """int or float, refusing inf and nan (argparse's float() accepts both); takes '2,500' and '32k'
    (`binary`: k = 1,024, as token counts are spoken: 32k context = 32,768)."""

    def parse(text: str) -> Any:
        value = plain_number(text, kind, binary)
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        return value

    parse.__name__ = kind.__name__
    return parse


def positive_float(text: str) -> float:
    value = number(float)(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above zero")
    return float(value)


def non_negative_float(text: str) -> float:
    value = number(float)(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} cannot be negative")
    return float(value)


def positive_int(text: str) -> int:
    value = number(int)(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return int(value)


TOKEN_FIELDS = {"context", "prompt_tokens", "output_tokens", "max_context"}


def flag_type(f: Flag) -> Callable[[str], Any]:
    return number(f.type, binary=f.field in TOKEN_FIELDS) if f.type in (int, float) else f.type


# --- the scenario -----------------------------------------------------------------------------


def add_scenario_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("catalog picks (ids from `catalog hardware|models|quants`)")
    g.add_argument("--hardware", help="hardware id or name, any case ('RTX 4090'), or a set: '2x rtx-3090'")
    g.add_argument("--model", help="model id or name, any case ('Llama 3.1 8B')")
    g.add_argument("--quant", help="quant id, any case ('Q4_K_M')")
    raw = p.add_argument_group("raw figures (override the picks, or stand alone)")
    for f in FLAGS:
        raw.add_argument(f.name, type=flag_type(f), help=f.help, dest=dest(f.name))


def canonical(text: str) -> str:
    """An id or name as people type it: case, spaces, hyphens and underscores do not count."""
    return re.sub(r"[\s_\-]+", "", text.strip().lower())


def resolve_id(table: Mapping[str, Any], kind: str, key: str) -> str:
    """The id `key` means: itself, else the one id (or entry name) equal to it but for case, spaces,
    hyphens and underscores ("RTX 4090", "Llama 3.1 8B", "Q4_K_M"). Unknown: the closest ids suggested."""
    if key in table:
        return key
    want = canonical(key)
    for of in (lambda k, e: k, lambda k, e: getattr(e, "name", "")):
        hits = sorted({k for k, e in table.items() if canonical(of(k, e)) == want})
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise CliError(f"{_flag(kind)}: '{key}' could be {', '.join(hits[:5])}; give the id")
    pool = {canonical(k): k for k in table}
    close = [k for c, k in pool.items() if want and want in c][:3]
    close += [pool[c] for c in difflib.get_close_matches(want, list(pool), n=5, cutoff=0.6) if pool[c] not in close]
    hint = (
        f"; did you mean {', '.join(close[:5])}?"
        if close
        else f"; see `catalog {kind}{' --search TEXT --all' if kind == 'hardware' else ''}`"
    )
    raise CliError(f"{_flag(kind)}: unknown id '{key}'{hint}")


def _flag(kind: str) -> str:
    return f"--{'model' if kind == 'models' else 'quant' if kind == 'quants' else kind}"


def _pick(table: dict[str, Any] | Any, kind: str, key: str | None) -> Any:
    return None if key is None else table[resolve_id(table, kind, key)]


_SET = re.compile(r"^\s*(\d+)\s*[x×*]\s*(.+)$", re.IGNORECASE)  # "2x rtx-3090", "2 × RTX 3090"
_SET_SUFFIX = re.compile(r"^(.+?)\s*:\s*(\d+)\s*$")  # "rtx-3090:2"


def resolve_hardware(catalog: Catalog, spec: str) -> tuple[Any, int]:
    """(entry, devices) for a --hardware value: an id or name in any spelling, a long-tail id, or a set
    of identical devices ('2x rtx-3090', 'rtx-3090:2')."""
    entry = find_hardware(catalog, spec.strip())
    if entry is not None:
        return entry, 1
    m = _SET.match(spec)
    count, key = (int(m[1]), m[2].strip()) if m else (1, spec.strip())
    if m is None and (m2 := _SET_SUFFIX.match(spec)):
        count, key = int(m2[2]), m2[1].strip()
    if not 1 <= count <= 64:
        raise CliError(f"--hardware: {spec!r}: a set has 1 to 64 devices")
    entry = find_hardware(catalog, key) or catalog.hardware[resolve_id(catalog.hardware, "hardware", key)]
    return entry, count


def clamp_context(base: dict[str, dict[str, Any]], model_name: str) -> None:
    """A context past the model's window is cut to it, with a note naming the window."""
    w, window = base["workload"], base["model"].get("max_context")
    if window is None:
        return
    for key, flag in (("context", "--context"), ("prompt_tokens", "--prompt")):
        if w.get(key) is not None and w[key] > window:
            print(
                f"note: {flag} {w[key]:,} is past {model_name}'s window of {window:,} tokens; using {window:,}",
                file=sys.stderr,
            )
            w[key] = window


def scenario_from_args(args: argparse.Namespace, catalog: Catalog) -> Scenario:
    base: dict[str, dict[str, Any]] = {"hardware": {}, "model": {}, "quant": {}, "workload": {}}
    # a catalog id, else a long-tail one (db-..., the uncurated GPUs of `catalog hardware --search TEXT --all`)
    hw, devices = resolve_hardware(catalog, args.hardware) if args.hardware else (None, 1)
    if hw is not None and is_longtail(hw.id) and hw.id not in catalog.hardware:
        print(f"note: {hw.id}: {hw.notes}", file=sys.stderr)
    if hw is not None:
        args.hardware = hw.id  # what the rest of the command looks up (published runs, saving)
        base["hardware"] = to_hardware(hw).model_dump()
        if devices > 1:
            base["hardware"]["devices"] = devices
        # The user's own measured η (an entry saved by `measure fit --save`) applies; flags still override.
        base["workload"].update(apply_measured({}, None, hw))
    m = _pick(catalog.models, "models", args.model)
    if m is not None:
        args.model = m.id
        base["model"] = to_model(m).model_dump()
    q = _pick(catalog.quants, "quants", args.quant)
    if q is not None:
        args.quant = q.id
        base["quant"] = to_quant(q).model_dump()
    spec: dict[str, Any] = {}
    for f in FLAGS:
        value = getattr(args, dest(f.name))
        if value is None:
            continue
        if f.section == "speculative":
            spec[f.field] = value
        else:
            base[f.section][f.field] = value
    if spec:
        spec.setdefault("enabled", True)
        base["workload"]["speculative"] = spec
    if args.params is not None and args.model is None:
        base["model"].setdefault("name", f"{num(args.params)}B model")
    if args.bits is not None and args.quant is None:
        # named safely: a value the bits bound refuses (5e-324) must reach that bound, not the name's length
        bits = num(args.bits) if 0.01 <= abs(args.bits) <= 1e6 else f"{args.bits:g}"
        base["quant"].setdefault("name", f"{bits} bits")
    if hw is None and args.memory is None:
        base["hardware"]["memory_gb"] = None  # custom hardware of unknown size: the fit is not checked
    clamp_context(base, str(base["model"].get("name") or "the model"))
    try:
        return Scenario.model_validate(base)
    except ValidationError as err:
        raise CliError(validation_message(err)) from None


def validation_message(err: ValidationError) -> str:
    """The first validation error, named by the flag that sets the field when there is one."""
    first = err.errors()[0]
    loc = [str(p) for p in first["loc"]]
    flag = None
    if len(loc) >= 2:
        section, fieldname = loc[0], loc[-1]
        if loc[:2] == ["workload", "speculative"]:
            section = "speculative"
        flag = FLAG_BY_FIELD.get((section, fieldname))
    where = flag or ".".join(loc)
    return f"{where}: {first['msg']}"


def quant_pool(catalog: Catalog, which: str) -> list[tuple[str, Any]]:
    formats = {"gguf": {"gguf"}, "gpu": {"gpu", "exl"}, "all": {"gguf", "gpu", "exl"}}[which]
    return [(k, to_quant(q)) for k, q in catalog.quants.items() if q.format in formats]
