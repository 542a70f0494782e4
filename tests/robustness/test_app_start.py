"""The desktop app starts (offscreen) with any single corrupt file in its config or data folder, and says
which file it could not read; a restored session the store cannot compute is named among those problems."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.paths import user_catalog_dir
from advisor.settings import Settings, save_settings, settings_path
from tests.robustness.test_json_corpus import CORPUS

ROOT = Path(__file__).resolve().parents[2]

STARTUP_CASES = ("deep list", "5000-digit integer", "NaN", "not UTF-8", "a string", "wrong types")


def _start(extra_env: dict[str, str] | None = None) -> str:
    """main() up to its event loop, in a process of its own (tests/robustness/start_app.py): what it warned."""
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("start_app.py"))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **(extra_env or {})},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert time.perf_counter() - t0 < 60  # the whole start-up, window included, on a shared CI core
    return run.stdout + run.stderr


def _corrupt(path: Path, case: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if case == "a FIFO":
        os.mkfifo(path)
    elif case == "a folder":
        path.mkdir()
    else:
        path.write_bytes(CORPUS[case])


# each start is a process of its own (a few seconds): two cases in the fast tier, the rest slow
FAST_CASES = ("NaN", "a folder")
CASES = [
    c if c in FAST_CASES else pytest.param(c, marks=pytest.mark.slow)
    for c in (*STARTUP_CASES, *(("a FIFO",) if hasattr(os, "mkfifo") else ()), "a folder")
]


@pytest.mark.parametrize("case", CASES)
def test_starts_with_corrupt_settings(case: str) -> None:
    _corrupt(settings_path(), case)
    shown = _start()
    assert "settings.json" in shown and "Traceback" not in shown


@pytest.mark.parametrize("kind", ["models", *(pytest.param(k, marks=pytest.mark.slow) for k in ("hardware", "quants"))])
@pytest.mark.parametrize("case", CASES)
def test_starts_with_a_corrupt_user_catalog_file(kind: str, case: str) -> None:
    save_settings(Settings())  # not a first start: no hardware detection
    _corrupt(user_catalog_dir() / f"{kind}.json", case)
    shown = _start()
    assert f"{kind}.json" in shown and "Traceback" not in shown


def test_a_restored_session_that_cannot_be_computed_is_named() -> None:
    from advisor.core.scenario import Scenario, Workload
    from advisor.session import Session

    save_settings(Settings(session=Session(scenario=Scenario(workload=Workload(context=777)))))
    shown = _start({"ADVISOR_TEST_FAILING_CONTEXT": "777"})
    assert "could not be computed" in shown and "division by zero" in shown and "default scenario" in shown
