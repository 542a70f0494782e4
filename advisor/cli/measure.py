"""Measuring your own machine:

    python -m advisor.cli measure fit --hardware dgx-spark --model qwen2.5-coder-7b --quant q8_0 --bench out.md
    python -m advisor.cli measure fit ... --bench - --save --json     # stdin; keep it as dgx-spark-mine
    python -m advisor.cli measure bandwidth [--seconds 3] [--json]
    python -m advisor.cli detect [--json]

The fit, the bandwidth test and detection are imported when their command runs, so the other
commands do not load them."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from pathlib import Path
from typing import Any

from advisor.catalog.loader import Catalog
from advisor.cli.args import add_scenario_flags, number, scenario_from_args
from advisor.cli.errors import CliError


def add_commands(sub: Any) -> None:
    m = sub.add_parser("measure", help="your own machine: fit η to llama-bench output, or test memory bandwidth")
    msub = m.add_subparsers(dest="measure_command", required=True, parser_class=type(m))

    fit = msub.add_parser("fit", help="fit η for a hardware/model/quant to llama-bench output")
    add_scenario_flags(fit)
    fit.add_argument(
        "--bench",
        required=True,
        metavar="FILE",
        help="llama-bench output: markdown table, -o json, -o jsonl or -o csv (- reads stdin)",
    )
    fit.add_argument(
        "--save", action="store_true", help="keep the fitted η and points with your copy of the hardware (<id>-mine)"
    )
    fit.add_argument("--json", action="store_true", help="print one JSON object")
    fit.set_defaults(run=cmd_fit)

    bw = msub.add_parser("bandwidth", help="host memory bandwidth with NumPy (one thread: a floor, not the peak)")
    bw.add_argument("--seconds", type=number(float), default=3.0, help="time budget, seconds (default 3)")
    bw.add_argument("--size-mb", type=number(int), default=None, help="array size in MiB (default 256)")
    bw.add_argument("--json", action="store_true")
    bw.set_defaults(run=cmd_bandwidth)

    d = sub.add_parser("detect", help="this machine's RAM, CPU, GPU and the closest catalog entry")
    d.add_argument("--json", action="store_true")
    d.add_argument(
        "--replay",
        type=Path,
        metavar="DIR",
        help="detect from captured probe outputs in DIR instead of this machine (files: see advisor/probe_replay.py)",
    )
    d.set_defaults(run=cmd_detect)


# --- measure fit --------------------------------------------------------------------------------


def _read_bench(path: str) -> str:
    """The file's text, its size checked before it is read (a paste's limit; parse_llama_bench names it)."""
    from advisor.measure.llama_bench import MAX_PASTE_CHARS
    from advisor.regular_files import read_regular

    if path == "-":
        return sys.stdin.read(MAX_PASTE_CHARS + 1)
    try:
        return read_regular(Path(path), MAX_PASTE_CHARS).decode("utf-8")
    except FileNotFoundError:
        raise CliError(f"--bench: {path} not found") from None
    except OSError as err:
        raise CliError(f"--bench: cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise CliError(
            f"--bench: {path} is not UTF-8 text (byte {err.object[err.start]:#04x} at {err.start:,})"
        ) from None


def _eta_json(f: Any) -> dict[str, Any] | None:
    if f is None:
        return None
    return {
        "eta": f.eta,
        "raw_eta": f.raw_eta,
        "rows": f.n,
        "std": f.std,
        "implied_low": f.low,
        "implied_high": f.high,
        "median_abs_residual": f.median_abs_residual,
        "max_abs_residual": f.max_abs_residual,
        "shipped_median_abs_error": f.shipped_median_abs_error,
        "points": [
            {
                "test": r.row.label,
                "ngl": r.row.ngl,
                "measured_tok_s": r.row.tok_s,
                "ceiling_tok_s": r.ceiling,
                "implied_eta": r.implied_eta,
                "predicted_tok_s": r.predicted,
                "residual": r.residual,
                "shipped_tok_s": r.shipped,
            }
            for r in f.rows
        ],
    }


def cmd_fit(args: argparse.Namespace, catalog: Catalog) -> int:
    from advisor.measure.fit import FitError, fit_eta, prediction_change
    from advisor.measure.llama_bench import BenchError, parse_llama_bench

    scenario = scenario_from_args(args, catalog)
    text = _read_bench(args.bench)
    try:
        rows = parse_llama_bench(text)
        fit = fit_eta(scenario, rows)
    except (BenchError, FitError) as err:
        raise CliError(f"{args.bench}: {err}") from None
    change = prediction_change(scenario, fit)
    saved = _save(args, catalog, scenario, fit) if args.save else None
    if args.json:
        out = {
            "decode": _eta_json(fit.decode),
            "prefill": _eta_json(fit.prefill),
            "skipped": [{"test": r.label, "line": r.line, "reason": why} for r, why in fit.skipped],
            "notes": list(fit.notes),
            "scenario": {
                "decode_before": change.before.decode_tok_s,
                "decode_after": change.after.decode_tok_s,
                "prefill_before": change.before.prefill_tok_s,
                "prefill_after": change.after.prefill_tok_s,
            },
            "saved": saved,
        }
        print(json.dumps(out, indent=2))
        return 0
    for f in (fit.decode, fit.prefill):
        if f is None:
            continue
        print(f.summary())
        for r in f.rows:
            print(
                f"  {r.row.label:<18} measured {r.row.tok_s:9.2f}  ceiling {r.ceiling:9.1f}  implied η "
                f"{r.implied_eta:.3f}  at your η {r.predicted:9.1f} ({100 * r.residual:+.1f} %)"
                + (f"  shipped model {r.shipped:.1f}" if r.shipped else "")
            )
        shipped = f.shipped_median_abs_error
        if shipped is not None:
            print(
                f"  the shipped model is off by a median {100 * shipped:.1f} % on these rows; "
                f"your η by {100 * f.median_abs_residual:.1f} %"
            )
    for skipped, why in fit.skipped:
        where = f" (line {skipped.line})" if skipped.line else ""
        print(f"not used: {skipped.label}{where}: {why}")
    for note in fit.notes:
        print(f"note: {note}")
    print(f"this scenario: {change.summary()}")
    if saved:
        print(f"saved as {saved['id']} in {saved['path']}; pick it (--hardware {saved['id']}) to use the measured η")
    return 0


def _save(args: argparse.Namespace, catalog: Catalog, scenario: Any, fit: Any) -> dict[str, str]:
    from advisor.catalog.user_store import UserStoreError, save_entry
    from advisor.measure.entry import measured_entry
    from advisor.paths import user_catalog_dir

    base = catalog.hardware.get(args.hardware) if args.hardware else None
    entry = measured_entry(
        base,
        scenario.hardware,
        fit,
        model_id=args.model,
        quant_id=args.quant,
        when=_dt.date.today().isoformat(),
        model_name=f"{scenario.model.name} {scenario.quant.name}",
    )
    try:
        path = save_entry("hardware", entry, user_catalog_dir())
    except (UserStoreError, OSError) as err:
        raise CliError(f"--save: {err}") from None
    return {"id": entry.id, "path": str(path)}


# --- measure bandwidth --------------------------------------------------------------------------


def cmd_bandwidth(args: argparse.Namespace, catalog: Catalog) -> int:
    from advisor.measure.bandwidth import CAVEAT, DEFAULT_SIZE, BandwidthError, measure_bandwidth

    size = args.size_mb * 2**20 if args.size_mb is not None else DEFAULT_SIZE
    try:
        result = measure_bandwidth(args.seconds, size)
    except BandwidthError as err:
        raise CliError(f"measure bandwidth: {err}") from None
    except MemoryError:
        raise CliError("measure bandwidth: not enough memory for the arrays; try a smaller --size-mb") from None
    if args.json:
        print(
            json.dumps(
                {
                    "gbps": result.gbps,
                    "copy_gbps": result.copy_gbps,
                    "read_gbps": result.read_gbps,
                    "passes": result.passes,
                    "seconds": result.seconds,
                    "size_bytes": result.size_bytes,
                }
            )
        )
    else:
        print(result.summary())
        print(CAVEAT)
    return 0


# --- detect -------------------------------------------------------------------------------------


def cmd_detect(args: argparse.Namespace, catalog: Catalog) -> int:
    from advisor.detect import detect

    sources: dict[str, Any] = {}
    if args.replay is not None:
        from advisor.probe_replay import ReplayError, replay_sources

        try:
            sources = replay_sources(args.replay)
        except (ReplayError, OSError) as err:
            raise CliError(f"--replay: {err}") from None
    d = detect(catalog, **sources)
    m = d.machine
    e = catalog.hardware.get(d.entry_id) if d.entry_id else None
    if args.json:
        print(
            json.dumps(
                {
                    "entry": {"id": e.id, "name": e.name, "bandwidth_gbps": e.bandwidth_gbps, "memory_gb": e.memory_gb}
                    if e is not None
                    else None,
                    "entry_id": d.entry_id,
                    "confidence": d.confidence,
                    "found": d.found,
                    "reason": d.reason,
                    "machine": {
                        "system": m.system,
                        "cpu": m.cpu,
                        "cores": m.cores,
                        "ram_gb": m.ram_gb,
                        "gpus": [
                            {
                                "name": g.name,
                                "memory_gb": g.memory_gb,
                                "vendor": g.vendor,
                                "integrated": g.integrated,
                                "shared_gb": g.shared_gb,
                            }
                            for g in m.gpus
                        ],
                        "apple_chip": m.apple_chip,
                        "mac_model": m.mac_model,
                        "gpu_wired_gb": m.gpu_wired_gb,
                    },
                    "problems": list(m.problems),
                },
                indent=2,
            )
        )
        return 0
    print(d.text())
    for p in m.problems:
        print(f"  ({p})")
    return 0
