"""The validation report: how far the flat-η roofline and the fitted model land from measurements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.core.calibration import CALIBRATION, FLAT, Calibration
from advisor.core.inputs import backend_in_use
from advisor.validation.cases import Case, held_out
from advisor.validation.data import DataSet
from advisor.validation.predict import predict
from advisor.validation.stats import ape, group_table

# Accuracy targets the project holds itself to (median / 90th percentile absolute percentage error).
TARGETS = {
    ("decode", "depth 0"): (8.0, 20.0),
    ("decode", "depth sweep"): (15.0, None),
    ("decode", "offload"): (15.0, None),
    ("decode", "batch"): (15.0, None),
    ("decode", "MoE"): (15.0, None),
    ("prefill", "all"): (25.0, None),
}

SPLIT_TEXT = (
    "held out = about 30 % of configurations (machine × model × quant × engine, by a hash of "
    "their names); the fit never saw them"
)


def calibration_dict(cal: Calibration) -> dict[str, Any]:
    return {
        "name": cal.name,
        "host_eta": cal.host_eta,
        "expert_spread": cal.expert_spread,
        "backends": {b.value: asdict(t) for b, t in cal.backends.items()},
        "unfused_attn_eta": cal.unfused_attn_eta,
        "fused_attn_eta": cal.fused_attn_eta,
        "cpu_attn_gbps": cal.cpu_attn_gbps,
        "era_token": {f"{e.value}, {b.value}": v for (e, b), v in cal.era_token.items()},
        "moe_token": cal.moe_token,
        "sycl_plain_eta": cal.sycl_plain_eta,
        "sycl_f32_eta": cal.sycl_f32_eta,
        "machines": {k: asdict(t) for k, t in cal.machines.items()},
        "generations": {k: asdict(t) for k, t in cal.generations.items()},
        "vulkan_prefill": dict(cal.vulkan_prefill),
        "groups": {
            f"{k.value}/{e.value}": {
                "fitted": t.fitted,
                "rows": t.rows,
                "decode": asdict(t.decode),
                "prefill": asdict(t.prefill),
            }
            for (k, e), t in cal.terms.items()
        },
    }


def _features(c: Case) -> dict[str, Any]:
    """What a row's prediction rests on, for reading residuals."""
    s, r = c.scenario, c.row
    return {
        "kind": c.kind,
        "class": c.hw_class.value,
        "engine": c.engine.value,
        "backend": backend_in_use(s).value if c.engine.value == "llama.cpp" else None,
        "backend_stated": r.backend is not None,
        "params_b": s.model.total_params_b,
        "active_b": s.model.active_b,
        "bits": s.quant.bits_per_weight,
        "context": s.workload.context,
        "prompt": r.prompt_tokens,
        "gen": r.gen_tokens,
        "batch": r.batch,
    }


