"""`plot`: the window's slide PNG of one plot, with no window (offscreen Qt).

    python -m advisor.cli plot --axis context --hardware rtx-4090 --model llama-3.1-8b --out context.png

The drawing is advisor.ui.slide_png, imported when the command runs: Qt loads only for `plot`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from advisor.catalog.loader import Catalog
from advisor.cli.args import add_scenario_flags, scenario_from_args
from advisor.cli.errors import CliError
from advisor.core.curves import AXES
from advisor.session import Session


def add_commands(sub: Any) -> None:
    p = sub.add_parser("plot", help="one plot as a slide PNG (1920×1080 by default), no window")
    add_scenario_flags(p)
    p.add_argument("--axis", choices=AXES, required=True)
    p.add_argument("--out", type=Path, required=True, metavar="FILE.png")
    p.add_argument("--width", type=int, default=1920)
    p.add_argument("--height", type=int, default=1080)
    p.add_argument(
        "--no-published", action="store_true", help="leave out the squares for published runs on this machine"
    )
    p.set_defaults(run=cmd_plot)


def cmd_plot(args: argparse.Namespace, catalog: Catalog) -> int:
    if not (200 <= args.width <= 8000 and 200 <= args.height <= 8000):
        raise CliError("--width/--height: between 200 and 8000 pixels")
    scenario = scenario_from_args(args, catalog)
    session = Session(scenario=scenario, hardware_id=args.hardware, model_id=args.model, quant_id=args.quant)
    from advisor.ui.export import ExportError
    from advisor.ui.slide_png import write_plot_png

    try:
        write_plot_png(
            catalog, session, args.axis, args.out, (args.width, args.height), published=not args.no_published
        )
    except ExportError as err:
        raise CliError(str(err)) from None
    print(f"wrote {args.out} ({args.width}×{args.height})")
    return 0
