"""What goes into the standalone app: read by llm-speed-advisor.spec (PyInstaller), by packaging/build.py
and by tests/packaging. Plain data and one filter, no PyInstaller imports, so the tests can load it.

Do not add an __init__.py to packaging/: it would shadow the `packaging` library that pip, pytest
and PyInstaller import."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_ID = "llm-speed-advisor"  # executable, folder, .desktop file and icon name (advisor.app.APP_ID)
APP_NAME = "LLM speed advisor"  # macOS .app name and menu title
BUNDLE_IDENTIFIER = "io.github.llm-speed-advisor"
ICON_DIR = "resources/icons"
ICNS = f"{ICON_DIR}/{APP_ID}.icns"
ICO = f"{ICON_DIR}/{APP_ID}.ico"
ENTRY = "packaging/launcher.py"
DESKTOP_FILE = f"resources/{APP_ID}.desktop"
LINUX_DESKTOP_INSTALLER = "packaging/linux/install-desktop-entry.sh"

# (source in the repo, destination in the bundle): the same places the wheel puts them (pyproject's
# force-include), so advisor.catalog.loader.catalog_root() and advisor.app.resource_root() find them
# through importlib.resources in the frozen app exactly as in an installed one.
DATAS: tuple[tuple[str, str], ...] = (
    ("catalogs", "advisor/_catalogs"),
    ("resources", "advisor/_resources"),
)

# The app imports PySide6 QtCore/QtGui/QtWidgets (and pyqtgraph QtSvg, QtOpenGL). pyqtgraph and gguf
# reference much more, optionally or inside functions the app never calls; keep all of that out.
EXCLUDES: tuple[str, ...] = (
    # Qt modules the app does not use
    *(
        f"PySide6.{m}"
        for m in (
            "Qt3DAnimation",
            "Qt3DCore",
            "Qt3DExtras",
            "Qt3DInput",
            "Qt3DLogic",
            "Qt3DRender",
            "QtBluetooth",
            "QtCharts",
            "QtConcurrent",
            "QtDataVisualization",
            "QtDBus",
            "QtDesigner",
            "QtGraphs",
            "QtGraphsWidgets",
            "QtHelp",
            "QtHttpServer",
            "QtLocation",
            "QtMultimedia",
            "QtMultimediaWidgets",
            "QtNetwork",
            "QtNetworkAuth",
            "QtNfc",
            "QtPdf",
            "QtPdfWidgets",
            "QtPositioning",
            "QtPrintSupport",
            "QtQml",
            "QtQuick",
            "QtQuick3D",
            "QtQuickControls2",
            "QtQuickTest",
            "QtQuickWidgets",
            "QtRemoteObjects",
            "QtScxml",
            "QtSensors",
            "QtSerialBus",
            "QtSerialPort",
            "QtSpatialAudio",
            "QtSql",
            "QtStateMachine",
            "QtSvgWidgets",
            "QtTest",
            "QtTextToSpeech",
            "QtUiTools",
            "QtWebChannel",
            "QtWebEngineCore",
            "QtWebEngineQuick",
            "QtWebEngineWidgets",
            "QtWebSockets",
            "QtWebView",
            "QtXml",
        )
    ),
    # other Qt bindings pyqtgraph would try
    "PyQt5",
    "PyQt6",
    "PySide2",
    # pyqtgraph parts the app never shows
    "pyqtgraph.examples",
    "pyqtgraph.opengl",
    "pyqtgraph.jupyter",
    "pyqtgraph.canvas",
    "pyqtgraph.flowchart",
    "OpenGL",
    "jupyter_rfb",
    "matplotlib",
    "scipy",
    "h5py",
    "cupy",
    "numba",
    "colorcet",
    "pandas",
    # gguf's optional extras (network downloads, tokenizers, progress bars)
    "requests",
    "urllib3",
    "charset_normalizer",
    "idna",
    "certifi",
    "tqdm",
    "sentencepiece",
    "transformers",
    "mistral_common",
    "safetensors",
    "torch",
    # development and test tools
    "pytest",
    "_pytest",
    "pytestqt",
    "hypothesis",
    "ruff",
    "hatchling",
    "PyInstaller",
    "pip",
    "setuptools",
    # mypy: pydantic's hook collects pydantic.mypy, the type checker's plugin, which imports all of mypy
    "pydantic.mypy",
    "mypy",
    "mypyc",
    "librt",
    "ast_serialize",
    "pkg_resources",
    "_distutils_hack",
    "tkinter",
    "_tkinter",
    "IPython",
    "tests",
    "benchmarks",
    # TLS: nothing in the app talks to the network (the stdlib users import it optionally)
    "ssl",
    "_ssl",
)

# pyqtgraph (0.13/0.14) imports these with importlib.import_module(f"{QT_LIB}.QtOpenGL") at import
# time, which PyInstaller cannot see: without them `import pyqtgraph` fails in the bundle.
HIDDEN_IMPORTS: tuple[str, ...] = ("PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets")

# Files PyInstaller's Qt hooks collect that this app does not need: Qt translations other than qtbase
# (the app is English), Qt plugins for things it does not do (network info, TLS, SQL, printing,
# input methods, Wayland compositors, EGL device integrations for embedded boards).
PRUNE_GLOBS: tuple[str, ...] = (
    "PySide6/Qt/translations/qt_help_*",
    "PySide6/Qt/translations/assistant_*",
    "PySide6/Qt/translations/designer_*",
    "PySide6/Qt/translations/linguist_*",
    "PySide6/Qt/translations/qtwebengine_*",
    "PySide6/Qt/translations/qtmultimedia_*",
    "PySide6/Qt/translations/qtdeclarative_*",
    "PySide6/Qt/translations/qtserialport_*",
    "PySide6/Qt/translations/qtwebsockets_*",
    "PySide6/Qt/translations/qtconnectivity_*",
    "PySide6/Qt/translations/qtlocation_*",
    "PySide6/Qt/plugins/networkinformation/*",
    "PySide6/Qt/plugins/tls/*",
    "PySide6/Qt/plugins/sqldrivers/*",
    "PySide6/Qt/plugins/printsupport/*",
    "PySide6/Qt/plugins/designer/*",
    "PySide6/Qt/plugins/qmltooling/*",
    "PySide6/Qt/plugins/qmllint/*",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/wayland-graphics-integration-server/*",
    # no QTranslator is installed: the app is English, so Qt's own translations are never loaded
    "PySide6/Qt/translations/*",
    # Linux: keep the desktop platforms (xcb, wayland) and the headless ones (offscreen, minimal); drop
    # embedded-board and VNC platforms, evdev/tuio input, and image formats the app never reads
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/imageformats/libqtiff.*",
    "PySide6/Qt/plugins/imageformats/libqwebp.*",
    "PySide6/Qt/plugins/imageformats/libqtga.*",
    "PySide6/Qt/plugins/imageformats/libqwbmp.*",
    "PySide6/Qt/plugins/imageformats/qtiff.dll",
    "PySide6/Qt/plugins/imageformats/qwebp.dll",
    "PySide6/Qt/plugins/imageformats/qtga.dll",
    "PySide6/Qt/plugins/imageformats/qwbmp.dll",
    # the GTK3 theme plugin would load the user's GTK against the build machine's bundled glib/cairo/
    # pango, a classic crash; Qt's Fusion style and the xdg-desktop-portal file dialogs remain
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
)


def version() -> str:
    """The version in pyproject.toml: the one the bundle must report."""
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def datas() -> list[tuple[str, str]]:
    """PyInstaller's (source, destination folder) pairs, sources as absolute paths."""
    return [(str(ROOT / src), dest) for src, dest in DATAS]


