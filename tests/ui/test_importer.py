"""File → Import reads in a worker: the event loop keeps turning while a slow read runs, a busy dialog
with Cancel shows, Cancel leaves nothing changed (no entry saved, no undo step), failures are one message."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressDialog, QPushButton

import advisor.ui.importer as importer
from advisor.paths import user_catalog_dir
from advisor.ui.main_window import MainWindow
from advisor.ui.workers import SHOW_AFTER_MS
from tests.catalog.test_hf_import import LLAMA_31_8B

SLOW_S = 2.0  # a read this long would freeze a window that read on its own thread


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "My-Llama-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_31_8B))
    return folder / "config.json"


@pytest.fixture
def slow_read(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """read_model_file as a header at the readers' budget would take, recording the thread it ran on."""
    threads: list[threading.Thread] = []
    real = importer.read_model_file

    def slow(path: Path):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        time.sleep(SLOW_S)
        return real(path)

    monkeypatch.setattr(importer, "read_model_file", slow)
    return threads


@pytest.fixture
def ticks(qtbot) -> Iterator[list[float]]:  # type: ignore[no-untyped-def]
    """Times a 10 ms GUI timer fired at: proof the event loop turns."""
    seen: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: seen.append(time.perf_counter()))
    timer.start()
    yield seen
    timer.stop()


def _progress(window: MainWindow) -> QProgressDialog:
    (dialog,) = window.findChildren(QProgressDialog, "task-progress")
    return dialog


def test_a_slow_import_runs_off_the_gui_thread(
    qtbot,
    window: MainWindow,
    config: Path,  # type: ignore[no-untyped-def]
    slow_read: list[threading.Thread],
    ticks: list[float],
) -> None:
    before = window.store.session
    window.store.flush()
    qtbot.wait(300)  # the window's own first-paint work done: what follows is the import's
    done: list[object] = []
    t0 = time.perf_counter()
    task = importer.start_import(window, config, done.append)
    assert time.perf_counter() - t0 < 0.2  # start_import returns at once
    qtbot.waitUntil(lambda: _progress(window).isVisible(), timeout=SLOW_S * 1000)
    assert time.perf_counter() - t0 >= SHOW_AFTER_MS / 1000 * 0.9  # not flashed for a quick read
    assert window.store.session == before  # nothing applied while reading
    with qtbot.waitSignal(task.succeeded, timeout=10_000):
        pass
    assert slow_read and slow_read[0] is not threading.main_thread()
    during = [t for t in ticks if t0 < t < t0 + SLOW_S]
    assert len(during) >= 20  # ~200 at 10 ms; a tenth on a loaded machine
    assert max(b - a for a, b in zip(during, during[1:], strict=False)) < SLOW_S / 2  # never frozen for the read
    m = window.store.session.scenario.model
    assert m.layers == LLAMA_31_8B["num_hidden_layers"] and window.store.session.model_id in window.store.catalog.models
    assert len(done) == 1 and window.store.undo_text().startswith("Import")
    task.wait(5000)
    qtbot.waitUntil(lambda: not window.findChildren(QProgressDialog, "task-progress"), timeout=2000)


def test_cancel_changes_nothing(
    qtbot,
    window: MainWindow,
    config: Path,  # type: ignore[no-untyped-def]
    slow_read: list[threading.Thread],
) -> None:
    before, undo = window.store.session, window.store.undo_text()
    catalog_before = set(window.store.catalog.models)
    window.store.flush()
    qtbot.wait(300)
    done: list[object] = []
    task = importer.start_import(window, config, done.append)
    qtbot.waitUntil(lambda: _progress(window).isVisible(), timeout=SLOW_S * 1000)
    (cancel,) = _progress(window).findChildren(QPushButton)
    assert cancel.text() == "Cancel"
    cancel.click()
    assert not _progress(window).isVisible()
    assert task.cancelled and task.isRunning()  # the read goes on; its result will be dropped
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    qtbot.wait(100)  # any queued delivery would have arrived by now
    assert done == [] and window.store.session == before and window.store.undo_text() == undo
    assert set(window.store.catalog.models) == catalog_before
    assert not (user_catalog_dir() / "models.json").exists()  # nothing saved


def test_a_failed_read_is_one_message(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    before = window.store.session
    for name, content in (("broken.gguf", b"NOPE" + b"\0" * 64), ("config.json", b"[" * 100_000)):
        bad = tmp_path / name
        bad.write_bytes(content)
        task = importer.start_import(window, bad)
        with qtbot.waitSignal(task.failed, timeout=10_000):
            pass
        message = window.statusBar().currentMessage()
        assert name in message and "Traceback" not in message and "\n" not in message
        assert window.store.session == before
        task.wait(5000)


def test_an_unexpected_failure_is_named_too(
    qtbot,
    window: MainWindow,
    config: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(_path: Path):  # type: ignore[no-untyped-def]
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(importer, "read_model_file", broken)
    task = importer.start_import(window, config)
    with qtbot.waitSignal(task.failed, timeout=10_000):
        pass
    message = window.statusBar().currentMessage()
    assert "config.json" in message and "RecursionError" in message
    task.wait(5000)


def test_closing_the_window_during_a_read_cancels_it(
    qtbot,
    store,
    config: Path,  # type: ignore[no-untyped-def]
    slow_read: list[threading.Thread],
) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    w = MainWindow(store)
    w.show()
    task = importer.start_import(w, config)
    delivered: list[object] = []
    task.succeeded.connect(delivered.append)
    w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # gone before its read ends
    assert task.cancelled
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    qtbot.wait(100)
    assert delivered == [] and not (user_catalog_dir() / "models.json").exists()
