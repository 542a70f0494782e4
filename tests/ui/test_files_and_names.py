"""Files as a person meets them: dialogs open in the last folder with a name that says the scenario,
the title marks unsaved changes, a missing export folder is refused, exports keep the umask's mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from advisor.cli import main
from advisor.ui.main_window import MainWindow
from advisor.ui.window_files import context_text, suggested_stem


def test_suggested_names_say_hardware_model_quant_and_context(window: MainWindow) -> None:
    s = window.store.session
    stem = suggested_stem(s)
    assert stem.startswith(f"{s.hardware_id}_{s.model_id}_{s.quant_id}_")
    assert stem.endswith(f"{context_text(s.scenario.workload.context)}-ctx")
    assert (context_text(16384), context_text(4000)) == ("16k", "4000")
    window.store.update("hardware", "Two cards", devices=2)
    assert suggested_stem(window.store.session).startswith(f"2x-{s.hardware_id}_")


def test_dialogs_open_in_the_last_folder_with_that_name(tmp_path: Path, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def fake_save(_parent, _title, start, _filter):  # type: ignore[no-untyped-def]
        asked.append(start)
        return str(tmp_path / "sub" / "x.png"), ""

    (tmp_path / "sub").mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_save))
    assert window.export_plot("context")
    assert Path(asked[0]).name == f"tok-s-vs-context_{suggested_stem(window.store.session)}.png"
    window.save_as()  # the next dialog opens where the last one was answered
    assert Path(asked[1]).parent == tmp_path / "sub"
    assert Path(asked[1]).name == f"{suggested_stem(window.store.session)}.json"


def test_the_title_marks_unsaved_changes(tmp_path: Path, window: MainWindow) -> None:
    assert not window.isWindowModified() and "[*]" in window.windowTitle()
    window.store.update("workload", "Edit context", context=8192)
    assert window.isWindowModified()
    assert window.save_to(tmp_path / "s.json")
    assert not window.isWindowModified() and window.windowTitle().startswith("s.json")
    window.store.update("workload", "Edit context", context=2048)
    assert window.isWindowModified()
    window.store.undo()
    assert not window.isWindowModified()


def test_a_missing_export_folder_is_refused(tmp_path: Path, window: MainWindow, capsys) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "no-such-folder" / "plot.png"
    assert not window.export_plot("context", target)
    assert "does not exist" in window.statusBar().currentMessage() and not target.parent.exists()
    assert main(["plot", "--axis", "context", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and str(target.parent) in err and not target.parent.exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_an_exported_png_has_the_umask_mode(tmp_path: Path, window: MainWindow) -> None:
    old = os.umask(0o022)
    try:
        out = tmp_path / "slide.png"
        assert window.export_plot("context", out)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
