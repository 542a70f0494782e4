"""Load the shipped catalogs (and the user's own entries), one bad entry never stopping the rest."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from advisor.catalog.schema import HardwareEntry, KVCacheEntry, ModelEntry, QuantEntry
from advisor.core.published import HeldOutFigure, Published
from advisor.json_files import JSONProblem, load_json_file, parse_json

E = TypeVar("E", bound=BaseModel)

# category folder -> (TOML array name, entry model)
KINDS: dict[str, tuple[str, type[BaseModel]]] = {
    "hardware": ("hardware", HardwareEntry),
    "models": ("model", ModelEntry),
    "quants": ("quant", QuantEntry),
}
KV_TABLE = "kv_cache"
PUBLISHED_FILE = ("published", "runs.json")  # under the catalog root
MAX_USER_FILE_BYTES = 64 << 20  # thousands of entries are a few MB


@dataclass(frozen=True)
class Catalog:
    hardware: Mapping[str, HardwareEntry] = field(default_factory=dict)
    models: Mapping[str, ModelEntry] = field(default_factory=dict)
    quants: Mapping[str, QuantEntry] = field(default_factory=dict)
    kv_cache: Mapping[str, KVCacheEntry] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # one line per bad file or entry: file, entry and field
    user_ids: frozenset[str] = frozenset()  # "kind/id" of entries that came from the user's folder
    shadowed: tuple[str, ...] = ()  # user entries that replace a shipped id
    published: tuple[Published, ...] = ()  # published decode measurements on catalog hardware
    held_out: tuple[HeldOutFigure, ...] = ()  # the validation's figures on rows the fit never saw


def catalog_root() -> Traversable:
    """Shipped catalogs: inside the installed package, or the repo's catalogs/ when run from source."""
    packaged = resources.files("advisor") / "_catalogs"
    if packaged.is_dir():
        return packaged
    return resources.files("advisor").joinpath("..", "catalogs")  # type: ignore[return-value]


def describe_error(where: str, entry_id: str, err: ValidationError) -> str:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "entry"
    more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{where}: entry '{entry_id}' field '{loc}': {first['msg']}{more}"


def validate_entries(raw: Iterable[Any], model: type[E], where: str, problems: list[str]) -> Iterator[E]:
    """Validate each raw entry on its own; a bad one is reported and skipped."""
    for n, item in enumerate(raw, start=1):
        entry_id = str(item.get("id", f"#{n}")) if isinstance(item, dict) else f"#{n}"
        try:
            yield model.model_validate(item)
        except ValidationError as err:
            problems.append(describe_error(where, entry_id, err))
        except (RecursionError, ValueError, ArithmeticError) as err:  # a validator that could not finish
            problems.append(f"{where}: entry '{entry_id}': cannot be read ({type(err).__name__})")


def _read_toml(path: Traversable, where: str, problems: list[str]) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError, RecursionError, ValueError) as err:
        problems.append(f"{where}: cannot read: {err if not isinstance(err, RecursionError) else 'nested too deeply'}")
        return {}


def _toml_files(folder: Traversable) -> list[Traversable]:
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)


def _add(into: dict[str, E], entries: Iterable[E], where: str, problems: list[str]) -> None:
    for e in entries:
        eid = e.id  # type: ignore[attr-defined]
        if eid in into:
            problems.append(f"{where}: entry '{eid}' field 'id': duplicate id, already defined")
            continue
        into[eid] = e


def load_shipped(root: Traversable | None = None) -> Catalog:
    root = root or catalog_root()
    problems: list[str] = []
    found: dict[str, dict[str, Any]] = {k: {} for k in KINDS}
    kv: dict[str, KVCacheEntry] = {}
    for kind, (table, model) in KINDS.items():
        for path in _toml_files(root / kind):
            where = f"catalogs/{kind}/{path.name}"
            data = _read_toml(path, where, problems)
            _add(found[kind], validate_entries(data.get(table, []), model, where, problems), where, problems)
            if KV_TABLE in data:
                for e in validate_entries(data[KV_TABLE], KVCacheEntry, where, problems):
                    kv[e.id.value] = e
    published, held_out = load_published(
        root.joinpath(*PUBLISHED_FILE), "catalogs/" + "/".join(PUBLISHED_FILE), problems
    )
    return Catalog(
        hardware=found["hardware"],
        models=found["models"],
        quants=found["quants"],
        kv_cache=kv,
        problems=tuple(problems),
        published=published,
        held_out=held_out,
    )


def load_published(
    path: Traversable, where: str, problems: list[str]
) -> tuple[tuple[Published, ...], tuple[HeldOutFigure, ...]]:
    """The published measurements (a JSON object whose "rows" is a list) and the held-out figures (its
    "held_out" list, optional); a bad entry is reported and skipped, a missing or unreadable file means
    none (and says so, unless it is simply absent)."""
    if not path.is_file():
        return (), ()
    try:
        raw = parse_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, JSONProblem) as err:
        problems.append(f"{where}: cannot read: {err}")
        return (), ()
    rows = raw.get("rows") if isinstance(raw, dict) else None
    if not isinstance(rows, list):
        problems.append(f'{where}: expected a JSON object with a list of "rows"')
        return (), ()
    held = raw.get("held_out", [])
    if not isinstance(held, list):
        problems.append(f'{where}: "held_out" should be a list')
        held = []
    return (
        tuple(validate_entries(rows, Published, where, problems)),
        tuple(validate_entries(held, HeldOutFigure, f"{where} held_out", problems)),
    )


@lru_cache(maxsize=1)
def shipped_catalog() -> Catalog:
    return load_shipped()


def load_user(user_dir: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """User entries: <user_dir>/<kind>.json, each a JSON list of entries. A file that cannot be read for
    any reason is one problem line naming it, and the rest load (user_store offers to set it aside)."""
    problems: list[str] = []
    found: dict[str, dict[str, Any]] = {k: {} for k in KINDS}
    for kind, (_, model) in KINDS.items():
        path = user_dir / f"{kind}.json"
        if not path.exists() and not path.is_symlink():
            continue
        try:
            raw = load_json_file(path, max_bytes=MAX_USER_FILE_BYTES)
        except JSONProblem as err:
            problems.append(
                str(err)
                if ": cannot read: " in str(err)
                else f"{path}: cannot read: {str(err).removeprefix(f'{path}: ')}"
            )
            continue
        if not isinstance(raw, list):
            problems.append(f"{path}: expected a JSON list of entries")
            continue
        _add(found[kind], validate_entries(raw, model, str(path), problems), str(path), problems)
    return found, problems


def load_catalog(user_dir: Path | None = None) -> Catalog:
    """Shipped entries merged with the user's; a user entry may shadow a shipped id (and is noted)."""
    shipped = shipped_catalog()
    if user_dir is None:
        return shipped
    user, problems = load_user(user_dir)
    merged: dict[str, dict[str, Any]] = {}
    shadowed: list[str] = []
    user_ids: set[str] = set()
    for kind in KINDS:
        base = dict(getattr(shipped, kind))
        for eid, entry in user[kind].items():
            if eid in base:
                shadowed.append(f"{kind}/{eid}: your entry replaces the shipped one")
            base[eid] = entry
            user_ids.add(f"{kind}/{eid}")
        merged[kind] = base
    return Catalog(
        hardware=merged["hardware"],
        models=merged["models"],
        quants=merged["quants"],
        kv_cache=shipped.kv_cache,
        problems=shipped.problems + tuple(problems),
        user_ids=frozenset(user_ids),
        shadowed=tuple(shadowed),
        published=shipped.published,
        held_out=shipped.held_out,
    )
