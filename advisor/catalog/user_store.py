"""Save and delete the user's own catalog entries: <user_dir>/<kind>.json, each a JSON list.

Corrupt files: by default save_entry and delete_entry raise UserStoreError naming the file and touch
nothing, because silently replacing an unreadable file would lose whatever the user had in it.
Pass set_aside_corrupt=True (the window's "move it aside and save" answer) to rename it to
<kind>.json.bad-<timestamp> first and start a fresh list. There is no locking: two processes saving at
the same moment can lose one save, never corrupt the file (writes are atomic).
Entries in the file that no longer validate (say, from a newer version) are kept as they are."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from advisor.atomic import set_aside, write_atomic
from advisor.catalog.loader import KINDS, MAX_USER_FILE_BYTES, describe_error
from advisor.json_files import JSONProblem, load_json_file
from advisor.paths import user_catalog_dir


class UserStoreError(ValueError):
    """A user catalog file or entry that cannot be saved; the message names the file or field."""


def slugify(text: str) -> str:
    """A catalog id from a display name: lower case, [a-z0-9._-], at most 80 characters."""
    s = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")
    return s[:80].rstrip("-._") or "imported-model"


def store_path(kind: str, user_dir: Path | None = None) -> Path:
    if kind not in KINDS:
        raise UserStoreError(f"unknown catalog kind '{kind}' (expected {', '.join(KINDS)})")
    return (user_dir if user_dir is not None else user_catalog_dir()) / f"{kind}.json"


def read_raw(path: Path, set_aside_corrupt: bool = False) -> list[Any]:
    """The file's entries as plain JSON; [] when the file does not exist yet. Whatever keeps the file from
    being read as a list (malformed, out of range, too large, not UTF-8, a FIFO or folder) is corrupt;
    only an error of the system (permissions, a failing disk) is not, and never leads to a set-aside."""
    if not path.exists() and not path.is_symlink():
        return []
    try:
        raw = load_json_file(path, max_bytes=MAX_USER_FILE_BYTES)
        if isinstance(raw, list):
            return raw
        problem = "is not a JSON list of entries"
    except JSONProblem as err:
        if err.system:
            raise UserStoreError(str(err)) from None
        problem = str(err).removeprefix(f"{path}: ").removeprefix("cannot read: ")
        is_what = problem.startswith(("not ", "larger ", "nested "))
        problem = f"is {problem}" if is_what else f"cannot be read: {problem}"
    if not set_aside_corrupt:
        raise UserStoreError(f"{path} {problem}; nothing was saved — repair it, or move it aside and save again")
    set_aside(path)
    return []


def _validate(kind: str, entry: BaseModel | dict[str, Any]) -> BaseModel:
    model = KINDS[kind][1]
    data = entry.model_dump(mode="json") if isinstance(entry, BaseModel) else entry
    try:
        return model.model_validate(data)
    except ValidationError as err:
        eid = str(data.get("id", "?")) if isinstance(data, dict) else "?"
        raise UserStoreError(describe_error(kind, eid, err)) from None


def _write(path: Path, entries: list[Any]) -> None:
    write_atomic(path, json.dumps(entries, indent=2, ensure_ascii=False) + "\n")


def save_entry(
    kind: str, entry: BaseModel | dict[str, Any], user_dir: Path | None = None, *, set_aside_corrupt: bool = False
) -> Path:
    """Validate `entry`, replace any saved entry with the same id (or append), write atomically; the file's path."""
    path = store_path(kind, user_dir)
    valid = _validate(kind, entry)
    raw = read_raw(path, set_aside_corrupt)
    new = valid.model_dump(mode="json")
    eid = new["id"]
    for n, item in enumerate(raw):
        if isinstance(item, dict) and item.get("id") == eid:
            raw[n] = new
            break
    else:
        raw.append(new)
    _write(path, raw)
    return path


def delete_entry(kind: str, entry_id: str, user_dir: Path | None = None) -> bool:
    """Remove every saved entry with this id; False when there was none."""
    path = store_path(kind, user_dir)
    raw = read_raw(path)
    kept = [item for item in raw if not (isinstance(item, dict) and item.get("id") == entry_id)]
    if len(kept) == len(raw):
        return False
    _write(path, kept)
    return True


def saved_ids(kind: str, user_dir: Path | None = None) -> list[str]:
    """Ids in the user's file (whatever loads or not), for "replaced your earlier entry" messages."""
    try:
        raw = read_raw(store_path(kind, user_dir))
    except UserStoreError:
        return []
    return [str(item["id"]) for item in raw if isinstance(item, dict) and "id" in item]
