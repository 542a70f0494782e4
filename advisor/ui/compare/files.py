"""Comparisons on disk: JSON, written atomically; a file that cannot be opened says why and which field."""

from __future__ import annotations

from pathlib import Path

from advisor.core.machines import CompareSetup
from advisor.json_files import read_json, validate, write_model

COMPARE_FILTER = "Advisor comparison (*.json)"


class CompareFileError(Exception):
    """A comparison file that cannot be read or written; the message names the file and the field."""


def save_setup(setup: CompareSetup, path: Path) -> None:
    write_model(path, setup, CompareFileError)


def load_setup(path: Path) -> CompareSetup:
    raw = read_json(path, CompareFileError)
    if isinstance(raw, dict) and raw.get("kind") != "comparison" and "scenario" in raw:
        raise CompareFileError(f"{path}: this is a scenario, not a comparison; open it from the main window")
    return validate(path, raw, CompareSetup, CompareFileError)
