"""Refit the realistic-speed model and report it against the held-out measurements.

    .venv/bin/python benchmarks/validate.py            # fit on the training rows, print the report
    .venv/bin/python benchmarks/validate.py --write    # ... and rewrite the FITTED block of
                                                       #     advisor/core/calibration.py and the app's
                                                       #     catalogs/published/runs.json
    .venv/bin/python benchmarks/validate.py --json     # the report as JSON
    .venv/bin/python benchmarks/validate.py --docs     # rewrite the figures in docs/accuracy.md from the
                                                       #     committed constants (no refit)
    .venv/bin/python benchmarks/validate.py --cv       # 5-fold cross-validation by configuration inside
                                                       #     the training rows, seeds 0..2 (writes nothing;
                                                       #     --cv K --cv-seeds N to change; see
                                                       #     advisor/validation/cv.py)

The fit is deterministic (fixed split, fixed start, no randomness): running it twice writes the same
constants. `python -m advisor.cli validate` reports the constants that are committed."""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.atomic import write_atomic  # noqa: E402
from advisor.catalog.loader import PUBLISHED_FILE, shipped_catalog  # noqa: E402
from advisor.core.calibration import Calibration  # noqa: E402
from advisor.validation.cv import DEFAULT_K, DEFAULT_SEEDS, cross_validate, cv_dict, cv_text  # noqa: E402
from advisor.validation.data import load_dataset  # noqa: E402
from advisor.validation.docs_block import DOCS_FILE, render, write_docs  # noqa: E402
from advisor.validation.fit import BACKEND_PRIOR_ROWS, GENERATION_PRIOR_ROWS, MACHINE_PRIOR_ROWS, fit  # noqa: E402
from advisor.validation.out_of_sample import (  # noqa: E402
    held_out_interval,
    pooled,
    pooled_text,
    shipped_fit,  # noqa: E402
)
from advisor.validation.published import held_out_summary, published_json  # noqa: E402
from advisor.validation.report import build_report, report_text  # noqa: E402

CALIBRATION_PY = ROOT / "advisor" / "core" / "calibration.py"
PUBLISHED_JSON = ROOT.joinpath("catalogs", *PUBLISHED_FILE)
BEGIN = "# --- FITTED: begin"
END = "# --- FITTED: end"


def _num(v: float | None) -> str:
    return "None" if v is None else repr(float(v))


def fitted_block(cal: Calibration, notes: tuple[str, ...]) -> str:
    lines = [f"{BEGIN} (written by benchmarks/validate.py --write; edit there, not here) ---------------",
             "FITTED_TERMS: dict[tuple[HardwareClass, Engine], ClassTerms] = {"]
    short = {"discrete_gpu": "D", "unified": "U", "cpu": "C", "llama.cpp": "L", "vllm": "V", "mlx": "X"}
    for (k, e), t in cal.terms.items():
        if not t.fitted:
            continue
        d, p = t.decode, t.prefill
        lines += [
            f"    ({short[k.value]}, {short[e.value]}): ClassTerms(",
            f"        DecodeTerms(eta={_num(d.eta)}, token_ms={_num(d.token_ms)}, kv_factor={_num(d.kv_factor)},",
            f"                    dequant_flop={_num(d.dequant_flop)}, stream_ms={_num(d.stream_ms)},",
            f"                    band=({_num(d.band[0])}, {_num(d.band[1])})),",
            f"        PrefillTerms(eta={_num(p.eta)}, quant_factor={_num(p.quant_factor)}, "
            f"attn_factor={_num(p.attn_factor)}, moe_factor={_num(p.moe_factor)}),",
            f"        fitted=True, rows={t.rows}),",
        ]
    lines += ["}", f"FITTED_HOST_ETA = {_num(cal.host_eta)}", f"FITTED_EXPERT_SPREAD = {_num(cal.expert_spread)}",
              f"FITTED_UNFUSED_ATTN_ETA = {_num(cal.unfused_attn_eta)}",
              f"FITTED_MOE_TOKEN = {_num(cal.moe_token)}",
              "FITTED_ERA_TOKEN: dict[BuildEra, float] = {"]
    for e, v in cal.era_token.items():
        lines.append(f"    BuildEra.{e.name}: {_num(v)},")
    lines += ["}", "FITTED_BACKENDS: dict[Backend, BackendTerms] = {"]
    for b, bt in sorted(cal.backends.items()):
        lines.append(f"    Backend.{b.name}: BackendTerms(decode={_num(bt.decode)}, prefill={_num(bt.prefill)}, "
                     f"rows={bt.rows}),")
    lines += ["}", "FITTED_MACHINES: dict[str, MachineTerms] = {"]
    for name, mt in sorted(cal.machines.items()):
        lines.append(f"    {json.dumps(name, ensure_ascii=False)}: "
                     f"MachineTerms(decode={_num(mt.decode)}, rows={mt.rows}),")
    lines += ["}", "FITTED_GENERATIONS: dict[str, MachineTerms] = {"]
    for name, mt in sorted(cal.generations.items()):
        lines.append(f"    {json.dumps(name, ensure_ascii=False)}: "
                     f"MachineTerms(decode={_num(mt.decode)}, rows={mt.rows}),")
    lines += ["}", "FITTED_NOTES: tuple[str, ...] = ("]
    for n in notes:
        chunks = textwrap.wrap(n, 90, drop_whitespace=False)
        lines += [f"    {json.dumps(c, ensure_ascii=False)}" for c in chunks[:-1]]
        lines.append(f"    {json.dumps(chunks[-1], ensure_ascii=False)},")
    lines += [")", f"{END} -----------------------------------------------------------------------------------"]
    return "\n".join(lines)


