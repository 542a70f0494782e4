"""Published measurements on the window's plots, in their legends, in the worked arithmetic and on slides."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, Qt

from advisor.ui import export
from advisor.ui.main_window import MainWindow


def legend_names(window: MainWindow, axis: str) -> list[str]:
    return [label.text for _sample, label in window.plots[axis].legend.items]


def test_squares_show_the_runs_of_this_machine_model_and_quant(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    s = window.store.session
    assert (s.hardware_id, s.model_id, s.quant_id) == ("rtx-4090", "llama-3.1-8b", "q4_k_m")
    ctx = window.plots["context"]
    x, y = ctx.published.getData()
    left = float(window.store.snapshot.curves["context"].x[0])
    assert np.allclose(x, [max(256, left), 512, 2048, 4096]) and np.allclose(y, [130.58, 127.74, 119.44, 110.66])
    assert ctx.published.isVisible() and "published runs" in legend_names(window, "context")
    px, py = window.plots["params"].published.getData()
    assert np.allclose(px, [1.1, 8.03]) and np.allclose(py, [762.37, 110.66])
    # A machine nobody published runs for: the squares and their legend entry go.
    window.store.set_ids("Pick", hardware_id="rtx-5080")
    assert not ctx.published.isVisible() and "published runs" not in legend_names(window, "context")
    window.store.undo()
    assert ctx.published.isVisible() and "published runs" in legend_names(window, "context")


def test_worked_arithmetic_lists_each_run_beside_the_model_for_it(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from advisor.core.published import all_records

    text = window.numbers_panel.steps.toPlainText()
    # the machine's record first: every published decode run on one RTX 4090 (TinyLlama, Llama 3 8B at
    # Q4_K_M and F16, CodeLlama 7B, gpt-oss-20b, Qwen3.5 9B and 27B) ...
    published = window.store.catalog.published
    record = next(e.record for e in all_records(published) if (e.hardware_id, e.devices) == ("rtx-4090", 1))
    assert record.runs > 1 and f"Published: {record.text()}" in text
    assert "Runs of this model and quant here" in text  # ... then the runs of exactly this setup
    assert "Prefill runs of this model and quant here, the prompt size nearest yours first:" in text
    assert "Meta Llama 3 8B pp512: measured 7,138.99 tok/s (CUDA, build 2024-05, flash attention off)" in text
    tg512 = next(
        r
        for r in published
        if r.hardware_id == "rtx-4090"
        and r.model == "Meta Llama 3 8B"
        and r.quant_id == "q4_k_m"
        and r.test_name() == "tg512"
    )
    assert tg512.versus_model().startswith(
        "Meta Llama 3 8B tg512: measured 130.58 tok/s (CUDA, build 2024-05, "
        "flash attention off); the model for that run "
    )
    assert tg512.versus_model() in text
    assert "github.com/XiongjieDai/GPU-Benchmarks-on-LLM-In…" in text
    html = window.numbers_panel.steps.toHtml()
    assert "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference/blob/" in html  # the full link
    window.store.set_ids("Pick", quant_id="q8_0")  # nothing published at Q8_0 on this card: the record alone
    qtbot.waitUntil(lambda: "Runs of this model" not in window.numbers_panel.steps.toPlainText(), timeout=2000)
    assert f"Published: {record.text()}" in window.numbers_panel.steps.toPlainText()
    window.store.set_ids("Pick", hardware_id="rtx-5080")  # nobody published runs on this card
    qtbot.waitUntil(lambda: "Published" not in window.numbers_panel.steps.toPlainText(), timeout=2000)


def test_slide_export_keeps_the_squares(tmp_path: Path, window: MainWindow) -> None:
    view = export.slide_plot("context", window.store.snapshot)
    plot = view.plot
    x, _y = plot.published.getData()
    assert len(x) == 4
    assert "published runs" in [label.text for _s, label in plot.legend.items]


def test_hovering_a_square_names_the_run(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    plot = window.plots["context"]
    (lx, ly) = plot.published.view_xy()[2]  # the tg4096 run, drawn at 2,048 tokens of context
    spot = plot.vb.mapViewToScene(QPointF(lx, ly))
    plot.scene().sigMouseMoved.emit(spot + QPointF(3, -2))
    qtbot.waitUntil(plot.readout.isVisible, timeout=2000)
    text = plot.readout.textItem.toPlainText()
    assert text.startswith(
        "published: Meta Llama 3 8B Q4_K_M tg4096: 119.44 tok/s (CUDA, build 2024-05, flash attention off)"
    )
    assert "tok/s realistic" in text  # the curve's readout follows
    plot.scene().sigMouseMoved.emit(spot + QPointF(0, 60))  # away from every square: the curve alone
    qtbot.waitUntil(lambda: not plot.readout.textItem.toPlainText().startswith("published"), timeout=2000)


def test_view_menu_hides_the_squares_on_screen_and_on_exports(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    act = window.published_action
    assert act.isCheckable() and act.isChecked() and act.shortcut().toString() == "Ctrl+Shift+P"
    act.trigger()
    assert not window.settings.show_published
    ctx = window.plots["context"]
    assert not ctx.published.isVisible() and "published runs" not in legend_names(window, "context")
    view = export.slide_plot("context", window.shown(window.store.snapshot))
    assert len(view.plot.published.getData()[0]) == 0
    window.store.update("workload", context=8192)  # stays off through edits
    assert not ctx.published.isVisible()
    act.trigger()
    assert window.settings.show_published and len(ctx.published.getData()[0]) == 4
    act.trigger()
    window.close()
    assert window.closed_settings.show_published is False  # kept for the next start


def test_help_menu_shows_every_machines_record(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from advisor.catalog.convert import to_hardware
    from advisor.core.calibration import CALIBRATION
    from advisor.core.published import all_records
    from advisor.ui.accuracy_dialog import AccuracyDialog, held_out_html, terms_html

    act = next(a for a in window.menuBar().actions() if a.text() == "&Help").menu().actions()[0]
    assert act.text() == "How &accurate is it?…"
    act.trigger()
    dialog = window.findChild(AccuracyDialog)
    assert dialog is not None and dialog.isVisible()
    entries = all_records(window.store.catalog.published)
    table = dialog.table
    assert table.rowCount() == len(entries)
    most = entries[0]  # the machine with the most runs first
    assert table.item(0, 0).text() == window.store.catalog.hardware[most.hardware_id].name
    assert table.item(0, 2).text() == str(most.record.runs)
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount()) if table.item(r, 1).text() == "llama.cpp"}
    m1 = rows["Apple M1 Max (32-core GPU), 64 GB"]
    m1_record = next(e.record for e in entries if e.hardware_id == "m1-max-32c-64gb")
    assert table.item(m1, 4).text() == f"{m1_record.median:.2f}" and table.item(m1, 2).text() == str(m1_record.runs)
    # its architecture's factor on η and its own, fitted from the training runs, beside the record
    m1_max = to_hardware(window.store.catalog.hardware["m1-max-32c-64gb"])
    gen, own = CALIBRATION.generation(m1_max).decode, CALIBRATION.machine(m1_max)
    assert table.item(m1, 7).text() == f"{gen:.3f}" and table.item(m1, 7).toolTip() == "Apple M1"
    # its own factor where one was fitted (its runs from two sources or more), else none
    assert table.item(m1, 8).text() == (f"{own.decode:.3f}" if own.rows else "—")
    # short headers, each explained in its tooltip
    assert [table.horizontalHeaderItem(c).text() for c in (7, 8)] == ["Architecture", "Own"]
    assert table.horizontalHeaderItem(7).toolTip().startswith("The factor on η fitted for this machine's GPU")
    table.sortItems(4, Qt.SortOrder.AscendingOrder)  # by measured ÷ model, numerically
    medians = [float(table.item(r, 4).text()) for r in range(table.rowCount())]
    assert medians == sorted(medians)
    d = CALIBRATION.terms[next(k for k, t in CALIBRATION.terms.items() if t.fitted)].decode
    assert f"<td>{d.eta:.3g}</td>" in terms_html()
    # the held-out figures beside the targets
    held = held_out_html(window.store.catalog.held_out)
    depth0 = next(f for f in window.store.catalog.held_out if f.group == "depth 0")
    assert f"<td>decode, depth 0</td><td align='right'>{depth0.n}</td>" in held
    verdict = {True: "met", False: "<b>not met</b>"}[bool(depth0.met())]
    assert f"{depth0.p90_pct:.1f} %</td><td>≤ 8 / ≤ 20</td><td>{verdict}</td>" in held
    figures = window.store.catalog.held_out
    assert held.count("<td>met</td>") == sum(f.met() is True for f in figures)
    assert held.count("not met") == sum(f.met() is False for f in figures)
    # and how often the band held on those rows (from validate's band coverage)
    all_decode = next(f for f in window.store.catalog.held_out if (f.test, f.group) == ("decode", "all"))
    assert all_decode.inside_band_pct is not None and 50 < all_decode.inside_band_pct < 100
    assert f"held {all_decode.inside_band_pct:.1f} % of these {all_decode.n} decode rows (it claims 80 %" in held
    dialog.close()


def test_the_sets_follow_context_and_layers_and_keep_identity_otherwise(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    store = window.store
    store.update("workload", context=512)
    at_512 = store.snapshot.published
    assert at_512["params"].y == (762.37, 127.74)  # Llama 3 8B: its tg1024 run (mean context 512) is nearest
    store.update("workload", output_tokens=300)  # nothing the squares depend on: the very same sets
    assert all(store.snapshot.published[a] is at_512[a] for a in at_512)
    store.update("workload", context=8192)
    assert store.snapshot.published["params"].y == (762.37, 110.66)  # now the tg8192 run (mean 4,096)
    store.update("workload", gpu_layers=20)  # layers in host RAM: no published run is this setup
    assert store.snapshot.published["context"].x == () and not window.plots["context"].published.isVisible()
