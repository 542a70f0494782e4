"""The real window, offscreen, writing files: plots, the dashboard and CSV exported, scenarios saved and
opened, and failures to write or read that leave the window as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from advisor.session import load_session
from advisor.ui.main_window import MainWindow


def _not_blank(path: Path, w: int, h: int) -> None:
    img = QImage(str(path))
    assert (img.width(), img.height()) == (w, h)
    colours = {img.pixel(x, y) for x in range(0, w, 37) for y in range(0, h, 29)}
    assert len(colours) > 10


@pytest.mark.parametrize("axis", ["context", "params", "batch"])
def test_export_plot_png_at_slide_size(tmp_path: Path, window: MainWindow, axis: str) -> None:
    out = tmp_path / f"{axis}.png"
    assert window.export_plot(axis, out)
    _not_blank(out, 1920, 1080)


def test_export_dashboard_and_csv(tmp_path: Path, window: MainWindow) -> None:
    assert window.export_dashboard(tmp_path / "dash.png")
    _not_blank(tmp_path / "dash.png", 1920, 1080)
    assert window.export_csv("context", tmp_path / "c.csv")
    head, columns = (tmp_path / "c.csv").read_text().splitlines()[:2]
    assert head.startswith("# ") and window.store.session.scenario.model.name in head
    assert columns.startswith("context_tokens,decode_tok_s")


def test_export_to_unwritable_path_says_so(tmp_path: Path, window: MainWindow) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    target = blocker / "plot.png"  # its parent is a file: no one can write there, root included
    assert not window.export_plot("context", target)
    message = window.statusBar().currentMessage()
    assert str(target) in message and "cannot write" in message
    assert not window.export_csv("context", tmp_path / "bad\0name.csv")


def test_broken_scenario_file_leaves_window_as_it_was(tmp_path: Path, window: MainWindow) -> None:
    before = window.store.session
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"scenario": {"hardware": {"bandwidth_gbps": -1}}}))
    assert not window.open_file(bad)
    assert window.store.session == before
    assert "bandwidth_gbps" in window.statusBar().currentMessage()
    (tmp_path / "junk.json").write_text("{not json")
    assert not window.open_file(tmp_path / "junk.json")
    assert window.store.session == before


def test_save_and_open_round_trip(tmp_path: Path, window: MainWindow) -> None:
    window.store.update("workload", context=20000, streams=4)
    path = tmp_path / "s.json"
    assert window.save_to(path)
    saved = window.store.session
    window.store.update("workload", context=1024)
    assert window.open_file(path)
    assert window.store.session == saved == load_session(path)
    assert str(path) in window.settings.recent_files


def test_save_to_unwritable_path_says_so(tmp_path: Path, window: MainWindow) -> None:
    (tmp_path / "f").write_text("x")
    for bad in (tmp_path / "f" / "s.json", tmp_path / "bad\0name.json"):
        assert not window.save_to(bad)
        assert "cannot write" in window.statusBar().currentMessage()
    assert window.current_file is None


def test_screenshot_for_docs(tmp_path: Path, window: MainWindow) -> None:
    """The window renders to a real picture. With ADVISOR_DOCS_SCREENSHOT=1 it also refreshes the
    README's docs/screenshot.png (a person looks at it); otherwise a test run leaves the tree clean."""
    image = window.grab()
    path = tmp_path / "screenshot.png"
    assert image.save(str(path))
    shot = QImage(str(path))
    assert (shot.width(), shot.height()) == (window.width(), window.height())
    colours = {shot.pixel(x, y) for x in range(0, shot.width(), 37) for y in range(0, shot.height(), 37)}
    assert len(colours) > 20  # drawn panels and curves, not one blank fill
    if os.environ.get("ADVISOR_DOCS_SCREENSHOT") == "1":
        docs = Path(__file__).resolve().parents[2] / "docs"
        assert image.save(str(docs / "screenshot.png"))


def test_slide_plots_draw_wider_smooth_lines(window: MainWindow) -> None:
    from advisor.ui.export import slide_plot

    view = slide_plot("context", window.store.snapshot)
    plot = view.plot
    assert plot.line.opts["antialias"] and plot.line.pen.widthF() == pytest.approx(4.5)  # 3 px on screen
    assert not window.plots["context"].line.opts["antialias"]  # the window's own plot is untouched
    assert window.plots["context"].line.pen.widthF() == pytest.approx(3.0)
    view.deleteLater()
