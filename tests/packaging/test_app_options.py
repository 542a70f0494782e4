"""What the bundle's smoke run relies on: --version, and --screenshot/--export-plot that render and exit."""

from __future__ import annotations

import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_version_prints_the_project_version() -> None:
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    run = subprocess.run(
        [sys.executable, "-m", "advisor", "--version"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert run.returncode == 0
    assert run.stdout.strip() == f"llm-speed-advisor {want}"


def test_export_plot_and_screenshot(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from advisor.app import main

    shot, ctx, batch = tmp_path / "window.png", tmp_path / "context.png", tmp_path / "sub" / "batch.png"
    batch.parent.mkdir()  # an export folder must exist (a missing one is refused, not created)
    assert (
        main(["--screenshot", str(shot), "--export-plot", "context", str(ctx), "--export-plot", "batch", str(batch)])
        == 0
    )
    assert png_size(shot) == (1600, 1000)
    assert png_size(ctx) == png_size(batch) == (1920, 1080)
    assert qapp.windowIcon().availableSizes()  # the app icon from resources/


def test_screenshot_reports_when_the_window_painted(
    qapp, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """benchmarks/ui_latency.py times a cold start to this line, not to the PNG written."""
    import time

    from advisor.app import main

    monkeypatch.setenv("ADVISOR_START_T0", repr(time.time() - 100.0))
    assert main(["--screenshot", str(tmp_path / "w.png")]) == 0
    reported = float(capsys.readouterr().err.split("painted_s=")[1].split()[0])
    assert 100.0 < reported < 160.0


def test_export_plot_alone_exits_without_a_window(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from advisor.app import main

    out = tmp_path / "params.png"
    assert main(["--export-plot", "params", str(out)]) == 0
    assert png_size(out) == (1920, 1080)
    # the catalog's models are on it, as in the window's export (its legend lists them)
    from PySide6.QtGui import QColor, QImage

    from advisor.ui import theme

    img = QImage(str(out))
    diamond = QColor(theme.POINTS).rgb()
    assert sum(img.pixel(x, y) == diamond for x in range(0, 1920, 2) for y in range(0, 1080, 2)) > 50


def test_export_plot_rejects_an_unknown_axis(capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.app import parse_args

    with pytest.raises(SystemExit) as err:
        parse_args(["--export-plot", "speed", "x.png"])
    assert err.value.code == 2
    assert "invalid AXIS 'speed'" in capsys.readouterr().err


def test_export_plot_unwritable_fails(qapp, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from advisor.app import main

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["--export-plot", "context", str(blocker / "x.png")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_about_names_version_and_user_folders(_advisor_home: Path) -> None:
    import advisor
    from advisor.ui.main_window import about_text

    text = about_text()
    assert advisor.__version__ in text
    assert str(_advisor_home) in text  # settings and catalogs live in the user's folders, not the bundle
