#!/usr/bin/env python3
"""Build the standalone app with PyInstaller, check it, and smoke-run it.

    python3 dev.py bundle                  # the same as the next line
    python3 packaging/build.py             # build dist/, check its contents, smoke-run it offscreen
    python3 packaging/build.py --archive   # ... and pack it for download (.tar.gz / .zip) in dist/
    python3 packaging/build.py --no-smoke  # build only

Only python3 >= 3.11 is needed: the build runs in the repo's .venv, which dev.py creates and fills
from pyproject.toml (the `build` extra brings PyInstaller). PyInstaller cannot cross-compile: build
the Linux bundle on Linux, the Windows one on Windows, the macOS .app on a Mac.

    Linux, Windows  dist/llm-speed-advisor/llm-speed-advisor[.exe]  (one folder: ship the folder)
    macOS           dist/LLM speed advisor.app

The smoke run starts the built app offscreen with a throwaway ADVISOR_HOME, has it render the main
window (--screenshot) and export a plot (--export-plot), and requires: exit 0, both PNGs at their
sizes, pixel-identical to the same run from the source tree, and nothing written inside the bundle.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "llm-speed-advisor.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
EXTRAS = "[test,dev,build]"

sys.path.insert(0, str(HERE))
import bundle_config as cfg  # noqa: E402

IS_MAC = sys.platform == "darwin"
IS_WIN = sys.platform == "win32"


# --- the environment --------------------------------------------------------------------------
def in_repo_venv() -> bool:
    venv = ROOT / ".venv"
    return venv.exists() and Path(sys.prefix).resolve() == venv.resolve()


def ensure_build_env(argv: list[str]) -> int | None:
    """Set .venv up (or bring it up to date) through dev.py; if this is not .venv's Python, rerun there."""
    sys.path.insert(0, str(ROOT))
    import dev  # the repo's dev.py: creates .venv and installs pyproject.toml's extras

    dev.ensure_venv(EXTRAS)  # a no-op when up to date
    if in_repo_venv():
        return None
    return subprocess.call([str(dev.PY), str(Path(__file__).resolve()), *argv], cwd=ROOT)


# --- where the build lands --------------------------------------------------------------------
def bundle_dir() -> Path:
    """What a user gets: the .app on macOS, the one folder elsewhere."""
    return DIST / f"{cfg.APP_NAME}.app" if IS_MAC else DIST / cfg.APP_ID


def executable() -> Path:
    if IS_MAC:
        return bundle_dir() / "Contents" / "MacOS" / cfg.APP_ID
    return bundle_dir() / (f"{cfg.APP_ID}.exe" if IS_WIN else cfg.APP_ID)


def internal_dir() -> Path:
    """Where the Python side (advisor/, PySide6/, the data) lives inside the bundle."""
    if IS_MAC:
        return bundle_dir() / "Contents" / "Resources"
    return bundle_dir() / "_internal"


def size_mb(path: Path) -> float:
    total = sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() or f.is_symlink())
    return total / 1e6


# --- build ------------------------------------------------------------------------------------
def run_pyinstaller(clean: bool) -> float:
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        str(SPEC),
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(DIST),
        "--workpath",
        str(WORK),
    ]
    if clean:
        cmd.append("--clean")
    print("$", " ".join(cmd), flush=True)
    start = time.perf_counter()
    subprocess.check_call(cmd, cwd=ROOT)
    return time.perf_counter() - start


def check_contents() -> list[str]:
    """The bundle has the app's data where importlib.resources looks, and none of what it must not."""
    problems: list[str] = []
    inside = internal_dir()
    if not executable().is_file():
        problems.append(f"no executable at {executable()}")
    for src, dest in cfg.DATAS:
        for f in (ROOT / src).rglob("*"):
            if f.is_file() and not (inside / dest / f.relative_to(ROOT / src)).is_file():
                problems.append(f"missing {dest}/{f.relative_to(ROOT / src).as_posix()}")
    if not any(inside.glob("llm_speed_advisor-*.dist-info")):
        problems.append("missing llm_speed_advisor-*.dist-info (advisor.__version__ reads it)")
    # only the Qt modules the app uses, and no development tools
    qt_banned = (
        "WebEngine",
        "Qt3D",
        "Qt63D",
        "Qml",
        "Quick",
        "Multimedia",
        "QtNetwork",
        "Qt6Network",
        "Pdf",
        "Charts",
        "Designer",
        "QtTest",
        "Qt6Test",
    )
    top_banned = {
        "pytest",
        "_pytest",
        "hypothesis",
        "pytestqt",
        "PyInstaller",
        "tests",
        "benchmarks",
        "setuptools",
        "mypy",
        "mypyc",
    }
    for p in inside.rglob("*"):
        rel = p.relative_to(inside)
        if rel.parts[0].split(".")[0] in top_banned:
            problems.append(f"should not be bundled: {rel.as_posix()}")
        elif rel.parts[0] == "PySide6" and any(b in p.name for b in qt_banned):
            problems.append(f"a Qt module the app does not use: {rel.as_posix()}")
    return problems


def unbundled_x11_libraries() -> list[str]:
    """Linux: libraries Qt's X11 platform plugin needs that the build machine did not have to bundle
    (so users' systems must provide them). A note, not a failure."""
    plugin = internal_dir() / "PySide6" / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not sys.platform.startswith("linux") or not plugin.is_file() or shutil.which("ldd") is None:
        return []
    env = dict(os.environ, LD_LIBRARY_PATH=f"{internal_dir()}:{internal_dir() / 'PySide6' / 'Qt' / 'lib'}")
    out = subprocess.run(["ldd", str(plugin)], env=env, capture_output=True, text=True, check=False).stdout
    return sorted({line.split()[0] for line in out.splitlines() if "not found" in line})


