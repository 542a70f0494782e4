"""The PyInstaller spec ships the catalogs and resources where the code looks for them, and stays lean."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

from tests.packaging.conftest import ROOT

SPEC = ROOT / "packaging" / "llm-speed-advisor.spec"


def test_spec_is_python_and_uses_bundle_config() -> None:
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    calls = {n.func.id: n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"} <= set(calls)
    kwargs = {k.arg: ast.unparse(k.value) for k in calls["Analysis"].keywords}
    assert "cfg.datas()" in kwargs["datas"] and "copy_metadata('llm-speed-advisor')" in kwargs["datas"]
    assert kwargs["excludes"] == "list(cfg.EXCLUDES)"
    assert kwargs["hiddenimports"] == "list(cfg.HIDDEN_IMPORTS)"
    exe = {k.arg: ast.unparse(k.value) for k in calls["EXE"].keywords}
    assert exe["exclude_binaries"] == "True"  # one folder, not one file
    assert "cfg.ICNS" in exe["icon"] and "cfg.ICO" in exe["icon"]


def test_catalogs_and_resources_are_data_where_the_wheel_puts_them(cfg: ModuleType) -> None:
    assert ("catalogs", "advisor/_catalogs") in cfg.DATAS
    assert ("resources", "advisor/_resources") in cfg.DATAS
    for src, _dest in cfg.datas():
        assert Path(src).is_dir()
    # the wheel maps the same folders to the same places
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for src, dest in cfg.DATAS:
        assert f'"{src}" = "{dest}"' in pyproject


def test_the_code_looks_where_the_bundle_puts_them() -> None:
    loader = (ROOT / "advisor" / "catalog" / "loader.py").read_text(encoding="utf-8")
    app = (ROOT / "advisor" / "app.py").read_text(encoding="utf-8")
    assert '"_catalogs"' in loader and '"_resources"' in app


def test_only_the_qt_modules_the_app_uses(cfg: ModuleType) -> None:
    for module in (
        "PySide6.QtWebEngineCore",
        "PySide6.QtWebEngineWidgets",
        "PySide6.Qt3DCore",
        "PySide6.QtQml",
        "PySide6.QtQuick",
        "PySide6.QtMultimedia",
        "PySide6.QtNetwork",
        "PySide6.QtTest",
    ):
        assert module in cfg.EXCLUDES
    for used in ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtSvg", "PySide6.QtOpenGL"):
        assert used not in cfg.EXCLUDES
    for tool in ("pytest", "hypothesis", "tests", "benchmarks", "PyInstaller"):
        assert tool in cfg.EXCLUDES


def test_pyqtgraph_needs_qtopengl(cfg: ModuleType) -> None:
    """pyqtgraph imports QtOpenGL through importlib at import time: the spec must name it."""
    source = (Path(__import__("pyqtgraph").__file__).parent / "Qt" / "OpenGLHelpers.py").read_text(encoding="utf-8")
    if "QtOpenGL" in source:
        assert {"PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets"} <= set(cfg.HIDDEN_IMPORTS)


def test_prune_keeps_what_the_app_needs(cfg: ModuleType) -> None:
    keep = [
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "PySide6/Qt/plugins/platforms/libqwayland.so",
        "PySide6/Qt/plugins/platforms/libqoffscreen.so",
        "PySide6/Qt/plugins/imageformats/libqsvg.so",
        "PySide6/Qt/plugins/imageformats/libqico.so",
        "PySide6/Qt/lib/libQt6Widgets.so.6",
        "advisor/_catalogs/hardware/nvidia.toml",
    ]
    drop = [
        "PySide6/Qt/translations/qtbase_de.qm",
        "PySide6/Qt/plugins/platforms/libqvnc.so",
        "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
        "PySide6/Qt/plugins/tls/libqopensslbackend.so",
    ]
    toc = [(d, "/src/" + d, "BINARY") for d in keep + drop]
    assert [e[0] for e in cfg.prune(toc)] == keep
    assert cfg.pruned("PySide6\\Qt\\translations\\qtbase_fr.qm")  # Windows separators


def test_version_comes_from_pyproject(cfg: ModuleType) -> None:
    import tomllib

    assert cfg.version() == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_build_extra_declares_pyinstaller() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(d.lower().startswith("pyinstaller") for d in extras["build"])


def test_files_the_spec_names_exist(cfg: ModuleType) -> None:
    for rel in (cfg.ENTRY, cfg.ICNS, cfg.ICO, cfg.DESKTOP_FILE, cfg.LINUX_DESKTOP_INSTALLER):
        assert (ROOT / rel).is_file(), rel
