"""Helpers for the packaging tests: the repo root and packaging/bundle_config.py loaded by path
(packaging/ has no __init__.py on purpose: it would shadow the `packaging` library)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def cfg() -> ModuleType:
    return load(ROOT / "packaging" / "bundle_config.py", "bundle_config")
