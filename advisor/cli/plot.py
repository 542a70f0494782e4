"""`advisor.cli plot`: the window's slide PNG of one plot, with no window (offscreen Qt)."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from advisor.core.curves import AXES


def add_commands(sub: Any) -> None:
    from advisor.cli import add_scenario_flags

    p = sub.add_parser("plot", help="one plot as a slide PNG (1920×1080 by default), no window")
    add_scenario_flags(p)
    p.add_argument("--axis", choices=AXES, required=True)
    p.add_argument("--out", type=Path, required=True, metavar="FILE.png")
    p.add_argument("--width", type=int, default=1920)
    p.add_argument("--height", type=int, default=1080)
    p.add_argument("--no-published", action="store_true",
                   help="leave out the squares for published runs on this machine")
    p.set_defaults(run=cmd_plot)


def cmd_plot(args: argparse.Namespace, catalog: Any) -> int:
    from advisor.cli import CliError, scenario_from_args
    from advisor.session import Session

    if not (200 <= args.width <= 8000 and 200 <= args.height <= 8000):
        raise CliError("--width/--height: between 200 and 8000 pixels")
    scenario = scenario_from_args(args, catalog)
    session = Session(scenario=scenario, hardware_id=args.hardware, model_id=args.model, quant_id=args.quant)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # slides in batches: no screen needed
    from PySide6.QtWidgets import QApplication

    from advisor.ui import export
    from advisor.ui.store import NO_POINTS, Store

    _app = QApplication.instance() or QApplication(["advisor-plot"])
    store = Store(catalog, session)
    snap = replace(store.snapshot, published=NO_POINTS) if args.no_published else store.snapshot
    image = export.plot_image(args.axis, snap, store.extras, size=(args.width, args.height))
    try:
        export.save_png(image, args.out)
    except export.ExportError as err:
        raise CliError(str(err)) from None
    print(f"wrote {args.out} ({args.width}×{args.height})")
    return 0
