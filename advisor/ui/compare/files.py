"""Comparisons on disk: JSON, written atomically; a file that cannot be opened says why and which field."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from advisor.atomic import write_atomic
from advisor.core.compare import CompareSetup

COMPARE_FILTER = "Advisor comparison (*.json)"


class CompareFileError(Exception):
    """A comparison file that cannot be read or written; the message names the file and the field."""


def save_setup(setup: CompareSetup, path: Path) -> None:
    try:
        write_atomic(path, setup.model_dump_json(indent=2))
    except (OSError, ValueError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise CompareFileError(f"{path}: cannot write ({reason})") from None


def load_setup(path: Path) -> CompareSetup:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise CompareFileError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
    except json.JSONDecodeError as err:
        raise CompareFileError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno})") from None
    if isinstance(raw, dict) and raw.get("kind") != "comparison" and "scenario" in raw:
        raise CompareFileError(f"{path}: this is a scenario, not a comparison; open it from the main window")
    try:
        return CompareSetup.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "file"
        raise CompareFileError(f"{path}: field '{loc}': {first['msg']}") from None
