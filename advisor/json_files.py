"""Documents on disk as JSON (scenarios, comparisons, settings, catalog files): written atomically; a
file that cannot be read or written raises the caller's error type with one message naming the file
(and the field).

parse_json is the one strict JSON parser every reader uses: besides malformed text it refuses what
Python's json module would turn into a traceback further on (nesting past MAX_DEPTH, integers longer
than MAX_INT_DIGITS) or into a number no physical field can hold (NaN, Infinity, 1e999)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from advisor.atomic import write_atomic
from advisor.regular_files import FileTooLarge, NotRegularFile, read_regular

M = TypeVar("M", bound=BaseModel)

MAX_JSON_BYTES = 64 << 20  # a safetensors index, the largest JSON read, is a few MB
MAX_DEPTH = 64  # real documents nest a handful of levels
MAX_INT_DIGITS = 40  # a byte count of any real file has at most 16


class JSONProblem(ValueError):
    """Why a text or file is not JSON the advisor accepts; one line (a file's names the file).
    `system` is set when the system refused the read (permissions, a failing disk): the file itself
    may be fine, so it must not be set aside as corrupt."""

    def __init__(self, message: str, system: bool = False) -> None:
        super().__init__(message)
        self.system = system


def _no_constant(name: str) -> NoReturn:
    raise JSONProblem(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONProblem(f"an integer of {len(text.lstrip('-')):,} digits is out of range")
    return int(text)


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise JSONProblem(f"the number {text[:40]} is out of range")
    return x


def _check_depth(obj: Any) -> None:
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > MAX_DEPTH:
            raise JSONProblem(f"nested deeper than {MAX_DEPTH} levels")
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def parse_json(text: str | bytes) -> Any:
    """The document, or JSONProblem with the reason (and line and column for malformed text)."""
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_no_constant)
    except JSONProblem:
        raise
    except json.JSONDecodeError as err:
        raise JSONProblem(f"not valid JSON (line {err.lineno}, column {err.colno})") from None
    except RecursionError:
        raise JSONProblem(f"nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise JSONProblem("not UTF-8 text") from None
    except ValueError as err:  # anything else the parser refuses
        raise JSONProblem(f"not valid JSON ({err})") from None
    if isinstance(data, dict | list):
        _check_depth(data)
    return data


def load_json_file(path: Path, label: str | None = None, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The file's document; JSONProblem('<label>: why') for any file that cannot be read as JSON
    (missing, a folder or FIFO, too large, not UTF-8, malformed or out of range)."""
    label = label or str(path)
    try:
        raw = read_regular(path, max_bytes)
    except FileNotFoundError:
        raise JSONProblem(f"{label}: no such file") from None
    except (NotRegularFile, FileTooLarge) as err:
        raise JSONProblem(f"{label}: cannot read: {err.strerror}") from None
    except (OSError, ValueError) as err:  # ValueError: a name the OS cannot take (a NUL byte)
        raise JSONProblem(
            f"{label}: cannot read: {getattr(err, 'strerror', None) or err}", system=isinstance(err, OSError)
        ) from None
    try:
        return parse_json(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise JSONProblem(f"{label}: not UTF-8 text") from None
    except JSONProblem as err:
        raise JSONProblem(f"{label}: {err}") from None


def write_model(path: Path, model: BaseModel, error: type[Exception]) -> None:
    try:
        write_atomic(path, model.model_dump_json(indent=2))
    except (OSError, ValueError) as err:  # ValueError: a name the OS cannot take (a NUL byte)
        raise error(f"{path}: cannot write ({getattr(err, 'strerror', None) or err})") from None


def read_json(path: Path, error: type[Exception]) -> Any:
    try:
        return load_json_file(path)
    except JSONProblem as err:
        raise error(str(err)) from None


def validation_message(err: ValidationError, where: str = "file") -> str:
    """The first error of a validation as "field 'a.b': why"."""
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or where
    return f"field '{loc}': {first['msg']}"


def validate(path: Path, raw: Any, model: type[M], error: type[Exception]) -> M:
    try:
        return model.model_validate(raw)
    except ValidationError as err:
        raise error(f"{path}: {validation_message(err)}") from None
    except (RecursionError, ValueError, ArithmeticError) as err:  # a validator that could not finish
        raise error(f"{path}: cannot be read as this kind of file ({err})") from None
