"""Helpers for the packaging tests: the repo root and packaging/bundle_config.py loaded by path
(packaging/ has no __init__.py on purpose: it would shadow the `packaging` library)."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.scripts import ROOT, load

__all__ = ["ROOT", "load"]  # the packaging tests import both from here


@pytest.fixture(scope="session")
def cfg() -> ModuleType:
    return load(ROOT / "packaging" / "bundle_config.py", "bundle_config")
