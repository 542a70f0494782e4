"""Settings: only changes saved, atomic, and a corrupt file set aside rather than overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.session import Session
from advisor.settings import Settings, add_recent, load_settings, save_settings, settings_path


def test_round_trip_and_location(_advisor_home: Path) -> None:
    s = add_recent(Settings(session=Session()), "/tmp/a.json")
    save_settings(s)
    assert settings_path().is_relative_to(_advisor_home)
    loaded, problem = load_settings()
    assert problem is None and loaded == s


def test_only_non_defaults_saved() -> None:
    save_settings(Settings(recent_files=("x.json",)))
    assert json.loads(settings_path().read_text()) == {"recent_files": ["x.json"]}


def test_corrupt_file_set_aside_with_message() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ not json")
    loaded, problem = load_settings()
    assert loaded == Settings()
    assert problem is not None and str(path) in problem and "set aside" in problem
    aside = list(path.parent.glob("settings.json.bad-*"))
    assert len(aside) == 1 and aside[0].read_text() == "{ not json"
    assert not path.exists()


def test_invalid_values_set_aside_too() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"session": {"scenario": {"workload": {"streams": 0}}}}))
    loaded, problem = load_settings()
    assert loaded == Settings() and problem is not None


def test_recent_files_dedupe_and_cap() -> None:
    s = Settings()
    for i in range(12):
        s = add_recent(s, f"{i}.json")
    s = add_recent(s, "5.json")
    assert s.recent_files[0] == "5.json" and len(s.recent_files) == 8 and s.recent_files.count("5.json") == 1


def test_a_saved_session_that_cannot_be_computed_is_dropped_with_a_message(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import advisor.session as session_module

    def fail(*_a: object, **_k: object) -> None:
        raise ZeroDivisionError("float division by zero")

    save_settings(add_recent(Settings(session=Session()), "/tmp/a.json"))
    monkeypatch.setattr(session_module, "evaluate", fail)
    loaded, problem = load_settings()
    assert loaded.session is None and loaded.recent_files == ("/tmp/a.json",)  # the rest is kept
    assert problem is not None and "could not be computed" in problem and "division by zero" in problem
    assert settings_path().exists()  # the file itself is fine: nothing set aside


def test_unreadable_settings_of_every_kind_are_set_aside() -> None:
    import os

    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    for content in (
        "[" * 100_000,
        '{"recent_files": [' + "9" * 5000 + "]}",
        '{"show_published": NaN}',
        '{"window_geometry": 1e999}',
    ):
        path.write_text(content)
        loaded, problem = load_settings()
        assert loaded == Settings() and problem is not None and str(path) in problem and "set aside" in problem
    if hasattr(os, "mkfifo"):
        os.mkfifo(path)  # a FIFO would block a plain read forever
        loaded, problem = load_settings()
        assert problem is not None and "FIFO" in problem and not path.exists()
    assert len(list(path.parent.glob("settings.json.bad-*"))) == 5 if hasattr(os, "mkfifo") else 4
