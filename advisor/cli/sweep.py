"""`sweep`: one curve (context, params or batch on the x axis) as CSV on stdout.

    python -m advisor.cli sweep --axis context --hardware m3-max-40c-128gb --model qwen3-32b"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any

from advisor.catalog.loader import Catalog
from advisor.cli.args import add_scenario_flags, scenario_from_args
from advisor.core.curves import AXES, curve


def cmd_sweep(args: argparse.Namespace, catalog: Catalog) -> int:
    s = scenario_from_args(args, catalog)
    c = curve(s, args.axis, n=args.points)
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
    sw.add_argument("--points", type=int, default=50)
    sw.set_defaults(run=cmd_sweep)
