"""App settings (last session, window layout, recent files) in the platformdirs config folder.

Only what the user changed is saved. A corrupt file is set aside (never overwritten) and defaults
are used, with a message for the window to show."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError

from advisor.atomic import set_aside, write_atomic
from advisor.core.base import Frozen
from advisor.json_files import JSONProblem, load_json_file, validation_message
from advisor.paths import config_dir
from advisor.session import Session, session_problem

SETTINGS_VERSION = 1
MAX_RECENT = 8
MAX_SETTINGS_BYTES = 4 << 20  # a layout and a session are a few KB


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
    """(settings, message): message is None unless the file was unreadable and set aside (whatever is
    wrong with it: malformed, out of range, not a regular file, too large) or its saved session could
    not be computed (then dropped, and the default session used)."""
    path = path or settings_path()
    if not path.exists() and not path.is_symlink():
        return Settings(), None
    try:
        settings = Settings.model_validate(load_json_file(path, max_bytes=MAX_SETTINGS_BYTES))
    except (JSONProblem, ValidationError, RecursionError, ValueError) as err:
        reason = validation_message(err) if isinstance(err, ValidationError) else str(err).removeprefix(f"{path}: ")
        try:
            where = f"set aside as {set_aside(path).name}"
        except OSError:
            where = "left in place"
        return Settings(), f"Settings file {path} could not be read ({reason}); {where}, defaults used."
    if settings.session is not None and (problem := session_problem(settings.session)) is not None:
        return (
            settings.model_copy(update={"session": None}),
            f"The last session in {path} could not be computed ({problem}); the default scenario is used.",
        )
    return settings, None


def save_settings(settings: Settings, path: Path | None = None) -> None:
    write_atomic(path or settings_path(), settings.model_dump_json(indent=2, exclude_defaults=True))


def add_recent(settings: Settings, file: str) -> Settings:
    recent = (file, *[f for f in settings.recent_files if f != file])[:MAX_RECENT]
    return settings.model_copy(update={"recent_files": recent})
