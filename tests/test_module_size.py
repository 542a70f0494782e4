"""Modules a newcomer can read: no Python file of the project is over 400 lines."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 400
TREES = ("advisor", "tests", "benchmarks", "scripts", "packaging")


def project_files() -> list[Path]:
    files = [p for tree in TREES for p in (ROOT / tree).rglob("*.py")]
    return sorted([*files, ROOT / "dev.py"])


def test_no_module_over_the_limit() -> None:
    files = project_files()
    assert len(files) > 50  # the walk found the project
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in files if (n := len(p.read_text().splitlines())) > LIMIT]
    assert not long, f"split these by job (at most {LIMIT} lines each):\n  " + "\n  ".join(long)
