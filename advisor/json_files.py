"""Documents on disk as JSON (scenarios, comparisons): written atomically; a file that cannot be
read or written raises the caller's error type with one message naming the file (and the field)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from advisor.atomic import write_atomic

M = TypeVar("M", bound=BaseModel)


def write_model(path: Path, model: BaseModel, error: type[Exception]) -> None:
    try:
        write_atomic(path, model.model_dump_json(indent=2))
    except (OSError, ValueError) as err:  # ValueError: a name the OS cannot take (a NUL byte)
        raise error(f"{path}: cannot write ({getattr(err, 'strerror', None) or err})") from None


def read_json(path: Path, error: type[Exception]) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise error(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
    except json.JSONDecodeError as err:
        raise error(f"{path}: not valid JSON (line {err.lineno}, column {err.colno})") from None


def validate(path: Path, raw: Any, model: type[M], error: type[Exception]) -> M:
    try:
        return model.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "file"
        raise error(f"{path}: field '{loc}': {first['msg']}") from None
