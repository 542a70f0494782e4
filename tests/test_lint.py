"""The code stays lint-clean (ruff) and type-clean (mypy), both configured in pyproject.toml, and the core
stays Qt-free."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    pytest.importorskip("ruff")
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "advisor", "tests", "benchmarks", "packaging", "scripts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]


@pytest.mark.slow  # 20-45 s from a fresh checkout (no mypy cache)
def test_ruff_format_applied() -> None:
    pytest.importorskip("ruff")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--check",
            "advisor",
            "tests",
            "benchmarks",
            "packaging",
            "scripts",
            "dev.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]


def test_mypy_clean() -> None:
    pytest.importorskip("mypy")
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:]


@pytest.mark.slow  # 20-45 s from a fresh checkout (no mypy cache)
def test_core_is_mypy_strict() -> None:
    pytest.importorskip("mypy")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "advisor/core"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-3000:]


def test_core_and_catalog_import_no_qt() -> None:
    code = (
        "import sys, advisor.core.evaluate, advisor.core.curves, advisor.core.recommend, advisor.core.budget, "
        "advisor.core.upgrades, advisor.present.compare_text, advisor.present.budget_text, "
        "advisor.present.upgrade_text, advisor.catalog.loader, advisor.catalog.gguf_import, advisor.cli; "
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))]; print(bad); "
        "sys.exit(1 if bad else 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("module", ["advisor.ui.store", "advisor.ui.plots.base", "advisor.ui.main_window"])
def test_each_ui_module_imports_on_its_own(module: str) -> None:
    """PySide6's import hook must not meet pydantic's lazy imports half-done (see advisor/ui/__init__.py)."""
    run = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert run.returncode == 0, run.stderr[-2000:]
