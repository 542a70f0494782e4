"""A model entry from a local GGUF file, read from its header and tensor-info table alone.

Our own bounded parser rather than gguf.GGUFReader: the reader builds Python objects for every
element of the tokenizer arrays (slow on a 256k vocabulary) and fails on bad input with whatever
numpy or struct raises. Here every count and length is checked before it is used, big arrays are
skipped without being materialized, and the tensor data is never read: a 40 GB file costs the
same as a 10 MB one. Every failure is a GGUFError whose message starts with the file name."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFValueType, LlamaFileType
from pydantic import ValidationError

from advisor.catalog.schema import ModelEntry
from advisor.catalog.user_store import slugify
from advisor.core.kv import attention_kv_bytes, recurrent_state_bytes
from advisor.core.quant import Quant

MAX_COUNT = 1_000_000  # tensors or KV pairs; real files hold a few thousand at most
MAX_STRING = 1 << 20  # 1 MiB: chat templates are the longest strings in real files
MAX_ARRAY = 10_000_000  # elements; a 256k-token vocabulary is far below
MAX_DIMS = 8  # ggml itself stops at 4
MAX_DEPTH = 3  # arrays of arrays
MAX_NESTED = 4096  # elements of an array of arrays: each costs a Python step, and real files have none
MAX_HEADER = 256 << 20  # header plus tensor infos; a big tokenizer makes ~10 MB
KEEP_ARRAY = 4096  # numeric arrays up to this long are kept (per-layer values); longer ones only counted
_CHUNK = 1 << 20

_SCALAR = {  # value type -> struct code
    GGUFValueType.UINT8: "B", GGUFValueType.INT8: "b", GGUFValueType.UINT16: "H", GGUFValueType.INT16: "h",
    GGUFValueType.UINT32: "I", GGUFValueType.INT32: "i", GGUFValueType.FLOAT32: "f", GGUFValueType.BOOL: "?",
    GGUFValueType.UINT64: "Q", GGUFValueType.INT64: "q", GGUFValueType.FLOAT64: "d",
}
_INT_TYPES = {t for t, c in _SCALAR.items() if c in "BbHhIiQq"}

# Layers that use the sliding window, by architecture, when the file carries no pattern key:
# llama.cpp hard-codes these (gemma2, gpt-oss: every other layer; gemma3: 5 of every 6; cohere2: 3 of 4).
_SWA_PERIOD = {"gemma2": 2, "gpt-oss": 2, "gemma3": 6, "cohere2": 4}
_EXPERT_TENSOR = re.compile(r"_exps\.|\.ffn_(gate|up|down)\.\d+\.")  # merged, or old per-expert Mixtral names
_LAYER = re.compile(r"^blk\.(\d+)\.")


class GGUFError(ValueError):
    """The file is not a GGUF model we can read; the message names the file."""


@dataclass(frozen=True)
class ArrayInfo:
    """A metadata array: its length always, its values only when short and numeric."""

    elem_type: GGUFValueType
    count: int
    values: tuple[Any, ...] | None


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dims: tuple[int, ...]
    ggml_type: GGMLQuantizationType
    offset: int

    @property
    def n_elements(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    @property
    def n_bytes(self) -> int:
        block, size = GGML_QUANT_SIZES[self.ggml_type]
        return self.n_elements // block * size


@dataclass(frozen=True)
class GGUFHeader:
    path: Path
    version: int
    metadata: dict[str, Any]
    tensors: tuple[TensorInfo, ...]
    data_start: int
    file_size: int


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
            return Quant(name=name, bits_per_weight=self.expert_bits_per_weight,
                         dense_bits_per_weight=self.dense_bits_per_weight)
        return Quant(name=name, bits_per_weight=self.bits_per_weight)


@lru_cache(maxsize=64)
def _struct(fmt: str) -> struct.Struct:
    return struct.Struct(fmt)


class _Cursor:
    """Sequential reads through a window of the file, so skipping a 10 MB tokenizer costs no syscalls per token."""

    def __init__(self, f: BinaryIO, size: int, label: str) -> None:
        self.f, self.size, self.label = f, size, label
        self.buf = b""
        self.start = 0  # file offset of buf[0]
        self.pos = 0
        self.endian = "<"

    def fail(self, message: str) -> GGUFError:
        return GGUFError(f"{self.label}: {message}")

    def _need(self, n: int) -> int:
        """Make buf hold [pos, pos+n); returns pos as an index into buf."""
        if self.pos + n > self.size:
            raise self.fail(f"truncated: needs {n} bytes at offset {self.pos} but the file ends at {self.size}")
        if self.pos > MAX_HEADER:
            raise self.fail(f"header runs past {MAX_HEADER >> 20} MiB: corrupt or not a model file")
        i = self.pos - self.start
        if i < 0 or i + n > len(self.buf):
            self.f.seek(self.pos)
            self.buf = self.f.read(max(n, _CHUNK))
            self.start = self.pos
            i = 0
            if len(self.buf) < n:
                raise self.fail(f"truncated: short read at offset {self.pos}")
        return i

    def unpack(self, code: str) -> Any:
        s = _struct(self.endian + code)
        i = self._need(s.size)
        self.pos += s.size
        return s.unpack_from(self.buf, i)[0]

    def skip(self, n: int) -> None:
        if self.pos + n > self.size:
            raise self.fail(f"truncated: {n} bytes at offset {self.pos} run past the end ({self.size})")
        self.pos += n

    def string(self, what: str) -> str:
        n = self.unpack("Q")
        if n > MAX_STRING:
            raise self.fail(f"{what}: string length {n} at offset {self.pos - 8} exceeds 1 MiB (corrupt?)")
        i = self._need(n)
        self.pos += n
        return self.buf[i:i + n].decode("utf-8", errors="replace")

    def skip_strings(self, count: int, what: str) -> None:
        """Skip `count` strings in bulk: the tokenizer's tokens and merges are most of a header."""
        u64 = _struct(self.endian + "Q")
        while count:
            self._need(8)
            buf, i = self.buf, self.pos - self.start
            end = len(buf)
            while count and i + 8 <= end:
                n = u64.unpack_from(buf, i)[0]
                if n > MAX_STRING:
                    raise self.fail(f"{what}: string length {n} at offset {self.start + i} exceeds 1 MiB (corrupt?)")
                if i + 8 + n > end:
                    break
                i += 8 + n
                count -= 1
            self.pos = self.start + i
            if count:  # the next string straddles the window: read it the slow way
                self.string(what)
                count -= 1