def write_block(block: str, path: Path = CALIBRATION_PY) -> None:
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"[^\n]*", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: FITTED markers not found")
    path.write_text(pattern.sub(lambda _: block, text, count=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true",
                    help="rewrite the FITTED block of advisor/core/calibration.py and catalogs/published/runs.json")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cv", nargs="?", type=int, const=DEFAULT_K, default=None, metavar="K",
                    help=f"K-fold cross-validation by configuration inside the training rows (K={DEFAULT_K} "
                         "when not given); reports it and writes nothing")
    ap.add_argument("--cv-seeds", type=int, default=DEFAULT_SEEDS, metavar="N",
                    help=f"fold assignments (seeds 0..N-1) for --cv (default {DEFAULT_SEEDS})")
    ap.add_argument("--docs", action="store_true",
                    help="rewrite the generated figures in docs/accuracy.md from the committed constants")
    args = ap.parse_args(argv)
    if args.cv is not None and args.write:
        ap.error("--cv writes nothing; run --write on its own")
    data = load_dataset(shipped_catalog())
    if args.docs:  # the committed constants, so after a --write, in a run of its own
        if args.write or args.cv is not None:
            ap.error("--docs renders the committed constants; run it on its own, after --write")
        write_docs(render(data, shipped_catalog()))
        print(f"wrote the accuracy figures to {DOCS_FILE.relative_to(ROOT)}", file=sys.stderr)
        return 0
    if args.cv is not None:
        start = time.perf_counter()
        try:
            cv = cross_validate(data.cases, k=args.cv, seeds=args.cv_seeds)
        except ValueError as err:
            ap.error(str(err))
        every, held = pooled(data.cases, cv), held_out_interval(data.cases)
        if args.json:
            out = cv_dict(cv)
            out["every_row_out_of_sample"] = [
                {"seed": r.seed, "groups": {k: st.as_dict() for k, st in r.stats.items()},
                 "depth0_p90_interval_pct": [round(v, 1) for v in r.depth0_interval]} for r in every]
            out["held_out_depth0_p90_interval_pct"] = [round(v, 1) for v in held]
            print(json.dumps(out, indent=2))
        else:
            print(cv_text(cv, pooled_text(every, held)))
        print(f"cross-validation: {args.cv * args.cv_seeds} fits in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)
        return 0
    result = fit(data.cases)
    cal = shipped_fit(data.cases, result.calibration) if args.write else result.calibration  # out-of-sample bands
    notes = (
        f"fitted on {result.decode_rows} decode + {result.prefill_rows} prefill rows, the training part of "
        f"the {len(data.cases)} usable measurements ({len(data.excluded)} rows marked excluded in the file "
        "are left out)",
        "backend factors: CUDA is the reference (1.0); the others are pulled toward 1 as if by "
        f"{BACKEND_PRIOR_ROWS:g} extra rows at 1.0",
        "bands: 10th/90th percentile of measured ÷ predicted decode over the usable rows of the group "
        "(of its class when the group has fewer than 30), each row predicted out of sample (held out: this "
        "fit; training rows: 5-fold cross-validation, seed 0)",
        f"generation factors: the training decode rows of one GPU architecture, pulled toward 1 as if by "
        f"{GENERATION_PRIOR_ROWS:g} extra rows at 1.0",
        f"machine factors: a catalog machine's training decode rows, pulled toward 1 as if by "
        f"{MACHINE_PRIOR_ROWS:g} extra rows at 1.0",
        "t₀ (token_ms) is a current llama.cpp build's (2025 onward); rows from older builds were fitted "
        "with FITTED_ERA_TOKEN × t₀ (the file's build_date; undated rows count as current)",
    )
    if args.write:
        write_block(fitted_block(cal, notes))
        print(f"wrote the fitted terms to {CALIBRATION_PY.relative_to(ROOT)}", file=sys.stderr)
        # with the terms just written, and the held-out figures they give
        write_atomic(PUBLISHED_JSON, published_json(data.cases, cal, held_out_summary(data, cal)))
        print(f"wrote the published measurements to {PUBLISHED_JSON.relative_to(ROOT)}", file=sys.stderr)
    report = build_report(data, cal)
    print(json.dumps(report, indent=2) if args.json else report_text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
