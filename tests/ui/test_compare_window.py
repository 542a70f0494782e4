"""Compare mode through the real window, offscreen: machines added the way a person does, the table
and every overlaid curve checked against the core, exports, and save/open."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QMessageBox

from advisor.catalog.convert import standings
from advisor.core.comparison import compare_row, pool
from advisor.core.curves import curve
from advisor.core.evaluate import evaluate
from advisor.core.machines import scenario_on
from advisor.present.compare_text import TABLE_COLUMNS, table_cells
from advisor.ui import theme
from advisor.ui.compare import open_compare_window
from advisor.ui.compare.state import CURVE_POINTS
from advisor.ui.compare.window import CompareWindow
from advisor.ui.main_window import MainWindow
from advisor.ui.panels.catalog_list import ID_ROLE


@pytest.fixture
def cw(qtbot, window: MainWindow) -> CompareWindow:  # type: ignore[no-untyped-def]
    w = open_compare_window(window)
    w.resize(1500, 950)
    qtbot.waitExposed(w)
    return w


def add(qtbot, cw: CompareWindow, query: str, count: int = 1, hid: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """Type in the search box, click the row (the first match, or `hid`), set the count, press Add."""
    panel = cw.machines
    panel.list.search.clear()
    qtbot.keyClicks(panel.list.search, query)
    tree = panel.list.tree
    want = hid or panel.list.visible_ids()[0]
    item = next(
        tree.topLevelItem(i).child(j)
        for i in range(tree.topLevelItemCount())
        for j in range(tree.topLevelItem(i).childCount())
        if tree.topLevelItem(i).child(j).data(0, ID_ROLE) == want
    )
    tree.scrollToItem(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(item).center())
    assert panel.selected_id == want
    panel.count.setValue(count)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)


def assert_matches_core(cw: CompareWindow) -> None:
    store = cw.store
    base = store.setup.scenario
    qs = pool(store.quants, base.workload)
    for r, m in enumerate(store.setup.machines):
        expected = compare_row(m, base, store.models, qs, store.catalog.published, standings(store.catalog.models))
        cells = table_cells(expected, base.workload.interactive_tok_s)
        col = {key: i for i, (key, _) in enumerate(TABLE_COLUMNS)}
        assert cw.table.item(r, col["machine"]).text() == m.label
        for key in ("published", "split", "decode_tok_s", "ttft_s", "largest", "max_streams"):
            assert cw.table.item(r, col[key]).text() == cells[key]
        res = evaluate(scenario_on(base, m.hardware))
        if res.runs:
            assert expected.decode_tok_s == pytest.approx(res.decode_tok_s)
        for axis, plot in cw.plots.items():
            c = curve(scenario_on(base, m.hardware), axis, n=CURVE_POINTS)
            x, y = plot.series_data(m.label)
            assert np.allclose(x, c.x)
            assert np.allclose(y, np.where(c.runs & (c.decode > 0), c.decode, np.nan), equal_nan=True)
            pen = plot.slots[list(plot.shown).index(m.label)].line.opts["pen"]
            assert QColor(pen.color()).name().lower() == store.snapshot.colors[m.label].lower()


def test_opens_from_the_main_window_with_its_machine(qtbot, window: MainWindow, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    s = window.store.session
    setup = cw.store.setup
    assert setup.model == s.scenario.model and setup.workload == s.scenario.workload
    assert [m.label for m in setup.machines] == ["NVIDIA GeForce RTX 4090 (mine)"]
    assert setup.machines[0].price_usd == pytest.approx(1599)
    assert open_compare_window(window) is cw  # a second Ctrl+M raises the same window
    assert_matches_core(cw)


def test_add_machines_and_sets_table_and_curves_match_core(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    cw.set_model("llama-3.3-70b")
    add(qtbot, cw, "3090", 2, hid="rtx-3090")
    add(qtbot, cw, "m4 max 128")
    add(qtbot, cw, "strix 128")
    labels = [m.label for m in cw.store.setup.machines]
    assert labels[1] == "2× NVIDIA GeForce RTX 3090" and len(labels) == 4
    two = cw.store.setup.machines[1]
    assert two.price_usd == pytest.approx(2998) and two.hardware.devices == 2
    assert_matches_core(cw)
    colors = [cw.store.snapshot.colors[lb] for lb in labels]
    assert colors == list(theme.SERIES[:4])
    # The verdict line: the 2× set holds 70B, the 24 GB card cannot.
    assert cw.verdict.plain_text().startswith("2× RTX 3090 (layer split) runs Llama 3.3 70B")
    assert "RTX 4090 (mine) (24 GB) cannot hold it" in cw.verdict.plain_text()
    # Each machine's cliff is drawn in its own colour where the core puts it.
    for lb in labels:
        c = cw.store.snapshot.curves[lb]["context"]
        strip = cw.plots["context"].strip_of(lb)
        if c.cliff_x is None:
            assert strip is None
        else:
            assert strip is not None and strip[0].lower() == cw.store.snapshot.colors[lb].lower()
            assert strip[1] == pytest.approx(c.cliff_x, rel=1e-6)
    assert "2×&nbsp;NVIDIA" in cw.legend.text()


def test_six_is_the_most_and_remove_keeps_colours(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    for q in ("3090", "5090", "7900 xtx", "m4 max 128", "strix 128"):
        add(qtbot, cw, q)
    assert len(cw.store.setup.machines) == 6 and not cw.machines.add_button.isEnabled()
    assert not cw.store.add_machine(cw.store.setup.machines[1])
    assert "at most 6" in cw.statusBar().currentMessage()
    before = dict(cw.store.snapshot.colors)
    gone = cw.store.setup.machines[2].label
    table = cw.machines.table
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualItemRect(table.item(2, 2)).center())
    assert gone not in [m.label for m in cw.store.setup.machines]
    assert all(cw.store.snapshot.colors[lb] == before[lb] for lb in cw.store.snapshot.colors)
    assert_matches_core(cw)


def test_mac_count_is_one(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    panel = cw.machines
    qtbot.keyClicks(panel.list.search, "m4 max 128")
    panel.list.picked.emit(panel.list.visible_ids()[0])
    assert not panel.count.isEnabled() and panel.count.value() == 1


def test_preset_carries_through_every_tab(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    add(qtbot, cw, "3090", 2, hid="rtx-3090")
    cw.preset.setCurrentIndex(cw.preset.findData("Coding assistant"))
    cw.preset.activated.emit(cw.preset.currentIndex())
    w = cw.store.setup.workload
    assert (w.context, w.prompt_tokens, w.interactive_tok_s) == (32768, 8000, 20.0)
    assert cw.spins["context"].value() == 32768
    assert_matches_core(cw)
    cw.tabs.setCurrentWidget(cw.budget)
    assert cw.budget.for_model is not None and cw.budget.for_model.threshold_tok_s == 20.0
    assert "32,768 tokens of context" in cw.budget.summary.text()
    cw.tabs.setCurrentWidget(cw.take)
    assert cw.take.plan is not None and cw.take.plan.context == 32768


def test_edit_price_changes_value_columns(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    add(qtbot, cw, "3090", hid="rtx-3090")
    label = cw.store.setup.machines[1].label
    cw.machines.table.item(1, 1).setText("$700")
    m = cw.store.machine(label)
    assert m.price_usd == pytest.approx(700)
    row = cw.store.snapshot.comparison.rows[1]
    assert row.tok_s_per_k_usd == pytest.approx(row.decode_tok_s / 0.7)
    cw.machines.table.item(1, 1).setText("cheap")
    assert cw.store.machine(label).price_usd == pytest.approx(700)
    assert "not a number" in cw.statusBar().currentMessage()


def test_budget_tab_answers_for_the_model_first(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    cw.set_model("qwen3-30b-a3b")
    cw.tabs.setCurrentWidget(cw.budget)
    cw.budget.max_price.setValue(2500)
    b = cw.budget.for_model
    assert b is not None and b.max_price_usd == 2500 and b.meeting
    rows = (*b.meeting, *b.short)
    assert cw.budget.table.rowCount() == len(rows)
    headers = [cw.budget.table.horizontalHeaderItem(i).text() for i in range(cw.budget.table.columnCount())]
    first = b.meeting[0]
    assert cw.budget.table.item(0, headers.index("Machine")).text() == first.machine.label
    assert cw.budget.table.item(0, headers.index("Fits fast memory")).text() == "yes"
    spill = next((i for i, x in enumerate(rows) if x.fits is False), None)
    if spill is not None:
        assert cw.budget.table.item(spill, headers.index("Fits fast memory")).text().startswith("no: ")


def test_budget_tab_ranks_and_adds(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    cw.tabs.setCurrentWidget(cw.budget)
    cw.budget.max_price.setValue(2000)
    cw.budget.by.setCurrentIndex(cw.budget.by.findData("largest"))
    cw.budget.by.activated.emit(cw.budget.by.currentIndex())
    r = cw.budget.ranking
    assert r is not None and r.max_price_usd == 2000 and r.ranked
    assert all((x.machine.price_usd or 0) <= 2000 for x in r.ranked)
    assert cw.budget.table.rowCount() == len(r.ranked)
    assert cw.budget.table.item(0, 1).text() == r.ranked[0].machine.label
    cw.budget.table.selectRow(0)
    assert cw.budget.add_selected()
    assert cw.store.setup.machines[-1].label == r.ranked[0].machine.label


def test_what_would_it_take_tab(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    cw.set_model("llama-3.3-70b")
    cw.tabs.setCurrentWidget(cw.take)
    cw.take.target.setValue(15)
    p = cw.take.plan
    assert p is not None and p.target_tok_s == 15 and p.cheapest
    assert all(o.meets and (o.decode_tok_s or 0) >= 15 for o in p.cheapest)
    assert p.current is not None and p.upgrades[0].kind == "more_cards"
    assert all(o.fits for o in p.cheapest)  # spilling is not allowed by default
    assert "Smallest upgrade" in cw.take.current.text()
    cw.take.cheapest.selectRow(0)
    assert cw.take.add_selected()
    assert cw.store.setup.machines[-1].label == p.cheapest[0].machine.label
    cw.take.max_price.setValue(3000)
    cw.take.sets.setChecked(False)
    p = cw.take.plan
    assert p is not None and p.max_price_usd == 3000 and cw.store.setup.include_sets  # the tab's own option
    assert all((o.machine.price_usd or 0) <= 3000 and o.machine.devices == 1 for o in (*p.cheapest, *p.closest))


def test_export_slide_png_and_csv(qtbot, cw: CompareWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cw.set_model("llama-3.3-70b")
    add(qtbot, cw, "3090", 2, hid="rtx-3090")
    add(qtbot, cw, "m4 max 128")
    png = tmp_path / "cmp.png"
    assert cw.export_png(png)
    img = QImage(str(png))
    assert (img.width(), img.height()) == (1920, 1080)
    small = img.scaled(192, 108)
    colours = {small.pixelColor(x, y).name() for x in range(192) for y in range(108)}
    assert len(colours) > 50  # plots, text and table, not a blank page
    # Each machine's colour appears on the slide (its curves, strips and swatches).
    full = {img.pixelColor(x, y).name() for x in range(0, 1920, 2) for y in range(150, 1080, 2)}
    for m in cw.store.setup.machines:
        assert cw.store.snapshot.colors[m.label].lower() in full
    path = tmp_path / "cmp.csv"
    assert cw.export_csv(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert [r["machine"] for r in rows] == [m.label for m in cw.store.setup.machines]
    for r, row in zip(rows, cw.store.snapshot.comparison.rows, strict=True):
        assert float(r["decode_tok_s"]) == pytest.approx(row.decode_tok_s, rel=1e-5)
        assert r["model"] == "Llama 3.3 70B"


def test_save_open_round_trip_and_broken_file(qtbot, cw: CompareWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cw.set_model("qwen3-32b")
    add(qtbot, cw, "5090")
    add(qtbot, cw, "3090", 2, hid="rtx-3090")
    cw.store.update(budget_usd=2222.0, target_tok_s=33.0)
    saved = cw.store.setup
    path = tmp_path / "buy.json"
    assert cw.save_to(path)
    assert json.loads(path.read_text())["kind"] == "comparison"
    cw.store.remove_machine(saved.machines[1].label)
    cw.set_model("llama-3.1-8b")
    assert cw.open_file(path)
    assert cw.store.setup == saved
    assert cw.model.currentData() == "qwen3-32b"
    assert_matches_core(cw)

    broken = tmp_path / "broken.json"
    broken.write_text('{"kind": "comparison", "machines": [{"label": "x"}]}')
    before = cw.store.setup
    assert not cw.open_file(broken)
    assert cw.store.setup == before
    box = cw.findChild(QMessageBox, "error-box")
    assert box is not None and "machines.0.hardware" in box.text() and "broken.json" in box.text()
    box.close()
    (tmp_path / "junk.json").write_text("{not json")
    assert not cw.open_file(tmp_path / "junk.json")
    assert cw.store.setup == before


def test_long_column_titles_break_in_two(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    from advisor.ui.compare.slide import two_lines

    assert two_lines("Largest interactive model") == "Largest\ninteractive model"
    assert two_lines("Measured ÷ model") == "Measured\n÷ model"
    assert two_lines("Machine") == "Machine" and two_lines("TTFT (s)") == "TTFT (s)"
    titles = [cw.table.horizontalHeaderItem(c).text() for c in range(cw.table.columnCount())]
    assert titles[-2:] == ["Measured\n÷ model", "Verdict"]


def test_costs_bar_drives_cost_and_break_even_columns(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    add(qtbot, cw, "rtx 3090", hid="rtx-3090")
    keys = [k for k, _ in TABLE_COLUMNS]
    col_cost, col_even, col_streams = keys.index("cost"), keys.index("break_even"), keys.index("max_streams")
    last = len(cw.store.setup.machines) - 1
    assert cw.table.item(last, col_even).text() == "—"  # no API price yet
    before = cw.store.snapshot.comparison.rows[last].usd_per_million_tokens
    cw.costs.api.setValue(0.6)
    cw.costs.electricity.setValue(0.34)
    k = cw.store.setup.costs
    assert k.api_usd_per_million == pytest.approx(0.6) and k.electricity_usd_per_kwh == pytest.approx(0.34)
    row = cw.store.snapshot.comparison.rows[last]
    assert row.usd_per_million_tokens == pytest.approx(2 * before, rel=0.01)  # from 0.17 (the default) to 0.34
    assert cw.table.item(last, col_even).text() == table_cells(row, 10)["break_even"] != "—"
    assert cw.table.item(last, col_cost).text().startswith("$")
    assert "J per token" in cw.table.item(last, col_cost).toolTip()
    assert "tokens of context" in cw.table.item(last, col_streams).toolTip()
    assert row.max_streams is not None and cw.table.item(last, col_streams).text().startswith(f"{row.max_streams:,}")


def test_used_price_offered_where_the_catalog_has_one(qtbot, cw: CompareWindow) -> None:  # type: ignore[no-untyped-def]
    panel = cw.machines
    panel._picked("rtx-5090")
    assert not panel.used.isEnabled()  # no used price in the catalog
    panel._picked("rtx-3090")
    assert panel.used.isEnabled()
    panel.used.setCurrentIndex(panel.used.findData(True))
    assert panel.add_entry("rtx-3090")
    m = cw.store.setup.machines[-1]
    entry = cw.store.catalog.hardware["rtx-3090"]
    assert (m.price_usd, m.price_kind, m.price_seen) == (entry.used_price_usd, "used", entry.used_price_seen)
    col = [k for k, _ in TABLE_COLUMNS].index("price_usd")
    row = len(cw.store.setup.machines) - 1
    assert cw.table.item(row, col).text().endswith(f"used, {entry.used_price_seen}")
    from advisor.ui.compare.machines import compare_tooltip

    mac = cw.store.catalog.hardware["m2-ultra-60c-64gb"]
    tip = compare_tooltip(mac)
    assert "Sold as: Mac Studio" in tip and str(mac.price_seen) in tip and str(mac.used_price_seen) in tip