def pruned(dest: str) -> bool:
    dest = dest.replace("\\", "/")
    return any(fnmatch.fnmatch(dest, pattern) for pattern in PRUNE_GLOBS)


def prune(toc: list) -> list:  # PyInstaller TOC: (dest_name, src_name, typecode) tuples
    return [entry for entry in toc if not pruned(entry[0])]


def _ldd(path: str) -> set[str]:
    """Names of every shared library `path` loads, transitively (ldd), found or not."""
    import subprocess

    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=False).stdout
    return {line.split()[0].rsplit("/", 1)[-1] for line in out.splitlines() if line.strip()}


def linux_orphans(binaries: list) -> list:
    """Shared libraries collected only for something pruned above (the GTK theme's cairo/pango, the VNC
    platform's QtNetwork, eglfs's libraries): not needed by any kept Python extension, Qt plugin or
    the interpreter. Linux only; elsewhere nothing is dropped."""
    import shutil
    import sys

    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        return []

    def is_root(dest: str, typecode: str) -> bool:
        return typecode == "EXTENSION" or "/plugins/" in dest or dest.rsplit("/", 1)[-1].startswith("libpython")

    needed: set[str] = set()
    for dest, src, typecode in binaries:
        if is_root(dest, typecode):
            needed |= _ldd(src)
    return [e for e in binaries if not is_root(e[0], e[2]) and e[0].rsplit("/", 1)[-1] not in needed]


def strip_debug(folder: Path) -> int:
    """Linux: drop debug sections from the interpreter and its stdlib extensions (a pyenv-built
    libpython carries ~18 MB of them). Only these: stripping the wheels' auditwheel-patched
    libraries can break them. Returns the bytes saved; a no-op without binutils' `strip`."""
    import shutil
    import subprocess
    import sys

    strip = shutil.which("strip")
    if not sys.platform.startswith("linux") or strip is None:
        return 0
    files = [*folder.glob("_internal/libpython3*.so*"), *folder.glob("_internal/python3*/lib-dynload/*.so")]
    before = sum(f.stat().st_size for f in files)
    for f in files:
        subprocess.run([strip, "--strip-debug", str(f)], check=True)
    return before - sum(f.stat().st_size for f in files)