def _value_type(cur: _Cursor, what: str) -> GGUFValueType:
    raw = cur.unpack("I")
    try:
        return GGUFValueType(raw)
    except ValueError:
        raise cur.fail(f"{what}: unknown value type {raw} at offset {cur.pos - 4}") from None


def _value(cur: _Cursor, vtype: GGUFValueType, key: str, depth: int = 0) -> Any:
    if vtype is GGUFValueType.STRING:
        return cur.string(key)
    if vtype is not GGUFValueType.ARRAY:
        return cur.unpack(_SCALAR[vtype])
    if depth >= MAX_DEPTH:
        raise cur.fail(f"{key}: arrays nested deeper than {MAX_DEPTH}")
    elem = _value_type(cur, key)
    count = cur.unpack("Q")
    if count > MAX_ARRAY:
        raise cur.fail(f"{key}: array of {count} elements exceeds {MAX_ARRAY:,} (corrupt?)")
    if elem in _SCALAR:
        s = _struct(cur.endian + _SCALAR[elem])
        if count <= KEEP_ARRAY:
            i = cur._need(s.size * count)
            cur.pos += s.size * count
            return ArrayInfo(elem, count, tuple(v[0] for v in s.iter_unpack(cur.buf[i:i + s.size * count])))
        cur.skip(s.size * count)
    elif elem is GGUFValueType.STRING:
        cur.skip_strings(count, key)
    else:
        if count > MAX_NESTED:
            raise cur.fail(f"{key}: array of {count} arrays exceeds {MAX_NESTED} (corrupt?)")
        for _ in range(count):
            _value(cur, elem, key, depth + 1)
    return ArrayInfo(elem, count, None)


def _tensor_info(cur: _Cursor, seen: set[str]) -> TensorInfo:
    # empty or repeated names mean we are reading garbage (e.g. zeros past a corrupted count): stop now
    name = cur.string("tensor name")
    if not name or name in seen:
        raise cur.fail(f"{'empty' if not name else 'repeated'} tensor name '{name}' at offset {cur.pos}")
    seen.add(name)
    n_dims = cur.unpack("I")
    if n_dims > MAX_DIMS:
        raise cur.fail(f"tensor '{name}': {n_dims} dimensions (at most {MAX_DIMS})")
    dims = tuple(cur.unpack("Q") for _ in range(n_dims))
    raw = cur.unpack("I")
    try:
        ggml_type = GGMLQuantizationType(raw)
        block, _ = GGML_QUANT_SIZES[ggml_type]
    except (ValueError, KeyError):
        raise cur.fail(f"tensor '{name}': unknown ggml type {raw} (newer than this gguf package?)") from None
    offset = cur.unpack("Q")
    if dims and dims[0] % block:
        raise cur.fail(f"tensor '{name}': row of {dims[0]} is not a whole number of {ggml_type.name} blocks ({block})")
    return TensorInfo(name, dims, ggml_type, offset)


def read_header(path: Path) -> GGUFHeader:
    """Header, metadata and tensor infos of one GGUF file; never touches the tensor data."""
    label = path.name
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            cur = _Cursor(f, size, label)
            return _parse(cur, path)
    except OSError as err:
        raise GGUFError(f"{label}: cannot read: {err.strerror or err}") from None


