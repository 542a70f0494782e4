"""The desktop app starts (offscreen) with any single corrupt file in its config or data folder, and says
which file it could not read; a restored session the store cannot compute is named among those problems."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.paths import user_catalog_dir
from advisor.settings import Settings, save_settings, settings_path
from tests.robustness.test_json_corpus import CORPUS

STARTUP_CASES = ("deep list", "5000-digit integer", "NaN", "not UTF-8", "a string", "wrong types")


@pytest.fixture
def started(qapp, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    """main() up to its event loop: exec returns at once, warnings are recorded instead of shown."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from advisor.ui.screen import ScreenFit

    warnings: list[str] = []
    monkeypatch.setattr(QApplication, "exec", lambda *_a: 0)
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _parent, _title, text: warnings.append(text)))
    yield warnings
    for f in qapp.findChildren(ScreenFit):  # main() installs one per start: leave none behind
        qapp.removeEventFilter(f)
        f.deleteLater()
    for w in QApplication.topLevelWidgets():
        w.close()
        w.deleteLater()


def _start(warnings: list[str]) -> str:
    from advisor.app import main

    t0 = time.perf_counter()
    assert main([]) == 0
    assert time.perf_counter() - t0 < 20  # the whole start-up, window included, on a shared CI core
    return "\n".join(warnings)


def _corrupt(path: Path, case: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if case == "a FIFO":
        os.mkfifo(path)
    elif case == "a folder":
        path.mkdir()
    else:
        path.write_bytes(CORPUS[case])


CASES = [*STARTUP_CASES, *(("a FIFO",) if hasattr(os, "mkfifo") else ()), "a folder"]


@pytest.mark.parametrize("case", CASES)
def test_starts_with_corrupt_settings(started: list[str], case: str) -> None:
    _corrupt(settings_path(), case)
    shown = _start(started)
    assert "settings.json" in shown and "Traceback" not in shown


@pytest.mark.parametrize("kind", ["models", *(pytest.param(k, marks=pytest.mark.slow) for k in ("hardware", "quants"))])
@pytest.mark.parametrize("case", CASES)
def test_starts_with_a_corrupt_user_catalog_file(started: list[str], kind: str, case: str) -> None:
    save_settings(Settings())  # not a first start: no hardware detection
    _corrupt(user_catalog_dir() / f"{kind}.json", case)
    shown = _start(started)
    assert f"{kind}.json" in shown and "Traceback" not in shown


def test_a_restored_session_that_cannot_be_computed_is_named(started: list[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.ui.store as store_module
    from advisor.core.evaluate import evaluate
    from advisor.core.scenario import Scenario, Workload
    from advisor.session import Session

    def fake(s, explain=True):  # type: ignore[no-untyped-def]
        if s.workload.context == 777:  # as a solver failure the bounds did not foresee
            raise ZeroDivisionError("float division by zero")
        return evaluate(s, explain=explain)

    save_settings(Settings(session=Session(scenario=Scenario(workload=Workload(context=777)))))
    monkeypatch.setattr(store_module, "evaluate", fake)
    shown = _start(started)
    assert "could not be computed" in shown and "division by zero" in shown and "default scenario" in shown
