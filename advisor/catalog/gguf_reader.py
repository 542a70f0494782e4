"""A GGUF file's header, metadata and tensor-info table, read without touching the tensor data.

Our own bounded parser rather than gguf.GGUFReader: the reader builds Python objects for every
element of the tokenizer arrays (slow on a 256k vocabulary) and fails on bad input with whatever
numpy or struct raises. Here every count and length is checked before it is used, big arrays are
skipped without being materialized, and the tensor data is never read: a 40 GB file costs the
same as a 10 MB one. Every failure is a GGUFError whose message starts with the file name."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFValueType

from advisor.regular_files import open_regular

# Every count is bounded by what real files need, so no header costs more than about a second: each
# tensor info, key and string of an array is a Python step (and a tensor info an object).
MAX_TENSORS = 16_384  # a file holds a few thousand at most (merged experts; per-expert Mixtral files ~1,000)
MAX_KV = 16_384  # key/value pairs; real files hold under a hundred
MAX_STRING = 1 << 20  # 1 MiB: chat templates are the longest strings in real files
MAX_ARRAY = 10_000_000  # elements of one array; a 256k-token vocabulary is far below
MAX_STRINGS = 1_000_000  # strings in all arrays together: tokens plus merges, ~410k for Llama 3
MAX_DIMS = 8  # ggml itself stops at 4
MAX_DEPTH = 3  # arrays of arrays
MAX_NESTED = 4096  # elements of arrays of arrays, summed over every depth and key: real files have none
MAX_HEADER = 256 << 20  # header plus tensor infos; a big tokenizer makes ~10 MB
KEEP_ARRAY = 4096  # numeric arrays up to this long are kept (per-layer values); longer ones only counted
_CHUNK = 1 << 20

_SCALAR = {  # value type -> struct code
    GGUFValueType.UINT8: "B",
    GGUFValueType.INT8: "b",
    GGUFValueType.UINT16: "H",
    GGUFValueType.INT16: "h",
    GGUFValueType.UINT32: "I",
    GGUFValueType.INT32: "i",
    GGUFValueType.FLOAT32: "f",
    GGUFValueType.BOOL: "?",
    GGUFValueType.UINT64: "Q",
    GGUFValueType.INT64: "q",
    GGUFValueType.FLOAT64: "d",
}
INT_TYPES = {t for t, c in _SCALAR.items() if c in "BbHhIiQq"}  # integer value types


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
        self.strings_left = MAX_STRINGS  # the file's budgets, spent across all keys
        self.nested_left = MAX_NESTED

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
        return self.buf[i : i + n].decode("utf-8", errors="replace")

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
            return ArrayInfo(elem, count, tuple(v[0] for v in s.iter_unpack(cur.buf[i : i + s.size * count])))
        cur.skip(s.size * count)
    elif elem is GGUFValueType.STRING:
        if count > cur.strings_left:
            raise cur.fail(f"{key}: {count:,} strings bring the file's arrays past {MAX_STRINGS:,} strings (corrupt?)")
        cur.strings_left -= count
        cur.skip_strings(count, key)
    else:
        if count > cur.nested_left:
            raise cur.fail(
                f"{key}: array of {count} arrays brings the file's nested arrays past {MAX_NESTED:,} "
                "elements (corrupt?)"
            )
        cur.nested_left -= count
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
        with open_regular(path) as f:  # a FIFO or device would block the first read forever
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
    if n_tensors > MAX_TENSORS:
        raise cur.fail(f"tensor count {n_tensors:,} exceeds {MAX_TENSORS:,} (corrupt?)")
    if n_kv > MAX_KV:
        raise cur.fail(f"metadata count {n_kv:,} exceeds {MAX_KV:,} (corrupt?)")
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
            raise cur.fail(
                f"tensor '{t.name}' ends at byte {end:,} but the file has {cur.size:,} (truncated download?)"
            )
    return GGUFHeader(path, version, meta, tensors, data_start, cur.size)
