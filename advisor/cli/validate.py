"""`advisor validate [--json] [--refit]`: predictions against the published measurements.

The dataset and the fit are imported when the command runs, so the other commands do not load them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from advisor.catalog.loader import Catalog
from advisor.cli.errors import CliError


def cmd_validate(args: argparse.Namespace, catalog: Catalog) -> int:
    from advisor.validation.data import HARDWARE_SPECS_CSV, MEASUREMENTS_CSV, load_dataset
    from advisor.validation.fit import fit
    from advisor.validation.report import build_report, report_text

    data_path = Path(args.data) if args.data else MEASUREMENTS_CSV
    specs_path = Path(args.specs) if args.specs else HARDWARE_SPECS_CSV
    if not data_path.exists():
        raise CliError(f"validate: {data_path} not found (the measurements ship with the source tree)")
    try:
        data = load_dataset(catalog, data_path, specs_path)
    except (OSError, UnicodeDecodeError) as err:
        raise CliError(f"validate: cannot read {data_path}: {err}") from None
    calibration = None
    if args.refit:
        calibration = fit(data.cases).calibration
    report: dict[str, Any] = build_report(data, calibration)
    print(json.dumps(report, indent=2) if args.json else report_text(report))
    return 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser("validate", help="predict the published measurements; median and p90 error, flat η vs fitted")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--refit", action="store_true", help="fit the model on the training rows first (not saved)")
    p.add_argument("--data", help="measurements CSV (default: benchmarks/data/measurements.csv)")
    p.add_argument("--specs", help="hardware specs CSV for rows without a catalog id")
    p.set_defaults(run=cmd_validate)
