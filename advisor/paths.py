"""Where the app keeps its files: platformdirs folders, or ADVISOR_HOME (tests, portable use)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "llm-speed-advisor"


def _home() -> Path | None:
    home = os.environ.get("ADVISOR_HOME")
    return Path(home) if home else None


def config_dir() -> Path:
    home = _home()
    return home / "config" if home else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    home = _home()
    return home / "data" if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def user_catalog_dir() -> Path:
    """Custom catalog entries; outside the install so they survive upgrades."""
    return data_dir() / "catalog"