def _parse(cur: _Cursor, path: Path) -> GGUFHeader:
    if cur.size < 4 or cur.unpack("4s") != b"GGUF":
        raise cur.fail("not a GGUF file (no 'GGUF' magic at the start)")
    raw = cur.unpack("4s")
    little, big = struct.unpack("<I", raw)[0], struct.unpack(">I", raw)[0]
    if little in (2, 3):
        version = little
    elif big in (2, 3):  # a big-endian file (s390x builds): same layout, other byte order
        version, cur.endian = big, ">"
    elif little == 1:
        raise cur.fail("GGUF version 1 is not supported (re-convert with a current llama.cpp)")
    else:
        raise cur.fail(f"unsupported GGUF version {little} (expected 2 or 3)")
    n_tensors, n_kv = cur.unpack("Q"), cur.unpack("Q")
    if n_tensors > MAX_COUNT:
        raise cur.fail(f"tensor count {n_tensors:,} exceeds {MAX_COUNT:,} (corrupt?)")
    if n_kv > MAX_COUNT:
        raise cur.fail(f"metadata count {n_kv:,} exceeds {MAX_COUNT:,} (corrupt?)")
    meta: dict[str, Any] = {}
    for _ in range(n_kv):
        key = cur.string("metadata key")
        if not key or key in meta:
            raise cur.fail(f"{'empty' if not key else 'repeated'} metadata key '{key}' at offset {cur.pos}")
        meta[key] = _value(cur, _value_type(cur, key), key)
    seen: set[str] = set()
    tensors = tuple(_tensor_info(cur, seen) for _ in range(n_tensors))
    align = meta.get("general.alignment", 32)
    if not isinstance(align, int) or isinstance(align, bool) or align <= 0 or align & (align - 1):
        raise cur.fail(f"general.alignment {align!r} is not a power of two")
    data_start = -(-cur.pos // align) * align
    for t in tensors:
        end = data_start + t.offset + t.n_bytes
        if end > cur.size:
            raise cur.fail(f"tensor '{t.name}' ends at byte {end:,} but the file has {cur.size:,} "
                           "(truncated download?)")
    return GGUFHeader(path, version, meta, tensors, data_start, cur.size)


# --- from header to model entry -----------------------------------------------------------------


def _shards(first: GGUFHeader) -> Iterator[GGUFHeader]:
    """All parts of a split model (name-00001-of-00003.gguf ...): params need every part's tensors."""
    yield first
    count = _int(first, "split.count") or 1
    if count <= 1:
        return
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
    if isinstance(v, ArrayInfo) and per_layer_max and v.values is not None and v.elem_type in _INT_TYPES:
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

    heads_raw, kv_raw = first.metadata.get(f"{arch}.attention.head_count"), \
        first.metadata.get(f"{arch}.attention.head_count_kv")
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
        "layers": layers, "hidden": key("embedding_length"), "heads": heads or None,
        "kv_heads": kv_heads or None, "head_dim": key("attention.key_length"), "vocab": vocab or None,
        "experts": experts, "experts_active": used,
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
        fields.update(attention="mla", kv_lora_rank=kv_lora, rope_dim=key("rope.dimension_count"),
                      head_dim=key("attention.value_length_mla") or key("attention.value_length")
                      or fields["head_dim"])
    elif layers and (attending := _attention_layers(first, arch, layers, nextn)) is not None and fields["kv_heads"] \
            and fields["head_dim"]:
        # only the attention layers' cache grows with context
        fields["kv_bytes_per_token_override"] = attention_kv_bytes(attending, fields["kv_heads"], fields["head_dim"])
        fields["attention_layers"] = attending
        d_state, d_inner = key("ssm.state_size"), key("ssm.inner_size")
        state = (recurrent_state_bytes(layers - nextn - attending, d_state, d_inner, key("ssm.group_count") or 1,
                                       key("ssm.conv_kernel") or 4) if d_state and d_inner else None)
        if state is not None:
            fields["state_bytes_per_sequence"] = state
        notes.append(f"hybrid: {attending} of {layers} layers keep a KV cache; the others keep "
                     + (f"{state / 1e6:.1f} MB of state per sequence" if state is not None else
                        "a fixed-size state per sequence, not counted (no ssm sizes in the file)"))
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
            id=slugify(name), name=name,
            family=(family if isinstance(family, str) and family else arch)[:80],
            license=licence[:200] if isinstance(licence, str) else "",
            total_params_b=params / 1e9, active_params_b=active / 1e9 if active is not None else None,
            source=f"GGUF header: {label}"[:2000], notes="; ".join(notes),
            **{k: v for k, v in fields.items() if v is not None},
        )
    except ValidationError as err:
        first_err = err.errors()[0]
        loc = ".".join(str(p) for p in first_err["loc"]) or "entry"
        raise GGUFError(f"{label}: metadata gives an invalid {loc}: {first_err['msg']}") from None
    return ImportedModel(entry=entry, bits_per_weight=bpw, file_type=_file_type(first, tensors),
                         tensor_count=len(tensors), file_size=size, architecture=arch, notes=tuple(notes),
                         expert_bits_per_weight=split_bits[0], dense_bits_per_weight=split_bits[1])
