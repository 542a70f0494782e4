"""The wheel (what `pip install` gets) carries the catalogs and resources, and an installed copy finds them
through importlib.resources, not through the repo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from advisor.catalog.loader import shipped_catalog
from tests.packaging.conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built with the hatchling in .venv (the test extra): offline, under a second."""
    out = tmp_path_factory.mktemp("wheel")
    run = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    (built,) = out.glob("llm_speed_advisor-*.whl")
    return built


def test_wheel_contains_catalogs_and_resources(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in (*(ROOT / "catalogs").rglob("*.toml"), *(ROOT / "catalogs").rglob("*.json")):
        assert f"advisor/_catalogs/{data.relative_to(ROOT / 'catalogs').as_posix()}" in names
    for f in (ROOT / "resources").rglob("*"):
        if f.is_file():
            assert f"advisor/_resources/{f.relative_to(ROOT / 'resources').as_posix()}" in names
    assert not any(n.startswith(("tests/", "benchmarks/", "packaging/")) for n in names)


def test_installed_wheel_finds_its_catalogs(wheel: Path, tmp_path: Path) -> None:
    """Unpacking a pure-Python wheel is what installing it does; import from there, away from the repo."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = (
        "import json, advisor\n"
        "from pathlib import Path\n"
        "from advisor.catalog.loader import catalog_root, load_catalog\n"
        "from advisor.app import resource_root\n"
        "cat = load_catalog(Path('no-user-catalog'))\n"
        "print(json.dumps({'advisor': advisor.__file__, 'catalogs': str(catalog_root()),\n"
        "  'resources': str(resource_root()), 'hardware': len(cat.hardware), 'models': len(cat.models),\n"
        "  'quants': len(cat.quants), 'published': len(cat.published), 'problems': list(cat.problems),\n"
        "  'icon': (resource_root() / 'icons' / 'llm-speed-advisor-256.png').is_file()}))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert Path(got["advisor"]).is_relative_to(site)
    assert Path(got["catalogs"]) == site / "advisor" / "_catalogs"
    assert Path(got["resources"]) == site / "advisor" / "_resources"
    assert got["hardware"] > 20 and got["models"] > 20 and got["quants"] > 5
    assert got["published"] == len(shipped_catalog().published) > 0  # every row of catalogs/published/runs.json
    assert got["problems"] == []
    assert got["icon"]
