"""App settings (last session, window layout, recent files) in the platformdirs config folder.

Only what the user changed is saved. A corrupt file is set aside (never overwritten) and defaults
are used, with a message for the window to show."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pydantic import Field, ValidationError

from advisor.atomic import write_atomic
from advisor.core.base import Frozen
from advisor.paths import config_dir
from advisor.session import Session

SETTINGS_VERSION = 1
MAX_RECENT = 8


class Settings(Frozen):
    schema_version: int = SETTINGS_VERSION
    session: Session | None = None
    window_geometry: str | None = None  # base64 of QMainWindow.saveGeometry()
    window_state: str | None = None  # base64 of QMainWindow.saveState()
    recent_files: tuple[str, ...] = Field(default=(), max_length=MAX_RECENT)
    show_published: bool = True  # squares for published runs on the plots and their exports


def settings_path() -> Path:
    return config_dir() / "settings.json"


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """(settings, message): message is None unless the file was unreadable and set aside."""
    path = path or settings_path()
    if not path.exists():
        return Settings(), None
    try:
        return Settings.model_validate(json.loads(path.read_text(encoding="utf-8"))), None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as err:
        aside = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            path.replace(aside)
            where = f"set aside as {aside.name}"
        except OSError:
            where = "left in place"
        reason = err.errors()[0]["msg"] if isinstance(err, ValidationError) else str(err)
        return Settings(), f"Settings file {path} could not be read ({reason}); {where}, defaults used."


def save_settings(settings: Settings, path: Path | None = None) -> None:
    write_atomic(path or settings_path(), settings.model_dump_json(indent=2, exclude_defaults=True))


def add_recent(settings: Settings, file: str) -> Settings:
    recent = (file, *[f for f in settings.recent_files if f != file])[:MAX_RECENT]
    return settings.model_copy(update={"recent_files": recent})
