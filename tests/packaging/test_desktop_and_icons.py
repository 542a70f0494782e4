"""The Linux desktop entry is valid, and the icon exists at every size each platform wants."""

from __future__ import annotations

import configparser
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT, load

DESKTOP = ROOT / "resources" / "llm-speed-advisor.desktop"
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    assert parser.sections() == ["Desktop Entry"]
    return dict(parser["Desktop Entry"])


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_desktop_entry_keys() -> None:
    e = desktop_entry(DESKTOP)
    assert e["Type"] == "Application"
    assert e["Name"] == "LLM speed advisor"
    assert e["Exec"].split()[0] == "llm-speed-advisor"  # the wheel's gui-script and the bundle's executable
    assert e["Icon"] == "llm-speed-advisor"  # a theme name: installed into hicolor at every size
    assert e["Terminal"] == "false"
    assert e["Categories"].endswith(";") and e["Keywords"].endswith(";")
    assert e["StartupWMClass"] == "llm-speed-advisor"


def test_desktop_entry_matches_the_app() -> None:
    from advisor.app import APP_ID

    assert DESKTOP.stem == APP_ID  # QApplication.setDesktopFileName(APP_ID) ties windows to this file


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils not installed")
def test_desktop_file_validate() -> None:
    run = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert run.returncode == 0 and not run.stdout.strip(), run.stdout


@pytest.mark.parametrize("size", SIZES)
def test_png_icon_at_every_size(size: int) -> None:
    assert png_size((ICONS / f"llm-speed-advisor-{size}.png").read_bytes()) == (size, size)


def test_windows_ico_has_every_size() -> None:
    data = (ICONS / "llm-speed-advisor.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = set()
    for i in range(count):
        w, h, _c, _r, _planes, _bpp, length, offset = struct.unpack("<BBBBHHII", data[6 + 16 * i : 22 + 16 * i])
        w, h = w or 256, h or 256
        assert png_size(data[offset : offset + length]) == (w, h)
        sizes.add(w)
    assert {16, 24, 32, 48, 256} <= sizes


def test_macos_icns_has_every_size() -> None:
    data = (ICONS / "llm-speed-advisor.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    found: dict[bytes, tuple[int, int]] = {}
    pos = 8
    while pos < len(data):
        kind, length = data[pos : pos + 4], struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        found[kind] = png_size(data[pos + 8 : pos + length])
        pos += length
    assert pos == len(data)
    want = {
        b"icp4": 16,
        b"icp5": 32,
        b"ic07": 128,
        b"ic08": 256,
        b"ic09": 512,
        b"ic10": 1024,
        b"ic11": 32,
        b"ic12": 64,
        b"ic13": 256,
        b"ic14": 512,
    }
    for kind, n in want.items():
        assert found[kind] == (n, n), kind


def test_icon_script_draws_every_size(qapp) -> None:  # type: ignore[no-untyped-def]
    icons = load(ROOT / "packaging" / "make_icons.py", "make_icons")
    for n in (16, 64):
        img = icons.draw(n)
        assert (img.width(), img.height()) == (n, n)
        assert img.pixelColor(0, 0).alpha() == 0  # transparent corners: a rounded square
        assert img.pixelColor(n // 2, n // 2).alpha() == 255


def test_window_icon_loads_every_size(qapp) -> None:  # type: ignore[no-untyped-def]
    from advisor.app import ICON_SIZES, app_icon

    assert sorted(s.width() for s in app_icon().availableSizes()) == sorted(ICON_SIZES) == list(SIZES)


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("sh") is None, reason="Linux shell script")
def test_install_desktop_entry_script(tmp_path: Path) -> None:
    """The script shipped in the Linux bundle adds a menu entry pointing at that folder's executable."""
    bundle = tmp_path / "my apps" / "llm-speed-advisor"  # a space in the path: Exec must quote it
    (bundle / "_internal" / "advisor").mkdir(parents=True)
    (bundle / "_internal" / "advisor" / "_resources").symlink_to(ROOT / "resources")
    exe = bundle / "llm-speed-advisor"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    script = bundle / "install-desktop-entry.sh"
    shutil.copy2(ROOT / "packaging" / "linux" / "install-desktop-entry.sh", script)
    data = tmp_path / "data"
    env = dict(os.environ, XDG_DATA_HOME=str(data))
    subprocess.run(["sh", str(script)], env=env, check=True, capture_output=True)
    entry = data / "applications" / "llm-speed-advisor.desktop"
    e = desktop_entry(entry)
    assert e["Exec"] == f'"{exe}"' and e["TryExec"] == str(exe)
    assert e["Icon"] == "llm-speed-advisor"
    for n in SIZES:
        assert (data / "icons" / "hicolor" / f"{n}x{n}" / "apps" / "llm-speed-advisor.png").is_file()
    if shutil.which("desktop-file-validate"):
        run = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout
    subprocess.run(["sh", str(script), "--uninstall"], env=env, check=True, capture_output=True)
    assert not entry.exists()
