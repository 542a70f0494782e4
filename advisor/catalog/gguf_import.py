"""A model entry from a local GGUF file, read from its header and tensor-info table alone
(advisor.catalog.gguf_reader reads them, bounded and without the tensor data): parameters and bits per
weight from the tensor infos, the shape from the metadata, with notes on what the file leaves open.
Every failure is a GGUFError whose message starts with the file name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gguf.constants import LlamaFileType
from pydantic import ValidationError

from advisor.catalog.gguf_reader import INT_TYPES, ArrayInfo, GGUFError, GGUFHeader, TensorInfo, read_header
from advisor.catalog.schema import ModelEntry
from advisor.catalog.user_store import slugify
from advisor.core.kv import attention_kv_bytes, recurrent_state_bytes
from advisor.core.quant import Quant

__all__ = ["GGUFError", "ImportedModel", "import_gguf"]

# Layers that use the sliding window, by architecture, when the file carries no pattern key:
# llama.cpp hard-codes these (gemma2, gpt-oss: every other layer; gemma3: 5 of every 6; cohere2: 3 of 4).
_SWA_PERIOD = {"gemma2": 2, "gpt-oss": 2, "gemma3": 6, "cohere2": 4}
_EXPERT_TENSOR = re.compile(r"_exps\.|\.ffn_(gate|up|down)\.\d+\.")  # merged, or old per-expert Mixtral names
_LAYER = re.compile(r"^blk\.(\d+)\.")
MAX_PARTS = 1000  # the largest published splits have a few dozen parts


@dataclass(frozen=True)
class ImportedModel:
    """What a GGUF file holds: the model entry plus what only the file knows."""

    entry: ModelEntry
    bits_per_weight: float
    file_type: str  # e.g. Q4_K_M, from general.file_type (or the commonest tensor type)
    tensor_count: int
    file_size: int  # bytes, all shards
    architecture: str
    notes: tuple[str, ...] = field(default=())
    # mixture of experts: bits per weight of the expert tensors and of the rest, each by its own bytes
    # (MXFP4 files keep attention, embeddings and the output head at Q8_0: 4.25 and 8.5 against 4.63 overall)
    expert_bits_per_weight: float | None = None
    dense_bits_per_weight: float | None = None

    def quant(self) -> Quant:
        """The file as the advisor's weight format: its own bits, split for an MoE file."""
        name = f"{self.file_type} ({self.bits_per_weight:.2f} bpw)"
        if self.expert_bits_per_weight is not None and self.dense_bits_per_weight is not None:
            return Quant(
                name=name, bits_per_weight=self.expert_bits_per_weight, dense_bits_per_weight=self.dense_bits_per_weight
            )
        return Quant(name=name, bits_per_weight=self.bits_per_weight)


def _shards(first: GGUFHeader) -> Iterator[GGUFHeader]:
    """All parts of a split model (name-00001-of-00003.gguf ...): params need every part's tensors."""
    yield first
    count = _int(first, "split.count") or 1
    if count <= 1:
        return
    if count > MAX_PARTS:
        raise GGUFError(f"{first.path.name}: split.count {count:,} exceeds {MAX_PARTS} parts (corrupt?)")
    m = re.match(r"^(.*)-(\d{5})-of-(\d{5})\.gguf$", first.path.name)
    if m is None or int(m.group(2)) != 1:
        raise GGUFError(f"{first.path.name}: part of a {count}-part split model; open the -00001-of- file")
    for n in range(2, count + 1):
        part = first.path.with_name(f"{m.group(1)}-{n:05d}-of-{m.group(3)}.gguf")
        if not part.exists():
            raise GGUFError(f"{first.path.name}: split part {part.name} is missing")
        yield read_header(part)


def _int(h: GGUFHeader, key: str, per_layer_max: bool = False) -> int | None:
    v = h.metadata.get(key)
    if v is None:
        return None
    if isinstance(v, ArrayInfo) and per_layer_max and v.values is not None and v.elem_type in INT_TYPES:
        return max(v.values, default=None)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise GGUFError(f"{h.path.name}: metadata '{key}' should be an integer, found {type(v).__name__}")


