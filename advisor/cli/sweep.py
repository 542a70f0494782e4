"""`sweep`: one curve (context, params or batch on the x axis) as CSV on stdout.

python -m advisor.cli sweep --axis context --hardware m3-max-40c-128gb --model qwen3-32b"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any

from advisor.catalog.loader import Catalog
from advisor.cli.args import add_scenario_flags, scenario_from_args
from advisor.cli.errors import CliError
from advisor.core.curves import AXES, curve

# A curve needs two points; ten thousand are more than any plot or spreadsheet resolves (each costs a
# solve of its own: a hundred million would take hours and tens of GB).
MIN_POINTS, MAX_POINTS = 2, 10_000


def cmd_sweep(args: argparse.Namespace, catalog: Catalog) -> int:
    if not MIN_POINTS <= args.points <= MAX_POINTS:
        raise CliError(f"--points {args.points}: give {MIN_POINTS} to {MAX_POINTS:,} points")
    s = scenario_from_args(args, catalog)
    try:
        c = curve(s, args.axis, n=args.points)
    except (ValueError, ArithmeticError) as err:  # the solver could not finish this scenario's curve
        raise CliError(f"cannot compute the {args.axis} curve: {err}") from None
    rows = c.as_rows()
    writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return 0


def add_commands(sub: Any) -> None:
    sw = sub.add_parser("sweep", help="one curve as CSV")
    add_scenario_flags(sw)
    sw.add_argument("--axis", choices=AXES, required=True)
    sw.add_argument("--points", type=int, default=50, help=f"points on the curve, {MIN_POINTS} to {MAX_POINTS:,}")
    sw.set_defaults(run=cmd_sweep)
