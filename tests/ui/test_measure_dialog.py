"""Tools → Measure your own…, offscreen: paste → fit → save → the store uses the η; points on the plot;
the host bandwidth test in its thread."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import load_catalog
from advisor.paths import user_catalog_dir
from advisor.ui.main_window import MainWindow
from advisor.ui.measure_dialog import MeasureDialog, open_measure_dialog
from tests.measure.conftest import fixture_text


def use_spark_qwen(window: MainWindow) -> None:
    """DGX Spark · Qwen2.5-Coder 7B · Q8_0, the scenario of the pasted fixture."""
    c = window.store.catalog
    data = window.store.session.model_dump()
    data["scenario"]["hardware"] = to_hardware(c.hardware["dgx-spark"]).model_dump()
    data["scenario"]["model"] = to_model(c.models["qwen2.5-coder-7b"]).model_dump()
    data["scenario"]["quant"] = to_quant(c.quants["q8_0"]).model_dump()
    data.update(hardware_id="dgx-spark", model_id="qwen2.5-coder-7b", quant_id="q8_0")
    assert window.store.set_session(data, "test")


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: re-opening raises the dialog
def test_paste_fit_save_and_points_on_the_plot(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    use_spark_qwen(window)
    dialog = open_measure_dialog(window)
    assert open_measure_dialog(window) is dialog  # one per window
    dialog.paste.setPlainText(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    fit = dialog.fit()
    assert fit is not None and fit.decode is not None and fit.prefill is not None
    assert fit.decode.eta == pytest.approx(0.798, abs=0.005)
    assert dialog.table.rowCount() == 10
    assert dialog.table.item(0, 0).text() == "tg32" and dialog.table.item(0, 2).text() == "29.30"
    assert "η decode 0.798" in dialog.summary.text() and "Your current scenario: decode" in dialog.summary.text()
    assert dialog.save_button.isEnabled()
    assert dialog.save_button.text() == "Save as “NVIDIA DGX Spark (GB10, 128 GB) (mine)” and use it"

    entry = dialog.save()
    assert entry is not None and entry.id == "dgx-spark-mine"
    store = window.store
    assert store.session.hardware_id == "dgx-spark-mine"
    # the fitted model stays (no plain η): the calibration rides with the hardware
    assert store.session.scenario.workload.efficiency is None
    assert store.session.scenario.workload.compute_efficiency is None
    assert store.session.scenario.hardware.measured == fit.terms
    assert "dgx-spark-mine" in load_catalog(user_catalog_dir()).hardware  # on disk, in the user's catalog
    assert "dgx-spark-mine" in window.hardware_panel.list.visible_ids()

    # The measured decode points are drawn on the context plot (depth 0 at the axis's left edge).
    xs, ys = window.plots["context"].measured.getData()
    assert list(ys) == pytest.approx([29.30, 28.27, 27.42, 25.93, 22.70])
    assert xs[1] == pytest.approx(4096 + 16)
    assert xs[0] == pytest.approx(window.store.snapshot.curves["context"].x[0])
    assert window.plots["context"].measured.isVisible()

    # Another GPU: its own η (none measured), and no points; back again: the measured η returns.
    window.hardware_panel._picked("rtx-4090")
    assert store.session.scenario.workload.efficiency is None
    assert store.session.scenario.workload.compute_efficiency is None
    xs, ys = window.plots["context"].measured.getData()
    assert len(xs) == 0 and not window.plots["context"].measured.isVisible()
    assert store.session.scenario.hardware.measured is None
    window.hardware_panel._picked("dgx-spark-mine")
    assert store.session.scenario.hardware.measured == fit.terms
    assert len(window.plots["context"].measured.getData()[1]) == 5
    dialog.close()


def test_typed_speed_and_errors(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    assert dialog.fit() is None and "paste llama-bench output" in dialog.summary.text()
    dialog.paste.setPlainText("not a benchmark")
    assert dialog.fit() is None and "line 1: not a llama-bench table row" in dialog.summary.text()
    assert not dialog.save_button.isEnabled() and dialog.table.rowCount() == 0
    dialog.paste.setPlainText("")
    dialog.typed.setValue(100.0)  # RTX 4090 · Llama 3.1 8B · Q4_K_M at 4096 context
    fit = dialog.fit()
    assert fit is not None and fit.decode is not None and fit.prefill is None
    assert dialog.change is not None and dialog.change.after.decode_tok_s == pytest.approx(100.0, rel=1e-6)
    assert dialog.table.item(0, 1).text() == "as set"
    window.store.update("workload", context=8192)  # a fit for another scenario cannot be saved
    assert dialog.save_button.text() == "The scenario changed: fit again to save"
    assert not dialog.save_button.isEnabled()


def test_bandwidth_in_a_thread_fills_host_bandwidth(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = MeasureDialog(window.store, window)
    qtbot.addWidget(dialog)
    assert "underestimates" in " ".join(w.text() for w in dialog.findChildren(type(dialog.bw_result)))
    with qtbot.waitSignal(dialog.start_bandwidth(0.2, 2**20).measured, timeout=10_000):
        pass
    assert dialog.bandwidth is not None and dialog.bandwidth.gbps > 0
    assert dialog.bw_progress.value() == 100 and dialog.bw_apply.isEnabled()
    assert dialog.bw_apply.text().endswith("as host (system RAM) bandwidth")
    assert dialog.apply_bandwidth()
    hw = window.store.session.scenario.hardware
    assert hw.host_bandwidth_gbps == pytest.approx(round(dialog.bandwidth.gbps, 1))
    assert hw.bandwidth_gbps == 1008.0  # the GPU's own figure untouched


def test_bandwidth_cancel_and_cpu_only(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.hardware_panel._picked("desktop-ddr5-5600-2ch-64gb")
    dialog = MeasureDialog(window.store, window)
    qtbot.addWidget(dialog)
    thread = dialog.start_bandwidth(30.0, 2**20)
    assert dialog.bw_cancel.isEnabled() and not dialog.bw_start.isEnabled()
    with qtbot.waitSignal(thread.measured, timeout=10_000) as blocker:
        dialog.cancel_bandwidth()
    assert blocker.args[0].cancelled and blocker.args[0].seconds < 30
    assert dialog.bw_start.isEnabled()
    if dialog.bandwidth is not None:  # at least one pass finished before the cancel
        assert dialog.apply_bandwidth()
        assert window.store.session.scenario.hardware.bandwidth_gbps == pytest.approx(round(dialog.bandwidth.gbps, 1))
        assert np.isfinite(window.store.snapshot.result.decode_tok_s or 0)


@pytest.mark.parametrize(
    "paste",
    [
        "[" * 100_000,
        "| test | t/s |\n| -- | -- |\n| tg128 | 1e999 |\n",
        "| test | t/s |\n| -- | -- |\n| tg" + "9" * 5000 + " | 5 |\n",
        'build_commit,n_prompt,n_gen,avg_ts\n"' + "x" * 200_000 + '",0,1,5\n',
    ],
)
def test_a_hostile_paste_replaces_the_last_message(window: MainWindow, qtbot, paste: str) -> None:  # type: ignore[no-untyped-def]
    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.paste.setPlainText("not a benchmark")
    assert dialog.fit() is None and "line 1: not a llama-bench table row" in dialog.summary.text()
    dialog.paste.setPlainText(paste)
    assert dialog.fit() is None and not dialog.save_button.isEnabled()
    text = dialog.summary.text()
    assert text and "not a llama-bench table row" not in text and "Traceback" not in text


def test_the_fit_button_fits_in_a_worker(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    use_spark_qwen(window)
    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.paste.setPlainText(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    same = dialog.fit()
    assert same is not None and same.decode is not None
    dialog.fit_button.click()
    task = dialog.fit_task
    assert task is not None and not dialog.fit_button.isEnabled()
    with qtbot.waitSignal(task.succeeded, timeout=20_000):
        pass
    fit = dialog.fit_result
    assert fit is not None and fit.decode is not None and fit.decode.eta == pytest.approx(same.decode.eta, rel=1e-12)
    assert dialog.table.rowCount() == 10 and dialog.save_button.isEnabled() and dialog.fit_button.isEnabled()
    assert not dialog.fit_progress.isVisible() and dialog.fit_task is None
    task.wait(5000)


@pytest.fixture
def slow_fit(monkeypatch: pytest.MonkeyPatch) -> float:
    import time

    import advisor.ui.measure_dialog as module

    real = module.compute_fit

    def slow(*args):  # type: ignore[no-untyped-def]
        time.sleep(2.0)
        return real(*args)

    monkeypatch.setattr(module, "compute_fit", slow)
    return 2.0


def test_a_slow_fit_keeps_the_dialog_responsive_and_cancel_keeps_nothing(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, slow_fit: float
) -> None:
    import time

    from PySide6.QtCore import QTimer

    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.typed.setValue(100.0)
    window.store.flush()
    qtbot.wait(300)  # the window's own first-paint work done
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    t0 = time.perf_counter()
    task = dialog.start_fit()
    assert time.perf_counter() - t0 < 0.2
    qtbot.waitUntil(dialog.fit_progress.isVisible, timeout=slow_fit * 1000)
    assert dialog.fit_cancel.isVisible() and not dialog.fit_button.isEnabled()
    qtbot.wait(300)
    assert len([t for t in ticks if t > t0]) >= 10  # the event loop turned while the fit ran
    dialog.fit_cancel.click()
    assert "Cancelled" in dialog.summary.text() and dialog.fit_button.isEnabled()
    assert not dialog.fit_progress.isVisible()
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    qtbot.wait(100)  # a queued result would have arrived by now: it is dropped
    timer.stop()
    assert dialog.fit_result is None and dialog.change is None and dialog.table.rowCount() == 0
    assert not dialog.save_button.isEnabled() and "Cancelled" in dialog.summary.text()


def test_a_scenario_change_during_the_fit_voids_it(window: MainWindow, qtbot, slow_fit: float) -> None:  # type: ignore[no-untyped-def]
    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.typed.setValue(100.0)  # a typed figure is for the whole workload it was measured at
    task = dialog.start_fit()
    window.store.update("workload", context=8192)
    with qtbot.waitSignal(task.succeeded, timeout=10_000):
        pass
    assert dialog.fit_result is not None  # shown, for the scenario it was fitted to
    assert not dialog.save_button.isEnabled() and dialog.save_button.text() == "The scenario changed: fit again to save"
    task.wait(5000)


@pytest.mark.parametrize("paste", ["[" * 100_000, "| test | t/s |\n| -- | -- |\n| tg128 | 1e999 |\n"])
def test_a_hostile_paste_in_the_worker_is_one_message(window: MainWindow, qtbot, paste: str) -> None:  # type: ignore[no-untyped-def]
    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.paste.setPlainText(paste)
    task = dialog.start_fit()
    with qtbot.waitSignal(task.failed, timeout=10_000):
        pass
    text = dialog.summary.text()
    assert text and "Traceback" not in text and dialog.fit_button.isEnabled() and not dialog.save_button.isEnabled()
    task.wait(5000)


def use_spark_qwen_at(window: MainWindow, quant_id: str) -> None:
    use_spark_qwen(window)
    q = window.store.catalog.quants[quant_id]
    data = window.store.session.model_dump()
    data["scenario"]["quant"] = to_quant(q).model_dump()
    data["quant_id"] = quant_id
    assert window.store.set_session(data, "test quant")


def test_a_table_of_another_quant_offers_to_switch_and_then_fits(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    use_spark_qwen_at(window, "q4_k_m")
    store = window.store
    dialog = MeasureDialog(store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.paste.setPlainText(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    task = dialog.start_fit()  # the worker's refusal carries the offer
    with qtbot.waitSignal(task.failed, timeout=20_000):
        pass
    text = dialog.summary.text()
    assert "ran a 7.54 GiB file (qwen2 7B Q8_0)" in text and "at Q4_K_M is 4.33 GiB" in text
    assert "Qwen2.5-Coder 7B Q8_0" in text
    assert not dialog.save_button.isEnabled()
    assert not dialog.switch_button.isHidden() and dialog.switch_button.text() == "Switch to Qwen2.5-Coder 7B Q8_0"
    task.wait(5000)

    undo_depth = len(store._undo)
    dialog.switch_button.click()
    assert store.session.model_id == "qwen2.5-coder-7b" and store.session.quant_id == "q8_0"
    assert store.session.scenario.quant.name == "Q8_0"
    assert len(store._undo) == undo_depth + 1 and "Qwen2.5-Coder 7B Q8_0" in store.undo_text()
    refit = dialog.fit_task
    assert refit is not None and dialog.switch_button.isHidden()
    with qtbot.waitSignal(refit.succeeded, timeout=20_000):
        pass
    fit = dialog.fit_result
    assert fit is not None and fit.decode is not None and fit.decode.n == 5 and not fit.skipped
    assert dialog.save_button.isEnabled() and dialog.save_button.text().startswith("Save as")
    refit.wait(5000)

    store.undo()  # the switch was one edit: undo brings back the quant, and the fit no longer saves
    assert store.session.quant_id == "q4_k_m" and store.session.scenario.quant.name == "Q4_K_M"
    assert not dialog.save_button.isEnabled()


def test_a_table_with_no_catalog_match_says_so_without_a_button(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    use_spark_qwen(window)
    dialog = MeasureDialog(window.store, window, window.hardware_panel)
    qtbot.addWidget(dialog)
    dialog.paste.setPlainText(
        "| model | size | params | backend | ngl | test | t/s |\n"
        "| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
        "| llama 58B Q4_K - Medium | 33.10 GiB | 58.00 B | CUDA | 99 | tg128 |  5.00 ± 0.10 |\n"
    )
    assert dialog.fit() is None
    text = dialog.summary.text()
    assert "ran a 58.00 B model" in text and "No catalog model and quant match" in text
    assert dialog.switch_button.isHidden() and not dialog.save_button.isEnabled()
    assert not dialog.switch_to_table_model()
    # a table of the scenario's own model afterwards: no leftover offer
    dialog.paste.setPlainText(fixture_text("dgx_spark_qwen2.5_coder_7b_q8_0.md"))
    assert dialog.fit() is not None
    assert dialog.switch_button.isHidden() and "No catalog model" not in dialog.summary.text()
