"""The budget tab through the real window, offscreen: used prices on request (saved with the
comparison), every price with its kind and month, fits, spill and streams in each row, and a table
that reads on a 1366×768 screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTableWidgetItem

from advisor.ui.compare import open_compare_window
from advisor.ui.compare.window import CompareWindow
from advisor.ui.main_window import MainWindow

PRICE = re.compile(r"^~?\$[\d,]+ (new|used), \d{4}-\d{2}$")


@pytest.fixture
def cw(qtbot, window: MainWindow) -> Iterator[CompareWindow]:  # type: ignore[no-untyped-def]
    w = open_compare_window(window)
    w.resize(1366, 768)
    qtbot.waitExposed(w)
    w.set_model("qwen3-30b-a3b")
    w.store.update_workload(context=32768)
    w.tabs.setCurrentWidget(w.budget)
    w.budget.max_price.setValue(2500)
    yield w
    w.close()


def _item(cw: CompareWindow, row: int, col: int) -> QTableWidgetItem:
    item = cw.budget.table.item(row, col) if row >= 0 else cw.budget.table.horizontalHeaderItem(col)
    assert item is not None
    return item


def _headers(cw: CompareWindow) -> list[str]:
    return [_item(cw, -1, c).text() for c in range(cw.budget.table.columnCount())]


def _rows(cw: CompareWindow) -> list[dict[str, str]]:
    heads = _headers(cw)
    return [{h: _item(cw, r, c).text() for c, h in enumerate(heads)} for r in range(cw.budget.table.rowCount())]


def test_used_prices_toggle_prices_and_persists(qtbot, cw: CompareWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    new = {x.machine.label: x for x in (*cw.budget.for_model.meeting, *cw.budget.for_model.short)}  # type: ignore[union-attr]
    assert all(x.price_kind == "new" for x in new.values())
    cw.budget.used.click()
    assert cw.store.setup.budget_used
    b = cw.budget.for_model
    assert b is not None
    used = [x for x in (*b.meeting, *b.short) if x.price_kind == "used"]
    assert used, "machines with a used market are priced used"
    for x in used:
        assert x.price_seen and x.machine.catalog_id
        entry = cw.store.catalog.hardware[x.machine.catalog_id]
        assert x.machine.price_usd is not None and entry.used_price_usd is not None
        before = new.get(x.machine.label)
        if before is not None:  # the same machine, cheaper used than new
            assert x.price_usd < before.price_usd
    # the cheapest 3090 holds the 30B at speed once priced used ($800 card + the PC): it is listed
    assert any(x.machine.catalog_id == "rtx-3090" and x.machine.devices == 1 and x.meets for x in used)
    rows = _rows(cw)
    assert all(PRICE.match(r["Price"]) for r in rows), [r["Price"] for r in rows if not PRICE.match(r["Price"])]
    i = next(k for k, x in enumerate((*b.meeting, *b.short)) if x.price_kind == "used")
    tip = _item(cw, i, _headers(cw).index("Price")).toolTip()
    assert "used" in tip and str((b.meeting + b.short)[i].price_seen) in tip
    # saved and opened with the comparison
    path = tmp_path / "c.json"
    assert cw.save_to(path)
    cw.budget.used.click()
    assert not cw.store.setup.budget_used
    assert cw.open_file(path) and cw.store.setup.budget_used and cw.budget.used.isChecked()


def test_rows_show_fits_spill_and_streams_on_a_laptop_screen(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    b = cw.budget.for_model
    assert b is not None and b.meeting
    rows = _rows(cw)
    for x, r in zip((*b.meeting, *b.short), rows, strict=True):
        assert r["Fits fast memory"] == ("yes" if x.fits else f"no: {x.offloaded_fraction:.0%} in RAM")
        if x.max_streams:
            assert r["Streams at speed"].startswith(f"{x.max_streams:,} · ")
    assert all(x.max_streams and x.max_streams >= 1 for x in b.meeting)
    assert any(r["Fits fast memory"].startswith("no: ") for r in rows), "spilling machines follow, saying so"
    head = cw.budget.table.horizontalHeader()
    assert head.sectionSize(_headers(cw).index("Why")) >= 150, "the reason keeps a readable width at 1366 pixels"
    assert cw.budget.table.rowHeight(0) < 2.5 * cw.budget.table.fontMetrics().height()  # one text line a row
