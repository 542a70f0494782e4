"""The real window, offscreen: each panel edits, the plots show what the core computes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from advisor.catalog.convert import to_hardware
from advisor.core.curves import curve
from advisor.core.fmt import num
from advisor.core.terms import Backend
from advisor.ui.main_window import MainWindow
from advisor.ui.store import UI_CURVE_POINTS


def plotted(window: MainWindow, axis: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = window.plots[axis].line.data_xy
    return np.asarray(x), np.asarray(y)


def assert_plots_match_core(window: MainWindow) -> None:
    s = window.store.session.scenario
    for axis in ("context", "params", "batch"):
        expected = curve(s, axis, n=UI_CURVE_POINTS)
        x, y = plotted(window, axis)
        assert np.allclose(x, expected.x)
        shown = np.where(expected.runs & (expected.decode > 0), expected.decode, np.nan)
        assert np.allclose(y, shown, equal_nan=True)


def test_hardware_search_and_pick(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.hardware_panel
    qtbot.keyClicks(panel.list.search, "3090 ti")
    qtbot.keyClick(panel.list.search, Qt.Key.Key_Return)
    assert window.store.session.hardware_id == "rtx-3090-ti"
    assert window.store.session.scenario.hardware.bandwidth_gbps == pytest.approx(1008)
    assert_plots_match_core(window)


def test_override_marks_custom_and_reset_restores(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.hardware_panel
    panel.spins["bandwidth_gbps"].setValue(500)
    assert window.store.session.scenario.hardware.bandwidth_gbps == 500
    assert "custom" in panel.custom.text() and panel.reset.isEnabled()
    assert_plots_match_core(window)
    qtbot.mouseClick(panel.reset, Qt.MouseButton.LeftButton)
    assert window.store.session.scenario.hardware.bandwidth_gbps == pytest.approx(1008)
    assert "custom" not in panel.custom.text()


def test_model_and_quant_pick(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClicks(window.model_panel.list.search, "qwen3 32b")
    qtbot.keyClick(window.model_panel.list.search, Qt.Key.Key_Return)
    assert window.store.session.model_id == "qwen3-32b"
    table = window.quant_panel.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "Q8_0")
    table.selectRow(row)
    assert window.store.session.quant_id == "q8_0"
    assert_plots_match_core(window)
    assert "Qwen3 32B" in window.model_panel.details.text()


def test_workload_slider_moves_context_and_marker(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.workload_panel
    panel.slider.setValue(panel.slider.maximum())
    ctx = window.store.session.scenario.workload.context
    assert ctx == window.store.session.scenario.model.max_context
    mx, _ = window.plots["context"].marker.at
    assert 10**mx == pytest.approx(ctx)
    assert_plots_match_core(window)


def test_cliff_moves_when_memory_changes(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.store.update("model", total_params_b=70.6, layers=80, heads=64, kv_heads=8, head_dim=128)
    window.store.update("hardware", memory_gb=48)
    plot = window.plots["context"]
    start_48 = plot.cliff_start()
    assert start_48 is not None
    window.hardware_panel.spins["memory_gb"].setValue(64)
    start_64 = plot.cliff_start()
    assert start_64 is not None and start_64 > start_48
    assert 10**start_64 == pytest.approx(window.store.snapshot.curves["context"].cliff_x)


def test_apply_recommendation_updates_every_panel(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    rec = window.store.flush().recommendation
    assert rec.pick is not None
    qtbot.mouseClick(window.recommend_panel.rows[0][1], Qt.MouseButton.LeftButton)
    s = window.store.session
    assert (s.model_id, s.quant_id) == (rec.pick.model_key, rec.pick.quant_key)
    assert rec.pick.model_name in window.model_panel.details.text()
    assert window.quant_panel.bits.value() == pytest.approx(rec.pick.bits_per_weight, abs=0.01)
    selected = window.quant_panel.table.selectedItems()
    assert selected and selected[0].text() == rec.pick.quant_name
    assert_plots_match_core(window)


def test_numbers_panel_shows_the_result_and_copies_it(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    grid = window.numbers_panel.grid
    window.workload_panel.slider.setValue(window.workload_panel.slider.maximum() // 2)
    r = window.store.snapshot.result
    assert r.decode_tok_s is not None
    assert grid.value("decode").startswith(f"{num(r.decode_tok_s)} tok/s ({num(r.decode_low_tok_s)}–")
    assert grid.value("ceiling") == f"{num(r.decode_ceiling_tok_s)} tok/s"
    assert grid.value("memory") == f"{num(r.total_gb)} GB of {num(r.fast_capacity_gb)} GB"
    assert grid.rows[-1].color is None
    window.numbers_panel.grid.copy()
    assert QGuiApplication.clipboard().text().splitlines()[0] == f"Decode: {grid.value('decode')}"
    # Over capacity: the memory row says where the rest goes, in the cliff colour.
    window.store.update("hardware", memory_gb=4)
    r = window.store.snapshot.result
    assert r.placement is not None
    host = r.placement.weights_host_gb + r.placement.kv_host_gb
    assert grid.value("memory").endswith(f"— {num(host)} GB in host RAM")
    assert grid.rows[-1].color is not None and grid.rows[-1].color.name().upper() == "#D55E00"


def test_tools_menu_opens_compare_with_current_machine(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMenu

    action = next(
        a for m in window.menuBar().findChildren(QMenu) for a in m.actions() if a.text() == "&Compare machines…"
    )
    assert action.shortcut().toString() == "Ctrl+M"
    action.trigger()
    from advisor.ui.compare import open_compare_window

    compare = open_compare_window(window)  # a second call brings back the same window
    qtbot.addWidget(compare)
    assert compare.isVisible()


def test_uncurated_gpu_found_and_picked(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.hardware_panel
    qtbot.keyClicks(panel.list.search, "gtx 1080 ti")
    qtbot.keyClick(panel.list.search, Qt.Key.Key_Return)
    s = window.store.session
    assert s.hardware_id == "db-geforce-gtx-1080-ti"
    assert s.scenario.hardware.memory_gb == pytest.approx(11)
    assert s.scenario.hardware.bandwidth_gbps == pytest.approx(484.4)
    assert_plots_match_core(window)
    panel.list.search.clear()
    qtbot.keyClicks(panel.list.search, "4090")
    first = panel.list.tree.topLevelItem(0)
    assert first.child(0).data(0, Qt.ItemDataRole.UserRole) == "rtx-4090"  # curated wins


def test_tools_menu_has_measure(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMenu

    action = next(
        a for m in window.menuBar().findChildren(QMenu) for a in m.actions() if a.text() == "&Measure your own…"
    )
    action.trigger()
    from advisor.ui.measure_dialog import MeasureDialog

    dialogs = window.findChildren(MeasureDialog)
    assert len(dialogs) == 1 and dialogs[0].isVisible()


def test_backend_choice_changes_the_estimate(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.workload_panel
    assert panel.backend.itemText(0) == "auto (CUDA)"  # an NVIDIA card
    before = window.store.snapshot.result.decode_tok_s
    panel.backend.setCurrentIndex(panel.backend.findData("vulkan"))
    s = window.store.session.scenario
    assert s.workload.backend is not None and s.workload.backend.value == "vulkan"
    from advisor.core.evaluate import evaluate

    assert window.store.snapshot.result.decode_tok_s == pytest.approx(evaluate(s).decode_tok_s)
    assert window.store.snapshot.result.decode_tok_s != pytest.approx(before)
    window.store.undo()
    assert window.store.session.scenario.workload.backend is None
    assert panel.backend.currentIndex() == 0


def test_flash_attention_toggle_slows_long_context_decode(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.workload_panel
    window.store.update("workload", context=32768)
    on = window.store.snapshot.result.decode_tok_s
    assert panel.flash.isChecked() and panel.flash.isEnabled()
    panel.flash.setChecked(False)
    assert window.store.session.scenario.workload.flash_attention is False
    off = window.store.snapshot.result.decode_tok_s
    assert on is not None and off is not None and off < 0.9 * on
    window.store.undo()
    assert panel.flash.isChecked()
    panel.spins["efficiency"].setValue(0.8)  # a given η replaces the fitted terms: the switch no longer applies
    assert not panel.flash.isEnabled()


def test_sycl_fp16_build_switch_shows_for_sycl_only(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.workload_panel
    window.show()
    assert not panel.sycl_f16.isVisible()  # the default machine runs CUDA
    session = window.store.session.model_dump()
    session["hardware_id"] = "arc-pro-b70"
    session["scenario"]["hardware"] = to_hardware(window.store.catalog.hardware["arc-pro-b70"]).model_dump()
    window.store.set_session(session, "Pick the Arc Pro B70")
    window.store.update("workload", backend=Backend.SYCL, prompt_tokens=2048)
    assert panel.sycl_f16.isVisible() and not panel.sycl_f16.isChecked()
    f32 = window.store.snapshot.result.prefill_tok_s
    panel.sycl_f16.setChecked(True)
    assert window.store.session.scenario.workload.sycl_f16 is True
    assert window.store.snapshot.result.prefill_tok_s > f32  # the FP16 build prefills on the matrix units
    window.store.undo()
    assert not panel.sycl_f16.isChecked()
    assert window.store.snapshot.result.prefill_tok_s == pytest.approx(f32)


def test_chosen_entries_are_scrolled_into_view_at_start(window: MainWindow) -> None:
    """The lists are filled before the window has a size; the chosen machine and model must still
    be in view once it is shown (the RTX 4090 is far down the hardware list)."""
    for lst in (window.hardware_panel.list, window.model_panel.list):
        tree = lst.tree
        (item,) = tree.selectedItems()
        row, view = tree.visualItemRect(item), tree.viewport().rect()
        assert view.top() <= row.top() and row.bottom() <= view.bottom(), item.text(0)
    assert window.hardware_panel.list.tree.verticalScrollBar().value() > 0


def test_mxfp4_shows_its_non_expert_bits_and_gpt_oss_counts_them(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    panel = window.quant_panel
    panel.formats.setCurrentText("All")
    table = panel.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text().startswith("MXFP4"))
    assert table.item(row, 1).text() == "4.25 / 8.50"
    assert "outside the experts are stored at 8.5 bits" in table.item(row, 1).toolTip()
    qtbot.keyClicks(window.model_panel.list.search, "gpt-oss-20b")
    qtbot.keyClick(window.model_panel.list.search, Qt.Key.Key_Return)
    table.selectRow(row)
    assert window.store.session.quant_id == "mxfp4" and window.store.session.model_id == "gpt-oss-20b"
    qtbot.waitUntil(lambda: "outside the experts" in window.numbers_panel.steps.toPlainText(), timeout=3000)
    text = window.numbers_panel.steps.toPlainText()
    assert "outside the experts × 8.50 bits" in text and "2.57 GB read per token" in text
    assert_plots_match_core(window)


def test_auto_eta_carries_the_machines_own_factor(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The η field's 'auto' value is the η the estimate uses: on a catalog machine with published runs it
    includes that machine's own factor, and the tooltip says so; renamed, the machine is custom and loses it."""
    from advisor.catalog.convert import to_hardware
    from advisor.core.calibration import CALIBRATION
    from advisor.core.inputs import decode_eta

    box = window.workload_panel.spins["efficiency"]
    s = window.store.session.scenario
    gen, own = CALIBRATION.generation(s.hardware), CALIBRATION.machine(s.hardware)
    assert s.hardware.name == "NVIDIA GeForce RTX 4090" and gen.decode != 1.0
    assert box.specialValueText() == f"auto ({decode_eta(s):.2f})"
    assert (
        f"the NVIDIA Ada architecture's factor {gen.decode:.3f} from {gen.rows} published decode runs" in box.toolTip()
    )
    # the tooltip names the machine's own factor exactly when there is one (a factor of 1.0 is no factor)
    assert ("own factor" in box.toolTip()) == (own.decode != 1.0)
    fitted = next(
        k
        for k, e in window.store.catalog.hardware.items()
        if CALIBRATION.machine(to_hardware(e)).decode != 1.0 and e.kind is s.hardware.kind
    )
    window.hardware_panel.list.picked.emit(fitted)  # a machine whose own runs set a factor
    s = window.store.session.scenario
    own = CALIBRATION.machine(s.hardware)
    assert own.decode != 1.0
    assert f"this machine's own factor {own.decode:.3f} from {own.rows} published decode runs" in box.toolTip()
    window.store.update("hardware", name="My card")
    assert "own factor" not in box.toolTip() and "architecture" not in box.toolTip()
    assert box.specialValueText() == f"auto ({decode_eta(window.store.session.scenario):.2f})"


def test_model_summary_names_a_given_kv_figure() -> None:
    """A hybrid model imported with only its attention layers' cache (or a KV figure typed in) says so in the
    model panel's summary instead of "full attention"."""
    from advisor.core.model import ModelArch
    from advisor.ui.panels.model_panel import describe

    plain = ModelArch(name="Dense", total_params_b=8, layers=32, hidden=4096, heads=32, kv_heads=8)
    assert "full attention" in describe(plain)
    hybrid = plain.model_copy(update={"name": "Hybrid", "kv_bytes_per_token_override": 20_480.0})
    text = describe(hybrid)
    assert "KV cache 20,480 bytes/token at 16 bits, as given" in text and "full attention" not in text
    stateful = hybrid.model_copy(update={"state_bytes_per_sequence": 65_863_680.0})
    assert "as given + 65.9 MB recurrent state per sequence" in describe(stateful)
