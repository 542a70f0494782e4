"""A scenario plus the catalog entries it started from: what is saved, opened, undone and restored."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field, ValidationError

from advisor.atomic import write_atomic
from advisor.core.base import Frozen
from advisor.core.scenario import Scenario

SCHEMA_VERSION = 1


class Session(Frozen):
    schema_version: int = Field(SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION)
    scenario: Scenario = Scenario()
    hardware_id: str | None = None
    model_id: str | None = None
    quant_id: str | None = None


class SessionFileError(Exception):
    """A scenario file that cannot be opened; the message names the file and the field."""


def save_session(session: Session, path: Path) -> None:
    write_atomic(path, session.model_dump_json(indent=2))


def load_session(path: Path) -> Session:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise SessionFileError(f"{path}: cannot read: {err}") from None
    except json.JSONDecodeError as err:
        raise SessionFileError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno})") from None
    try:
        return Session.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "file"
        raise SessionFileError(f"{path}: field '{loc}': {first['msg']}") from None