def _file_type(h: GGUFHeader, tensors: list[TensorInfo]) -> str:
    ft = h.metadata.get("general.file_type")
    if isinstance(ft, int) and not isinstance(ft, bool):
        try:
            return LlamaFileType(ft).name.removeprefix("MOSTLY_").removeprefix("ALL_")
        except ValueError:
            pass
    by_bytes: dict[str, int] = {}
    for t in tensors:
        by_bytes[t.ggml_type.name] = by_bytes.get(t.ggml_type.name, 0) + t.n_bytes
    return max(by_bytes, key=by_bytes.__getitem__) if by_bytes else "unknown"


def _sliding_layers(h: GGUFHeader, arch: str, layers: int) -> tuple[int, str | None]:
    pattern = h.metadata.get(f"{arch}.attention.sliding_window_pattern")
    if isinstance(pattern, ArrayInfo) and pattern.values is not None:
        return sum(1 for v in pattern.values if v), None
    period = pattern if isinstance(pattern, int) and pattern > 0 else _SWA_PERIOD.get(arch)
    if period is None:
        return layers, "no sliding-window pattern in the file: counted every layer as sliding"
    if period == 1:
        return layers, None
    # llama.cpp: layer il slides unless il % period == period - 1
    return layers - layers // period, None


# llama.cpp's default interval for the hybrid Qwen architectures when the file does not say (one layer in
# four attends; the rest are Gated DeltaNet linear attention)
_HYBRID_INTERVAL = {"qwen3next": 4, "qwen35": 4, "qwen35moe": 4}


def _attention_layers(h: GGUFHeader, arch: str, layers: int, nextn: int) -> int | None:
    """Layers that keep a KV cache in a hybrid file: those with KV heads where `head_count_kv` is per layer
    (state-space and linear-attention layers have none), else every `full_attention_interval`-th of the
    main layers (llama.cpp: layer i attends when (i + 1) % interval == 0); None when every layer attends."""
    kv = h.metadata.get(f"{arch}.attention.head_count_kv")
    if isinstance(kv, ArrayInfo) and kv.values is not None:
        n = sum(1 for v in kv.values if v)
        return n if 0 < n < len(kv.values) else None
    interval = h.metadata.get(f"{arch}.full_attention_interval", _HYBRID_INTERVAL.get(arch))
    if isinstance(interval, int) and interval > 1:
        return (layers - nextn) // interval
    return None


