"""Wiring: settings, catalogs, QApplication and the main window. The only module that knows all of them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from advisor import __version__
from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import Catalog, load_catalog
from advisor.core.scenario import Scenario
from advisor.paths import user_catalog_dir
from advisor.session import Session, SessionFileError, load_session
from advisor.settings import load_settings, save_settings

DEFAULT_PICKS = ("rtx-4090", "llama-3.1-8b", "q4_k_m")
SCREENSHOT_SIZE = (1600, 1000)


def default_session(catalog: Catalog) -> Session:
    """RTX 4090 · Llama 3.1 8B · Q4_K_M: the seeds' reference case, if the catalog has it."""
    hid, mid, qid = DEFAULT_PICKS
    parts: dict[str, object] = {}
    if hid in catalog.hardware:
        parts["hardware"] = to_hardware(catalog.hardware[hid])
    if mid in catalog.models:
        parts["model"] = to_model(catalog.models[mid])
    if qid in catalog.quants:
        parts["quant"] = to_quant(catalog.quants[qid])
    return Session(scenario=Scenario(**parts),  # type: ignore[arg-type]
                   hardware_id=hid if "hardware" in parts else None,
                   model_id=mid if "model" in parts else None,
                   quant_id=qid if "quant" in parts else None)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="llm-speed-advisor", description="LLM decode-speed advisor (desktop app)")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("--screenshot", type=Path, metavar="FILE.png",
                   help="render the main window to FILE.png and exit")
    p.add_argument("--scenario", type=Path, metavar="FILE.json", help="open this scenario instead of the last one")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QMessageBox

    from advisor.ui.importer import import_model_dialog
    from advisor.ui.main_window import MainWindow
    from advisor.ui.store import Store

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("LLM speed advisor")
    app.setApplicationVersion(__version__)
    catalog = load_catalog(user_catalog_dir())
    settings, settings_problem = load_settings()
    problems: list[str] = [settings_problem] if settings_problem else []
    problems += list(catalog.problems)

    session = settings.session or default_session(catalog)
    if args.scenario is not None:
        try:
            session = load_session(args.scenario)
        except SessionFileError as err:
            if args.screenshot is not None:
                print(f"llm-speed-advisor: error: {err}", file=sys.stderr)
                return 2
            problems.append(str(err))
    elif args.screenshot is not None:
        session = default_session(catalog)

    store = Store(catalog, session)
    window = MainWindow(store, settings, importer=import_model_dialog)
    if args.screenshot is None:
        window.restore_layout(settings.window_geometry, settings.window_state)
    if args.scenario is not None and args.screenshot is None and not problems:
        window.current_file = args.scenario
    if args.screenshot is not None or not settings.window_geometry:
        window.resize(*SCREENSHOT_SIZE)

    if args.screenshot is not None:
        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        window.show()
        app.processEvents()
        ok = window.grab().save(str(args.screenshot), "PNG")
        if not ok:
            print(f"llm-speed-advisor: error: {args.screenshot}: cannot write the screenshot", file=sys.stderr)
        return 0 if ok else 1

    window.show()
    if problems:
        QMessageBox.warning(window, "Some files could not be read", "\n".join(problems[:20]))
    code = app.exec()
    save_settings(getattr(window, "closed_settings", window.settings))
    return code
