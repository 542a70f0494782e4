"""Wiring: settings, catalogs, QApplication and the main window. The only module that knows all of them."""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, cast

import advisor
from advisor.catalog.loader import load_catalog
from advisor.core.curves import AXES, Axis
from advisor.defaults import default_session
from advisor.paths import user_catalog_dir
from advisor.session import SessionFileError, load_session
from advisor.settings import load_settings, save_settings, settings_path

SCREENSHOT_SIZE = (1600, 1000)
APP_ID = "llm-speed-advisor"  # executable, .desktop file and icon name
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def resource_root() -> Traversable:
    """Shipped resources (icons, .desktop): inside the installed package or the frozen bundle
    (advisor/_resources), or the repo's resources/ when run from source."""
    packaged = resources.files("advisor") / "_resources"
    if packaged.is_dir():
        return packaged
    return resources.files("advisor").joinpath("..", "resources")  # type: ignore[return-value]


def app_icon() -> Any:  # a QIcon; PySide6 is imported lazily so --version and --help stay fast
    """The window icon at every shipped size (read as bytes: works for any Traversable)."""
    from PySide6.QtGui import QIcon, QPixmap

    icon = QIcon()
    folder = resource_root() / "icons"
    for n in ICON_SIZES:
        f = folder / f"{APP_ID}-{n}.png"
        pixmap = QPixmap()
        if f.is_file() and pixmap.loadFromData(f.read_bytes(), "PNG"):
            icon.addPixmap(pixmap)
    return icon


class _VersionAction(argparse.Action):
    """--version, looked up only when asked (see advisor.__getattr__)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        print(f"{parser.prog} {advisor.__version__}")  # stdout, as argparse's own version action
        parser.exit()


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="llm-speed-advisor", description="LLM decode-speed advisor (desktop app)")
    p.add_argument("--version", action=_VersionAction, help="show the version and exit")
    p.add_argument("--screenshot", type=Path, metavar="FILE.png", help="render the main window to FILE.png and exit")
    p.add_argument("--scenario", type=Path, metavar="FILE.json", help="open this scenario instead of the last one")
    p.add_argument(
        "--export-plot",
        nargs=2,
        metavar=("AXIS", "FILE.png"),
        action="append",
        default=[],
        help=f"export the AXIS plot ({', '.join(AXES)}) as a slide-size PNG and exit; repeatable",
    )
    args = p.parse_args(argv)
    for axis, _file in args.export_plot:
        if axis not in AXES:
            p.error(f"argument --export-plot: invalid AXIS {axis!r} (choose from {', '.join(AXES)})")
    args.export_plot = [(axis, Path(file)) for axis, file in args.export_plot]  # [(Axis, Path)]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from advisor.ui.importer import import_model_dialog
    from advisor.ui.main_window import MainWindow
    from advisor.ui.store import Store

    app = cast(QApplication, QApplication.instance() or QApplication([sys.argv[0]]))
    app.setApplicationName("LLM speed advisor")
    app.setDesktopFileName(APP_ID)  # Wayland: match the window to llm-speed-advisor.desktop and its icon
    app.setWindowIcon(app_icon())
    catalog = load_catalog(user_catalog_dir())
    settings, settings_problem = load_settings()
    problems: list[str] = [settings_problem] if settings_problem else []
    problems += list(catalog.problems)

    headless = args.screenshot is not None or bool(args.export_plot)
    session = settings.session or default_session(catalog)
    first_start = settings.session is None and not settings_path().exists()
    if args.scenario is not None:
        try:
            session = load_session(args.scenario)
        except SessionFileError as err:
            if headless:
                print(f"llm-speed-advisor: error: {err}", file=sys.stderr)
                return 2
            problems.append(str(err))
    elif headless:
        session = default_session(catalog)
    unrecognised: str | None = None  # first start on a machine detection did not place: ask
    if first_start and not headless and args.scenario is None:
        # First start: begin on this machine when it matches a catalog entry well; otherwise ask.
        from advisor.detect import detect, detected_session

        detection = detect(catalog)
        found = detected_session(catalog, detection=detection) if detection.confidence in ("high", "medium") else None
        if found is not None:
            session = found
        else:
            unrecognised = detection.found

    store = Store(catalog, session)
    if store.problem:  # the restored or opened session could not be computed: the window shows the default
        problems.append(store.problem)
    window = MainWindow(store, settings, importer=import_model_dialog)
    if not headless:
        from advisor.ui.screen import ScreenFit

        app.installEventFilter(ScreenFit(app))  # every window and dialog opens inside the screen
        window.restore_layout(settings.window_geometry, settings.window_state)
    if args.scenario is not None and not headless and not problems:
        window.current_file = args.scenario
        window.update_title()
    if headless:
        window.resize(*SCREENSHOT_SIZE)
    elif not settings.window_geometry:
        window.fit_to_screen(SCREENSHOT_SIZE, arrange=not settings.window_state)

    if headless:
        return _render_and_exit(app, window, args.screenshot, args.export_plot)

    window.show()
    QTimer.singleShot(0, report_painted)
    # The version reads package metadata (about 0.08 s of imports): after the window is up.
    QTimer.singleShot(0, lambda: app.setApplicationVersion(advisor.__version__))
    if problems:
        QMessageBox.warning(window, "Some files could not be read", "\n".join(problems[:20]))
    if unrecognised is not None:
        from advisor.ui.hardware_picker import ask_for_hardware

        QTimer.singleShot(0, window, lambda: ask_for_hardware(window, unrecognised))  # dropped if the window goes
    code = app.exec()
    try:
        save_settings(getattr(window, "closed_settings", window.settings))
    except OSError as err:  # an unwritable config folder must not turn a normal quit into a traceback
        print(f"llm-speed-advisor: could not save settings: {err}", file=sys.stderr)
    return code


def report_painted() -> None:
    """benchmarks/ui_latency.py sets ADVISOR_START_T0 (a time.time() taken just before it started this
    process) and reads how long the window took to paint, apart from writing the PNG and exiting."""
    t0 = os.environ.get("ADVISOR_START_T0")
    if t0:
        try:
            print(f"painted_s={time.time() - float(t0):.3f}", file=sys.stderr)
        except ValueError:
            pass


def _render_and_exit(app: Any, window: Any, screenshot: Path | None, plots: list[tuple[Axis, Path]]) -> int:
    """--screenshot and --export-plot: draw without showing anything, write the PNGs, exit 0 if all were written."""
    from PySide6.QtCore import Qt

    from advisor.ui import export

    ok = True
    if screenshot is not None:
        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        window.show()
        app.processEvents()
        image = window.grab()
        report_painted()
        if not image.save(str(screenshot), "PNG"):
            print(f"llm-speed-advisor: error: {screenshot}: cannot write the screenshot", file=sys.stderr)
            ok = False
    for axis, path in plots:
        try:
            export.save_png(export.plot_image(axis, window.shown(window.store.snapshot), window.store.flush()), path)
        except export.ExportError as err:
            print(f"llm-speed-advisor: error: {err}", file=sys.stderr)
            ok = False
    return 0 if ok else 1
