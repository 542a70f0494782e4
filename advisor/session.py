"""A scenario plus the catalog entries it started from: what is saved, opened, undone and restored."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError

from advisor.core.base import Frozen
from advisor.core.evaluate import evaluate
from advisor.core.scenario import Scenario
from advisor.json_files import read_json, validate, validation_message, write_model

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
    write_model(path, session, SessionFileError)


def load_session(path: Path) -> Session:
    """The file's session; SessionFileError when it cannot be read, is invalid, or cannot be computed."""
    session = validate(path, read_json(path, SessionFileError), Session, SessionFileError)
    if (problem := session_problem(session)) is not None:
        raise SessionFileError(f"{path}: the scenario cannot be computed ({problem})")
    return session


def session_problem(session: Session) -> str | None:
    """Why the session's scenario cannot be computed, or None. Every field is bounded to physical values,
    so this guards what the bounds cannot see (a combination the solver still refuses)."""
    try:
        evaluate(session.scenario, explain=False)
    except ValidationError as err:
        return validation_message(err, "result")
    except (ArithmeticError, ValueError) as err:
        return f"{type(err).__name__}: {err}"
    return None