def build_report(
    data: DataSet, calibration: Calibration | None = None, baseline: Calibration = FLAT, worst: int = 10
) -> dict[str, Any]:
    """`worst`: how many of the worst held-out rows to list, for decode and for prefill each."""
    cal = calibration or CALIBRATION
    cases = list(data.cases)
    preds = {"flat": predict(cases, baseline), "fitted": predict(cases, cal)}
    held = np.array([c.held_out for c in cases], dtype=bool)
    measured = np.array([c.measured for c in cases], dtype=float)
    err = ape(preds["fitted"], measured)
    order = [i for i in np.argsort(-err, kind="stable") if held[i]]
    order = [i for i in order if cases[i].test == "tg"][:worst] + [i for i in order if cases[i].test == "pp"][:worst]
    worst_rows = [
        {
            "line": cases[i].row.line,
            "test": cases[i].test,
            "hardware": cases[i].row.hardware_name,
            "model": cases[i].row.model_name,
            "measured": cases[i].measured,
            "fitted": round(float(preds["fitted"][i]), 2),
            "flat": round(float(preds["flat"][i]), 2),
            "error_pct": round(float(preds["fitted"][i] / measured[i] - 1) * 100, 1),
            "source": cases[i].row.source_url,
            **_features(cases[i]),
        }
        for i in order
    ]
    held_rows = group_table(cases, preds, held)
    return {
        "band_coverage": band_coverage(cases, preds["fitted"], held, cal),
        "data": {
            "rows": data.rows,
            "usable": len(cases),
            "skipped": len(data.skipped),
            "excluded": len(data.excluded),
            "skip_reasons": data.skip_reasons(),
            "unreadable": list(data.problems),
            "held_out": int(held.sum()),
            "split": SPLIT_TEXT,
            "on_catalog": {
                "rows": data.coverage.rows,
                "machine_pct": round(data.coverage.pct(data.coverage.machine), 1),
                "model_pct": round(data.coverage.pct(data.coverage.model), 1),
                "both_pct": round(data.coverage.pct(data.coverage.both), 1),
            },
        },
        "excluded_rows": excluded_rows(data, cal, baseline),
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


def band_coverage(
    cases: Sequence[Case], predicted: NDArray[np.float64], held: NDArray[np.bool_], cal: Calibration
) -> dict[str, Any]:
    """How many held-out decode rows measure inside the band their class and engine carry (it claims the
    10th to 90th percentile, so 80 % of rows that were not used to set it)."""
    inside = [
        lo <= c.measured / p <= hi
        for c, p, h in zip(cases, predicted, held, strict=True)
        if h and c.test == "tg" and p > 0
        for lo, hi in [cal.get(c.hw_class, c.engine).decode.band]
    ]
    pct = round(100.0 * sum(inside) / len(inside), 1) if inside else None
    return {"held_out_decode_rows": len(inside), "inside_pct": pct, "nominal_pct": 80.0}


def excluded_rows(data: DataSet, cal: Calibration, baseline: Calibration) -> list[dict[str, Any]]:
    """Every row the file marks as excluded, with its reason and, where it can be predicted, how far
    the fitted model lands from it (these rows are in neither the fit nor the statistics)."""
    buildable = [e.case for e in data.excluded if e.case is not None]
    fitted = dict(zip([id(c) for c in buildable], predict(buildable, cal), strict=True)) if buildable else {}
    flat = dict(zip([id(c) for c in buildable], predict(buildable, baseline), strict=True)) if buildable else {}
    out: list[dict[str, Any]] = []
    for e in data.excluded:
        r = e.row
        item: dict[str, Any] = {
            "line": r.line,
            "test": r.test,
            "hardware": r.hardware_name,
            "model": r.model_name,
            "quant": r.quant,
            "measured": r.tok_s,
            "reason": e.reason,
            "source": r.source_url,
            "held_out": held_out(r),
        }
        if e.case is not None:
            f = float(fitted[id(e.case)])
            item.update(
                fitted=round(f, 2), flat=round(float(flat[id(e.case)]), 2), error_pct=round((f / r.tok_s - 1) * 100, 1)
            )
        else:
            item["not_predictable"] = True
        out.append(item)
    return out


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
        f"{d['skipped']} skipped, {d['excluded']} excluded, {len(d['unreadable'])} unreadable; "
        f"{d['held_out']} usable rows held out.",
        f"  ({d['split']})",
        "",
    ]
    if cat := d.get("on_catalog"):
        lines += [
            f"On a catalog machine and model: {cat['both_pct']:.1f} % of {cat['rows']} rows not excluded "
            f"(machine {cat['machine_pct']:.1f} %, model {cat['model_pct']:.1f} %).",
            "",
        ]
    lines += [
        "Absolute percentage error, median and 90th percentile (%):",
    ]
    for title, key in (("held-out rows", "held_out"), ("all usable rows", "all_rows")):
        lines.append("")
        head = f"{'':9}{'group (' + title + ')':28}{'n':>5}   {'flat η':^15}   {'fitted':^15}"
        lines += [head, f"{'':9}{'':28}{'':>5}   {'median':>7} {'p90':>7}   {'median':>7} {'p90':>7}"]
        for r in report[key]:
            lines.append(f"{r['test']:9}{r['group']:28}{r['n']:5d}   {_cell(r['flat'])}   {_cell(r['fitted'])}")
    cov = report.get("band_coverage") or {}
    if cov.get("inside_pct") is not None:
        lines += [
            "",
            f"Band: {cov['inside_pct']:.1f} % of the {cov['held_out_decode_rows']} held-out decode rows "
            f"measure inside the band the app draws for them (it claims {cov['nominal_pct']:.0f} %: "
            "the 10th to 90th percentile).",
        ]
    lines += ["", "Targets (held-out, fitted):"]
    for t in report["targets"]:
        goal = f"median ≤ {t['median_pct']:g} %" + (f", p90 ≤ {t['p90_pct']:g} %" if t["p90_pct"] else "")
        state = {True: "met", False: "NOT met", None: "no rows"}[t["met"]]
        lines.append(f"  {t['test']:8} {t['group']:12} {goal:28} {state}")
    if d["skip_reasons"]:
        lines += ["", "Skipped rows:"]
        lines += [f"  {n:4d}  {reason}" for reason, n in d["skip_reasons"].items()]
    if report.get("excluded_rows"):
        lines += ["", f"Excluded rows ({d['excluded']}: kept in the file, not fitted, not in the statistics above):"]
        by_reason: dict[str, list[dict[str, Any]]] = {}
        for e in report["excluded_rows"]:
            by_reason.setdefault(e["reason"], []).append(e)
        for reason, items in by_reason.items():
            lines.append(f"  {len(items)} × {reason}")
            for e in items:
                where = (
                    "not predictable (skipped anyway)"
                    if e.get("not_predictable")
                    else f"measured {e['measured']:g}, fitted {e['fitted']:g} ({e['error_pct']:+.0f} %)"
                )
                lines.append(
                    f"    line {e['line']:>4} {e['test']} {e['hardware'][:34]:34} {e['model'][:22]:22} "
                    f"{e['quant'] or '':7} {where}"
                )
    if d["unreadable"]:
        lines += ["", "Unreadable rows:"] + [f"  {p}" for p in d["unreadable"]]
    if report["worst_held_out"]:
        lines += ["", "Worst held-out rows (fitted), decode then prefill:"]
        for w in report["worst_held_out"]:
            size = f"{w['params_b']:g}B" + (f"-A{w['active_b']:g}B" if w["active_b"] != w["params_b"] else "")
            ctx = f"ctx {w['context']}" if w["test"] == "tg" else f"pp{w['prompt']}@{w['context'] - w['prompt']}"
            backend = (w["backend"] or w["engine"]) + ("" if w["backend_stated"] or not w["backend"] else "?")
            lines.append(
                f"  line {w['line']:>4} {w['test']} {w['hardware'][:30]:30} {w['model'][:22]:22} "
                f"{size:>11} {w['bits']:5.2f}b {backend:7} {ctx:14} b{w['batch']:<3} "
                f"measured {w['measured']:g}, fitted {w['fitted']:g} ({w['error_pct']:+.0f} %)"
            )
    return "\n".join(lines)
