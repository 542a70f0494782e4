"""The validation report: how far the flat-η roofline and the fitted model land from measurements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from advisor.core.calibration import CALIBRATION, FLAT, Calibration
from advisor.validation.data import DataSet
from advisor.validation.predict import predict
from advisor.validation.stats import ape, group_table

# The targets (median / 90th percentile absolute percentage error).
TARGETS = {
    ("decode", "depth 0"): (8.0, 20.0),
    ("decode", "depth sweep"): (15.0, None),
    ("decode", "offload"): (15.0, None),
    ("decode", "batch"): (15.0, None),
    ("decode", "MoE"): (15.0, None),
    ("prefill", "all"): (25.0, None),
}

SPLIT_TEXT = ("held out = about 30 % of configurations (machine × model × quant × engine, by a hash of "
              "their names); the fit never saw them")


def calibration_dict(cal: Calibration) -> dict[str, Any]:
    return {
        "name": cal.name,
        "host_eta": cal.host_eta,
        "expert_spread": cal.expert_spread,
        "groups": {f"{k.value}/{e.value}": {"fitted": t.fitted, "rows": t.rows, "decode": asdict(t.decode),
                                            "prefill": asdict(t.prefill)}
                   for (k, e), t in cal.terms.items()},
    }


def build_report(data: DataSet, calibration: Calibration | None = None, baseline: Calibration = FLAT,
                 worst: int = 10) -> dict[str, Any]:
    cal = calibration or CALIBRATION
    cases = list(data.cases)
    preds = {"flat": predict(cases, baseline), "fitted": predict(cases, cal)}
    held = np.array([c.held_out for c in cases], dtype=bool)
    measured = np.array([c.measured for c in cases], dtype=float)
    err = ape(preds["fitted"], measured)
    order = [i for i in np.argsort(-err) if held[i]][:worst]
    worst_rows = [
        {"line": cases[i].row.line, "test": cases[i].test, "hardware": cases[i].row.hardware_name,
         "model": cases[i].row.model_name, "measured": cases[i].measured,
         "fitted": round(float(preds["fitted"][i]), 2), "flat": round(float(preds["flat"][i]), 2),
         "error_pct": round(float(err[i]), 1), "source": cases[i].row.source_url}
        for i in order
    ]
    held_rows = group_table(cases, preds, held)
    return {
        "data": {
            "rows": data.rows,
            "usable": len(cases),
            "skipped": len(data.skipped),
            "skip_reasons": data.skip_reasons(),
            "unreadable": list(data.problems),
            "held_out": int(held.sum()),
            "split": SPLIT_TEXT,
        },
        "models": {"flat": baseline.name, "fitted": cal.name},
        "held_out": held_rows,
        "all_rows": group_table(cases, preds),
        "targets": [
            {"test": t, "group": g, "median_pct": m, "p90_pct": p, "met": _met(held_rows, t, g, m, p)}
            for (t, g), (m, p) in TARGETS.items()
        ],
        "worst_held_out": worst_rows,
        "calibration": calibration_dict(cal),
    }


def _met(rows: Sequence[dict[str, Any]], test: str, group: str, median: float, p90: float | None) -> bool | None:
    for r in rows:
        if r["test"] == test and r["group"] == group:
            s = r["fitted"]
            if s["median_pct"] is None:
                return None
            return bool(s["median_pct"] <= median and (p90 is None or s["p90_pct"] <= p90))
    return None


def _cell(s: dict[str, Any]) -> str:
    if s["median_pct"] is None:
        return f"{'–':>7} {'–':>7}"
    return f"{s['median_pct']:7.1f} {s['p90_pct']:7.1f}"


def report_text(report: dict[str, Any]) -> str:
    d = report["data"]
    lines = [
        f"Validation against benchmarks/data/measurements.csv: {d['rows']} rows, {d['usable']} usable, "
        f"{d['skipped']} skipped, {len(d['unreadable'])} unreadable; {d['held_out']} usable rows held out.",
        f"  ({d['split']})",
        "",
        "Absolute percentage error, median and 90th percentile (%):",
    ]
    for title, key in (("held-out rows", "held_out"), ("all usable rows", "all_rows")):
        lines.append("")
        head = f"{'':9}{'group (' + title + ')':28}{'n':>5}   {'flat η':^15}   {'fitted':^15}"
        lines += [head, f"{'':9}{'':28}{'':>5}   {'median':>7} {'p90':>7}   {'median':>7} {'p90':>7}"]
        for r in report[key]:
            lines.append(f"{r['test']:9}{r['group']:28}{r['n']:5d}   {_cell(r['flat'])}   {_cell(r['fitted'])}")
    lines += ["", "Targets (held-out, fitted):"]
    for t in report["targets"]:
        goal = f"median ≤ {t['median_pct']:g} %" + (f", p90 ≤ {t['p90_pct']:g} %" if t["p90_pct"] else "")
        state = {True: "met", False: "NOT met", None: "no rows"}[t["met"]]
        lines.append(f"  {t['test']:8} {t['group']:12} {goal:28} {state}")
    if d["skip_reasons"]:
        lines += ["", "Skipped rows:"]
        lines += [f"  {n:4d}  {reason}" for reason, n in d["skip_reasons"].items()]
    if d["unreadable"]:
        lines += ["", "Unreadable rows:"] + [f"  {p}" for p in d["unreadable"]]
    if report["worst_held_out"]:
        lines += ["", "Worst held-out rows (fitted):"]
        for w in report["worst_held_out"]:
            lines.append(f"  line {w['line']:>4} {w['test']} {w['hardware'][:34]:34} {w['model'][:26]:26} "
                         f"measured {w['measured']:g}, fitted {w['fitted']:g} ({w['error_pct']:+.0f} %)")
    return "\n".join(lines)
