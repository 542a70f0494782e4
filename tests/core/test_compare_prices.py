"""Prices with dates and kinds, used prices with their sources, and products a person searches for."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from advisor.catalog.loader import shipped_catalog
from advisor.catalog.schema import HardwareEntry
from advisor.catalog.search import search
from advisor.core.comparison import compare
from advisor.core.machines import catalog_machines, has_used_price, machine_from_entry
from advisor.core.scenario import Scenario
from advisor.present.compare_text import csv_rows, table_cells
from advisor.present.figures import catalog_prices, price_tip

CAT = shipped_catalog()
# laptop.toml's entries are curated elsewhere; every other priced entry carries its month and kind
PRICED = [
    h for h in CAT.hardware.values() if h.price_usd and not h.id.endswith("-laptop") and "laptop" not in h.name.lower()
]


def test_every_priced_entry_has_a_month_and_a_kind() -> None:
    assert len(PRICED) >= 50
    for h in PRICED:
        assert h.price_seen is not None, h.id
        assert h.price_kind in ("new", "used"), h.id


def test_used_prices_are_dated_and_sourced() -> None:
    used = [h for h in CAT.hardware.values() if h.used_price_usd is not None]
    assert len(used) >= 10
    for h in used:
        assert h.used_price_seen is not None, h.id
        assert ("http" in (h.used_price_source or "")) or "used_price_usd" in h.estimates, h.id
        if h.price_usd and h.price_kind == "new":
            assert h.used_price_usd < h.price_usd, h.id  # a used one sells for less than new
    assert {"rtx-3090", "rtx-3090-ti", "rtx-4090"} <= {h.id for h in used}


def test_used_price_needs_its_month_and_source() -> None:
    data = CAT.hardware["rtx-3090"].model_dump()
    data.pop("used_price_seen")
    with pytest.raises(ValidationError, match="used_price_seen"):
        HardwareEntry.model_validate(data)
    data = {**CAT.hardware["rtx-3090"].model_dump(), "used_price_source": None}
    with pytest.raises(ValidationError, match="used_price_source"):
        HardwareEntry.model_validate(data)
    ok = {**data, "estimates": ["used_price_usd"]}
    assert HardwareEntry.model_validate(ok).used_price_usd == CAT.hardware["rtx-3090"].used_price_usd


def test_machines_take_the_new_or_the_used_price() -> None:
    e = CAT.hardware["rtx-3090"]
    new, used = machine_from_entry(e), machine_from_entry(e, used=True)
    assert (new.price_usd, new.price_kind, new.price_seen) == (e.price_usd, "new", e.price_seen)
    assert (used.price_usd, used.price_kind, used.price_seen) == (e.used_price_usd, "used", e.used_price_seen)
    pair = machine_from_entry(e, 2, used=True)
    assert pair.price_usd == 2 * (e.used_price_usd or 0) and pair.price_kind == "used"  # sets follow the card
    plain = CAT.hardware["rtx-5090"]
    assert not has_used_price(plain) and machine_from_entry(plain, used=True).price_kind == "new"
    ranked = {m.label: m for m in catalog_machines(CAT.hardware.values(), used=True)}
    assert ranked[e.name].price_usd == e.used_price_usd


def test_table_and_tooltips_show_the_month() -> None:
    e = CAT.hardware["rtx-3090"]
    c = compare([machine_from_entry(e, used=True), machine_from_entry(CAT.hardware["rtx-5090"])], Scenario(), [], [])
    cells = [table_cells(r, c.threshold_tok_s)["price_usd"] for r in c.rows]
    assert cells[0].endswith(f"used, {e.used_price_seen}")
    assert cells[1].endswith(f"new, {CAT.hardware['rtx-5090'].price_seen}")
    assert csv_rows(c)[0]["price_kind"] == "used" and csv_rows(c)[0]["price_seen"] == e.used_price_seen
    assert str(e.used_price_seen) in price_tip(c.rows[0].price_usd, False, "used", c.rows[0].price_seen)
    assert price_tip(1234, True, None, None).endswith("your price")  # a typed price has no month
    tip = catalog_prices(
        e.price_usd, e.price_estimate, e.price_kind, e.price_seen, e.used_price_usd, e.used_price_seen, e.products
    )
    assert str(e.price_seen) in tip and str(e.used_price_seen) in tip


@pytest.mark.parametrize(
    "query,word",
    [
        ("mac studio", "Mac Studio"),
        ("macbook", "MacBook"),
        ("mac mini", "Mac mini"),
        ("framework", "Framework Desktop"),
        ("macbook pro 16", "MacBook Pro 16"),
    ],
)
def test_products_are_found_by_their_words(query: str, word: str) -> None:
    hits = search(CAT.hardware.values(), query)
    sold = [h for h in CAT.hardware.values() if any(word.lower() in p.lower() for p in h.products)]
    assert sold and hits[: len(sold)] == sorted(sold, key=hits.index), [h.id for h in hits]  # the products first


def test_products_do_not_rename_entries() -> None:
    for h in CAT.hardware.values():
        for p in h.products:
            assert p.strip() == p and "(" not in p, (h.id, p)
    assert CAT.hardware["m4-pro-20c-64gb"].name == "Apple M4 Pro (20-core GPU), 64 GB"  # names key fitted factors