# --- smoke ------------------------------------------------------------------------------------
def _png_size(path: Path) -> tuple[int, int] | None:
    data = path.read_bytes()[:24] if path.is_file() else b""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _tree_state(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in folder.rglob("*")}


def smoke_env(home: Path) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ADVISOR_HOME=str(home))
    env.pop("PYTHONPATH", None)
    return env


def _same_pixels(a: Path, b: Path) -> bool:
    if a.read_bytes() == b.read_bytes():
        return True
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QImage

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    ia, ib = QImage(str(a)), QImage(str(b))
    return ia.size() == ib.size() and ia.convertToFormat(QImage.Format.Format_ARGB32) == ib.convertToFormat(
        QImage.Format.Format_ARGB32
    )


def smoke() -> list[str]:
    """Start the built app offscreen: --version, then --screenshot plus --export-plot."""
    problems: list[str] = []
    exe = executable()
    before = _tree_state(bundle_dir())
    with tempfile.TemporaryDirectory(prefix="advisor-smoke-") as tmp:
        t = Path(tmp)
        env = smoke_env(t / "home")
        if not IS_WIN:  # a windowed .exe has no stdout to print to
            out = subprocess.run([str(exe), "--version"], env=env, capture_output=True, text=True, timeout=120)
            if out.returncode != 0 or cfg.version() not in out.stdout:
                problems.append(
                    f"--version: exit {out.returncode}, printed {out.stdout.strip()!r}, want {cfg.version()}"
                )
        args = ["--screenshot", str(t / "window.png"), "--export-plot", "context", str(t / "context.png")]
        start = time.perf_counter()
        run = subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=300)
        took = time.perf_counter() - start
        if run.returncode != 0:
            problems.append(f"--screenshot/--export-plot: exit {run.returncode}\n{run.stderr[-3000:]}")
        for name, want in (("window.png", (1600, 1000)), ("context.png", (1920, 1080))):
            got = _png_size(t / name)
            if got != want:
                problems.append(f"{name}: {'not a PNG' if got is None else got}, want {want[0]}x{want[1]}")
        if not problems:  # the same run from the source tree must draw the very same pixels
            ref = t / "ref"
            ref.mkdir()
            src = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "advisor",
                    "--screenshot",
                    str(ref / "window.png"),
                    "--export-plot",
                    "context",
                    str(ref / "context.png"),
                ],
                env=smoke_env(t / "home-src"),
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if src.returncode == 0:
                for name in ("window.png", "context.png"):
                    if not _same_pixels(t / name, ref / name):
                        problems.append(
                            f"{name}: the bundle draws different pixels from the source tree "
                            "(did the source change since the build?)"
                        )
            else:
                print(f"note: the source-tree reference run failed (exit {src.returncode}); pixel check skipped")
        print(f"smoke: --screenshot + --export-plot took {took:.2f} s", flush=True)
    after = _tree_state(bundle_dir())
    if after != before:
        changed = sorted(set(after) ^ set(before)) or sorted(k for k in after if after[k] != before.get(k))
        problems.append("the app wrote inside the bundle: " + ", ".join(changed[:10]))
    return problems


# --- archive ----------------------------------------------------------------------------------
def archive() -> Path:
    machine = platform.machine().lower().replace("amd64", "x86_64")
    osname = "macos" if IS_MAC else "windows" if IS_WIN else "linux"
    base = DIST / f"{cfg.APP_ID}-{cfg.version()}-{osname}-{machine}"
    if IS_MAC:  # ditto keeps the .app's symlinks and code signature
        out = base.with_suffix(".zip")
        subprocess.check_call(["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", str(bundle_dir()), str(out)])
    elif IS_WIN:
        out = Path(shutil.make_archive(str(base), "zip", DIST, cfg.APP_ID))
    else:
        out = base.with_name(base.name + ".tar.gz")
        with tarfile.open(out, "w:gz", compresslevel=6) as tar:
            tar.add(bundle_dir(), arcname=cfg.APP_ID)
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-smoke", action="store_true", help="build and check, but do not start the app")
    p.add_argument("--no-clean", action="store_true", help="reuse PyInstaller's cache from the last build")
    p.add_argument("--archive", action="store_true", help="also pack the bundle for download in dist/")
    args = p.parse_args(argv)

    rerun = ensure_build_env(argv)
    if rerun is not None:
        return rerun

    from importlib.metadata import version

    if version("llm-speed-advisor") != cfg.version():
        print(
            f"error: .venv has llm-speed-advisor {version('llm-speed-advisor')} installed but pyproject.toml "
            f"says {cfg.version()}; run `python3 dev.py bundle` to reinstall",
            file=sys.stderr,
        )
        return 1

    build_s = run_pyinstaller(clean=not args.no_clean)
    problems = check_contents()
    mb = size_mb(bundle_dir())
    print(f"built {bundle_dir().relative_to(ROOT)}: {mb:.1f} MB in {build_s:.0f} s", flush=True)
    missing = unbundled_x11_libraries()
    if missing:
        print(f"note: not bundled (not on this machine), users' X11 systems must provide: {', '.join(missing)}")
    if not problems and not args.no_smoke:
        problems += smoke()
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    if args.archive:
        out = archive()
        print(f"archive {out.relative_to(ROOT)}: {out.stat().st_size / 1e6:.1f} MB")
    print(f"build_s={build_s:.1f} bundle_mb={mb:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
