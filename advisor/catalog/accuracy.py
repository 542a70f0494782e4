"""The shipped cross-validation by source (catalogs/published/loso.json), read and checked."""

from __future__ import annotations

from functools import lru_cache

from pydantic import ValidationError

from advisor.catalog.loader import PUBLISHED_FILE, catalog_root
from advisor.core.accuracy import SourceValidation
from advisor.json_files import JSONProblem, parse_json

LOSO_FILE = (*PUBLISHED_FILE[:-1], "loso.json")


@lru_cache(maxsize=1)
def shipped_source_validation() -> tuple[SourceValidation | None, str | None]:
    """(figures, None), or (None, why not) when the file is missing or unreadable."""
    path = catalog_root().joinpath(*LOSO_FILE)
    where = "catalogs/" + "/".join(LOSO_FILE)
    if not path.is_file():
        return None, f"{where} is missing: run benchmarks/loso.py"
    try:
        return SourceValidation.model_validate(parse_json(path.read_text(encoding="utf-8"))), None
    except (OSError, UnicodeDecodeError, JSONProblem, ValidationError) as err:
        return None, f"{where}: cannot read: {str(err).splitlines()[0]}"