def import_gguf(path: Path | str) -> ImportedModel:
    """Read a GGUF header (all parts of a split model) and describe the model as a catalog entry."""
    path = Path(path)
    label = path.name
    if not path.is_file():
        raise GGUFError(f"{label}: no such file" if not path.exists() else f"{label}: not a file")
    first = read_header(path)
    parts = list(_shards(first))
    notes: list[str] = []

    arch = first.metadata.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise GGUFError(f"{label}: no general.architecture in the metadata")

    def key(k: str, per_layer: bool = False) -> int | None:
        return _int(first, f"{arch}.{k}", per_layer)

    layers = key("block_count")
    nextn = key("nextn_predict_layers") or 0
    tensors = [t for p in parts for t in p.tensors]
    if layers and 0 < nextn < layers:
        # GLM-4.5 files keep the multi-token-prediction layer as the last block; llama.cpp skips it
        skipped = {str(i) for i in range(layers - nextn, layers)}
        before = len(tensors)
        tensors = [t for t in tensors if not ((m := _LAYER.match(t.name)) and m.group(1) in skipped)]
        layers -= nextn
        notes.append(f"left out {nextn} multi-token-prediction layer(s) ({before - len(tensors)} tensors)")
    if not tensors:
        raise GGUFError(f"{label}: no tensors")

    params = sum(t.n_elements for t in tensors)
    if params <= 0:
        raise GGUFError(f"{label}: tensors hold no elements")
    bpw = sum(t.n_bytes for t in tensors) * 8 / params

    experts, used = key("expert_count"), key("expert_used_count")
    expert_params = sum(t.n_elements for t in tensors if _EXPERT_TENSOR.search(t.name))
    active: int | None = None
    split_bits: tuple[float | None, float | None] = (None, None)
    if expert_params and experts and used and used < experts:
        active = round(params - expert_params * (1 - used / experts))
        if params > expert_params:
            expert_bytes = sum(t.n_bytes for t in tensors if _EXPERT_TENSOR.search(t.name))
            rest_bytes = sum(t.n_bytes for t in tensors) - expert_bytes
            split_bits = (expert_bytes * 8 / expert_params, rest_bytes * 8 / (params - expert_params))
    elif expert_params and not (experts and used):
        notes.append("expert tensors present but no expert counts: active params unknown")

    heads_raw, kv_raw = (
        first.metadata.get(f"{arch}.attention.head_count"),
        first.metadata.get(f"{arch}.attention.head_count_kv"),
    )
    heads, kv_heads = key("attention.head_count", True), key("attention.head_count_kv", True)
    if isinstance(heads_raw, ArrayInfo) or isinstance(kv_raw, ArrayInfo):
        notes.append("head counts vary by layer: took the largest")
    vocab = None
    tokens = first.metadata.get("tokenizer.ggml.tokens")
    if isinstance(tokens, ArrayInfo):
        vocab = tokens.count
    else:
        vocab = key("vocab_size")

    fields: dict[str, Any] = {
        "layers": layers,
        "hidden": key("embedding_length"),
        "heads": heads or None,
        "kv_heads": kv_heads or None,
        "head_dim": key("attention.key_length"),
        "vocab": vocab or None,
        "experts": experts,
        "experts_active": used,
    }
    names = {t.name for t in tensors}
    if "token_embd.weight" in names:  # a tied model has no output.weight: its head reads token_embd
        fields["tied_embeddings"] = "output.weight" not in names
    ctx = key("context_length")
    if ctx:
        fields["max_context"] = ctx
    kv_lora, window = key("attention.kv_lora_rank"), key("attention.sliding_window")
    if kv_lora:
        # MLA: the cache holds the latent plus the rope part; head_dim carries v's width, as in the catalog
        fields.update(
            attention="mla",
            kv_lora_rank=kv_lora,
            rope_dim=key("rope.dimension_count"),
            head_dim=key("attention.value_length_mla") or key("attention.value_length") or fields["head_dim"],
        )
    elif (
        layers
        and (attending := _attention_layers(first, arch, layers, nextn)) is not None
        and fields["kv_heads"]
        and fields["head_dim"]
    ):
        # only the attention layers' cache grows with context
        fields["kv_bytes_per_token_override"] = attention_kv_bytes(attending, fields["kv_heads"], fields["head_dim"])
        fields["attention_layers"] = attending
        d_state, d_inner = key("ssm.state_size"), key("ssm.inner_size")
        state = (
            recurrent_state_bytes(
                layers - nextn - attending, d_state, d_inner, key("ssm.group_count") or 1, key("ssm.conv_kernel") or 4
            )
            if d_state and d_inner
            else None
        )
        if state is not None:
            fields["state_bytes_per_sequence"] = state
        notes.append(
            f"hybrid: {attending} of {layers} layers keep a KV cache; the others keep "
            + (
                f"{state / 1e6:.1f} MB of state per sequence"
                if state is not None
                else "a fixed-size state per sequence, not counted (no ssm sizes in the file)"
            )
        )
    elif window and layers and (ctx is None or window < ctx):
        sliding, note = _sliding_layers(first, arch, layers)
        if sliding:
            fields.update(attention="sliding", sliding_window=window, sliding_layers=sliding)
            if note:
                notes.append(note)

    name = first.metadata.get("general.name")
    name = name.strip()[:200] if isinstance(name, str) and name.strip() else path.stem
    family = first.metadata.get("general.basename")
    licence = first.metadata.get("general.license")
    size = sum(p.file_size for p in parts)
    notes.insert(0, f"imported from the GGUF header of {label}" + (f" ({len(parts)} parts)" if len(parts) > 1 else ""))
    try:
        entry = ModelEntry(
            id=slugify(name),
            name=name,
            family=(family if isinstance(family, str) and family else arch)[:80],
            license=licence[:200] if isinstance(licence, str) else "",
            total_params_b=params / 1e9,
            active_params_b=active / 1e9 if active is not None else None,
            source=f"GGUF header: {label}"[:2000],
            notes="; ".join(notes),
            **{k: v for k, v in fields.items() if v is not None},
        )
    except ValidationError as err:
        first_err = err.errors()[0]
        loc = ".".join(str(p) for p in first_err["loc"]) or "entry"
        raise GGUFError(f"{label}: metadata gives an invalid {loc}: {first_err['msg']}") from None
    return ImportedModel(
        entry=entry,
        bits_per_weight=bpw,
        file_type=_file_type(first, tensors),
        tensor_count=len(tensors),
        file_size=size,
        architecture=arch,
        notes=tuple(notes),
        expert_bits_per_weight=split_bits[0],
        dense_bits_per_weight=split_bits[1],
    )
