"""The figures docs/accuracy.md shows, rendered as Markdown from the committed constants and the
measurements, so the page carries no hand-typed accuracy figure.

    .venv/bin/python benchmarks/validate.py --docs   # rewrite the block in docs/accuracy.md

Everything comes from `validate`'s own report (`build_report`, what `validate --json` prints), the
resampled interval of the held-out depth-0 p90 (`held_out_interval`) and the published runs the app
ships (`published_rows`); nothing is refitted. tests/validation/test_docs_block.py fails when the block
in the file and this rendering drift apart."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.catalog.accuracy import shipped_source_validation
from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import Catalog
from advisor.core.calibration import Calibration
from advisor.core.hardware_keys import generation_key, machine_key
from advisor.core.published import MachineEntry, all_records
from advisor.validation.data import DataSet
from advisor.validation.docs_sources import source_section
from advisor.validation.out_of_sample import held_out_interval
from advisor.validation.published import published_rows
from advisor.validation.report import build_report

DOCS_FILE = Path(__file__).resolve().parents[2] / "docs" / "accuracy.md"
BEGIN = "<!-- generated: validate --docs -->"
END = "<!-- end generated -->"
NOTICE = (
    "<!-- Written by `python benchmarks/validate.py --docs` from the committed constants and "
    "benchmarks/data/; edit the generator (advisor/validation/docs_block.py), not this block. -->"
)
WORST_ROWS = 10  # held-out decode rows listed by their error
GROUP_LABELS = {"discrete_gpu": "discrete GPU", "unified": "unified memory", "cpu": "CPU only"}
BACKEND_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "vulkan": "Vulkan", "metal": "Metal", "sycl": "SYCL", "cpu": "CPU"}


def _pct(s: dict[str, Any]) -> str:
    """ "7.1 / 19.4" from a statistics dict of the report."""
    if s["median_pct"] is None:
        return "–"
    return f"{s['median_pct']:.1f} / {s['p90_pct']:.1f}"


def _g(v: float) -> str:
    return f"{v:.3g}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    align = ["---:" if r else "---" for r in right]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def _data_section(report: dict[str, Any]) -> list[str]:
    d = report["data"]
    training = d["usable"] - d["held_out"]
    lines = [
        "### The data",
        "",
        f"`benchmarks/data/measurements.csv` holds {d['rows']} rows: {d['usable']} usable, {d['skipped']} "
        f"skipped (each for a reason below) and {d['excluded']} excluded (marked in the file's "
        "`exclude_reason` column, kept there and listed by `validate` with their predictions, but in "
        f"neither the fit nor any figure here). {d['held_out']} usable rows are held out, the rows of about "
        "30 % of configurations (machine × model × quant × engine, chosen by a hash of their names); the fit "
        f"used the other {training}.",
        "",
    ]
    if cov := d.get("on_catalog"):
        lines += [
            f"Of the {cov['rows']} rows not excluded, {cov['both_pct']:.0f} % ran on a machine and a model the "
            f"catalog holds, the runs a user reproduces by picking catalog entries ({cov['machine_pct']:.0f} % on "
            f"a catalog machine, {cov['model_pct']:.0f} % of a catalog model or one of its shape, as Llama 3 8B is "
            "Llama 3.1 8B's; the rest are machines only `hardware_specs.csv` describes, such as an Apple chip "
            "whose GPU cores the source leaves out, or models with a typical shape for their size).",
            "",
        ]
    rows = [[str(n), reason] for reason, n in d["skip_reasons"].items()]
    return lines + _table(("rows", "skipped because"), rows, (True, False))


def _targets(report: dict[str, Any]) -> dict[tuple[str, str], str]:
    out = {}
    for t in report["targets"]:
        goal = f"≤ {t['median_pct']:g}" + (f" / ≤ {t['p90_pct']:g}" if t["p90_pct"] else " median")
        out[(t["test"], t["group"])] = goal + {True: ", met", False: ", **not met**", None: ""}[t["met"]]
    return out


def _shared_sources(data: DataSet) -> int:
    """Held-out rows whose source also gave training rows."""
    trained = {c.row.source_url for c in data.cases if not c.held_out}
    return sum(c.held_out and c.row.source_url in trained for c in data.cases)


def _held_out_section(report: dict[str, Any], interval: tuple[float, float], shared: int) -> list[str]:
    targets = _targets(report)
    rows = [
        [
            r["test"],
            r["group"],
            str(r["n"]),
            _pct(r["fitted"]),
            _pct(r["flat"]),
            targets.get((r["test"], r["group"]), ""),
        ]
        for r in report["held_out"]
    ]
    lines = [
        "",
        "### On the held-out rows",
        "",
        "Absolute percentage error, median / 90th percentile (%), of the fitted model and of a flat-η "
        "roofline (one η per hardware class, no other term), beside the accuracy targets the project "
        "holds itself to. The split is by configuration, not by source: "
        f"{shared} of the {report['data']['held_out']} held-out rows come from a source (`source_url`) that "
        "also gave training rows (another model or quant on the same machine, another machine in the same "
        "table), so these figures are optimistic for a machine or a source the fit never saw.",
        "",
    ]
    lines += _table(("test", "rows", "n", "model", "flat η", "target"), rows, (False, False, True, True, True, False))
    cov = report["band_coverage"]
    if cov["inside_pct"] is not None:
        lines += [
            "",
            f"The band drawn around each estimate held {cov['inside_pct']:.1f} % of the "
            f"{cov['held_out_decode_rows']} held-out decode rows (it claims {cov['nominal_pct']:.0f} %: "
            "the 10th to 90th percentile).",
        ]
    depth0 = next((r for r in report["held_out"] if r["test"] == "decode" and r["group"] == "depth 0"), None)
    if depth0 is not None:
        lines += [
            "",
            f"A 90th percentile over {depth0['n']} rows rests on its few worst rows, and the rows of one "
            "configuration miss together: resampling whole configurations, the held-out depth-0 decode "
            f"p90 spans {interval[0]:.1f}–{interval[1]:.1f} % (5th–95th percentile of the resamples).",
        ]
    return lines


def _all_rows_section(report: dict[str, Any]) -> list[str]:
    rows = [[r["test"], r["group"], str(r["n"]), _pct(r["fitted"]), _pct(r["flat"])] for r in report["all_rows"]]
    lines = [
        "",
        "### On every usable row",
        "",
        "Mostly the rows the model was fitted on, so these read better than a new machine would:",
        "",
    ]
    return lines + _table(("test", "rows", "n", "model", "flat η"), rows, (False, False, True, True, True))


def _worst_section(report: dict[str, Any]) -> list[str]:
    worst = [w for w in report["worst_held_out"] if w["test"] == "tg"][:WORST_ROWS]
    if not worst:
        return []
    rows = []
    for w in worst:
        backend = BACKEND_NAMES.get(w["backend"] or "", w["engine"])
        rows.append(
            [
                str(w["line"]),
                w["hardware"],
                w["model"],
                f"{w['bits']:.2f}",
                backend,
                str(w["context"]),
                f"{w['measured']:g}",
                f"{w['fitted']:g}",
                f"{w['error_pct']:+.1f} %",
            ]
        )
    lines = [
        "",
        "### The held-out decode rows it misses most",
        "",
        "(`line`: the row's line in measurements.csv; `context`: the mean tokens in the cache during the "
        "run; `predicted`: the fitted model's tok/s for that run.)",
        "",
    ]
    return lines + _table(
        ("line", "machine", "model", "bits", "backend", "context", "measured", "predicted", "error"),
        rows,
        (True, False, False, True, False, True, True, True, True),
    )


def _terms_section(report: dict[str, Any]) -> list[str]:
    cal = report["calibration"]
    fitted = {k: g for k, g in cal["groups"].items() if g["fitted"]}
    names = [f"{GROUP_LABELS.get(k.split('/')[0], k)}, {k.split('/')[1]}" for k in fitted]
    d = {k: g["decode"] for k, g in fitted.items()}
    p = {k: g["prefill"] for k, g in fitted.items()}
    spec = (
        ("η: share of bandwidth realized on the weights", lambda k: _g(d[k]["eta"])),
        ("t₀: fixed time per step of 32 layers, a current llama.cpp build", lambda k: f"{_g(d[k]['token_ms'])} ms"),
        ("κ: cost of the KV bytes, relative to the weights'", lambda k: _g(d[k]["kv_factor"])),
        ("d: FLOP per quantized weight to unpack it", lambda k: _g(d[k]["dequant_flop"])),
        ("s: each stream past the first, its matmuls × their time at peak", lambda k: _g(d[k]["stream_cost"])),
        ("band: measured ÷ model, 10th–90th percentile", lambda k: f"{d[k]['band'][0]:.2f}–{d[k]['band'][1]:.2f}"),
        ("η_c: prefill share of the FP16 peak (CUDA)", lambda k: _g(p[k]["eta"])),
        ("q: prefill factor for quantized weights", lambda k: _g(p[k]["quant_factor"])),
        ("α: prefill attention factor", lambda k: _g(p[k]["attn_factor"])),
        ("prefill factor for a mixture-of-experts model", lambda k: _g(p[k]["moe_factor"])),
        ("i: prefill factor on the INT8 peak (CUDA and ROCm, quantized)", lambda k: _g(p[k]["int8_factor"])),
        ("training rows", lambda k: str(fitted[k]["rows"])),
    )
    rows = [[label, *(f(k) for k in fitted)] for label, f in spec]
    lines = ["", "### The fitted terms", ""]
    lines += _table(("term", *names), rows, (False, *(True for _ in names)))
    eras = ", ".join(f"{_g(v)} for builds {e}" for e, v in cal["era_token"].items())
    lines += [
        "",
        "Shared by every group:",
        "",
        f"- η_a = {_g(cal['unfused_attn_eta'])}: the share of the FP16 peak attention runs at without flash "
        "attention (llama.cpp);",
        f"- η_f = {_g(cal.get('fused_attn_eta', 0.0))}: the share of the FP16 peak a fused attention kernel's "
        "arithmetic runs at in decode (the kernel takes the longer of that and its cache read);",
        f"- m = {_g(cal['moe_token'])}: a mixture-of-experts model's fixed time per step is m × t₀ (llama.cpp);",
        f"- γ = {_g(cal['expert_spread'])}: B streams read the experts of B^γ independent tokens;",
        f"- s_SYCL = {_g(cal.get('sycl_plain_eta', 1.0))}: decode η's factor where llama.cpp's SYCL backend reads "
        "the weights from the plain block layout, no reordered kernel for their type (advisor.core.sycl_layout);",
        f"- η_f32 = {_g(cal.get('sycl_f32_eta', 1.0))}: the share of the vector engines' FP32 rate (an eighth of "
        "an Arc card's FP16 figure) SYCL's prefill matmuls reach in a build without GGML_SYCL_F16 "
        "(advisor.core.sycl_prefill);",
        f"- η_host = {_g(cal['host_eta'])}: the share of host-RAM bandwidth offloaded weights are read at "
        "(a prior: too few clean rows to fit it);",
        f"- e = {eras or 'none'}: an older llama.cpp build's fixed time is e × t₀ (the fit only: the app "
        "predicts a current build).",
    ]
    backends = [["CUDA", "reference", "1", "1"]]
    backends += [
        [BACKEND_NAMES.get(b, b), str(t["rows"]), _g(t["decode"]), _g(t["prefill"])]
        for b, t in sorted(cal["backends"].items(), key=lambda bt: BACKEND_NAMES.get(bt[0], bt[0]))
    ]
    lines += ["", "llama.cpp backends (a factor b on η and b_c on η_c; one not listed is 1):", ""]
    lines += _table(("backend", "training rows", "decode b", "prefill b_c"), backends, (False, True, True, True))
    vulkan = ", ".join(f"{v} {_g(f)}" for v, f in sorted(cal.get("vulkan_prefill", {}).items()))
    lines += [
        "",
        f"Vulkan's prefill by GPU vendor, a factor on b_c (its matmuls reach the matrix units through each "
        f"vendor's cooperative-matrix extension): {vulkan or 'none fitted'}.",
    ]
    return lines


def _factors_section(report: dict[str, Any]) -> list[str]:
    cal = report["calibration"]
    gens = [[name, str(t["rows"]), _g(t["decode"])] for name, t in sorted(cal["generations"].items())]
    chips = [[name, str(t["rows"]), _g(t["decode"])] for name, t in sorted(cal["machines"].items())]
    lines = [
        "",
        "### Architecture and chip factors on η",
        "",
        "Each GPU architecture with training decode runs, and each catalog chip with its own, gets a factor "
        "on η, pulled toward 1 by a few pseudo-rows measured at 1.0 (a chip without runs borrows its "
        "architecture's; custom hardware gets neither; η × every factor stops at 1):",
        "",
    ]
    lines += _table(("architecture", "training runs", "factor"), gens, (False, True, True))
    lines += [""]
    return lines + _table(
        ("chip (name without memory size, bandwidth)", "training runs", "own factor"), chips, (False, True, True)
    )


def _machines_section(records: Sequence[MachineEntry], catalog: Catalog, report: dict[str, Any]) -> list[str]:
    cal = report["calibration"]
    rows = []
    for e in records:
        entry = catalog.hardware.get(e.hardware_id)
        name = entry.name if entry is not None else e.hardware_id
        hw = to_hardware(entry) if entry is not None else None
        gen = generation_key(hw) if hw is not None else None
        gen_terms = cal["generations"].get(gen) if gen is not None else None
        own = cal["machines"].get(machine_key(hw)) if hw is not None else None
        r = e.record
        rows.append(
            [
                f"{e.devices}× {name}" if e.devices > 1 else name,
                e.engine.value,
                str(r.runs),
                str(r.models),
                f"{r.median:.2f}",
                f"{r.low:.2f}–{r.high:.2f}" if r.runs > 1 else "",
                gen or "—",
                _g(gen_terms["decode"]) if gen_terms else "—",
                _g(own["decode"]) if own else "—",
            ]
        )
    lines = [
        "",
        "### Per machine",
        "",
        "Every catalog machine with published decode runs (all layers on the GPU), as Help → How accurate "
        "is it? lists them: measured ÷ the model's figure for each run (its context, backend, "
        "flash-attention setting and build), training and held-out runs alike. Above 1 the machine ran "
        "faster than the model says. The model's figure includes the machine's own factor, which its "
        "training runs set, so a record near 1 on a machine with many runs is partly by construction.",
        "",
    ]
    return lines + _table(
        ("machine", "engine", "runs", "models", "median", "range", "architecture", "its factor", "own factor"),
        rows,
        (False, False, True, True, True, True, False, True, True),
    )


def render(data: DataSet, catalog: Catalog, calibration: Calibration | None = None) -> str:
    """The generated block, markers included, for `calibration` (the committed constants by default)."""
    report = build_report(data, calibration, worst=WORST_ROWS)
    records = all_records(published_rows(data.cases, calibration))
    lines = [BEGIN, NOTICE, ""]
    lines += _data_section(report)
    lines += source_section(*shipped_source_validation())
    lines += _held_out_section(report, held_out_interval(data.cases, calibration), _shared_sources(data))
    lines += _all_rows_section(report)
    lines += _worst_section(report)
    lines += _terms_section(report)
    lines += _factors_section(report)
    lines += _machines_section(records, catalog, report)
    return "\n".join([*lines, "", END])


_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)


def block_in(text: str) -> str | None:
    """The generated block of a page, markers included; None when it has none."""
    m = _BLOCK.search(text)
    return m.group(0) if m else None


def replace_block(text: str, block: str) -> str:
    if block_in(text) is None:
        raise ValueError(f"no {BEGIN} … {END} markers")
    return _BLOCK.sub(lambda _: block, text, count=1)


def write_docs(block: str, path: Path = DOCS_FILE) -> None:
    path.write_text(replace_block(path.read_text(encoding="utf-8"), block), encoding="utf-8")
