"""Leave-one-source-out cross-validation of the realistic-speed model (advisor/validation/loso.py).

    .venv/bin/python benchmarks/loso.py                # print the table and write catalogs/published/loso.json
    .venv/bin/python benchmarks/loso.py --jobs 1       # one process (default: 2)
    .venv/bin/python benchmarks/loso.py --no-write     # print only

One fit per source by default (about 80, 15–40 s each: 20–40 minutes on two cores); --folds 8 fits eight
folds of whole sources, the scheme the shipped bands use.
The figures depend on the core's model and the data, not on the committed constants, so rerun it
after changing either. Ends with one key=value line."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.atomic import write_atomic  # noqa: E402
from advisor.catalog.loader import PUBLISHED_FILE, shipped_catalog  # noqa: E402
from advisor.validation import loso  # noqa: E402
from advisor.validation.data import load_dataset  # noqa: E402

LOSO_JSON = ROOT.joinpath("catalogs", *PUBLISHED_FILE[:-1], "loso.json")


def _one(job: tuple[int, int | None]) -> tuple[int, loso.LosoResult]:
    """One fold (a worker process loads the data itself)."""
    fold, k = job
    cases = load_dataset(shipped_catalog()).cases
    return fold, loso.leave_one_source_out(cases, only=fold, k=k)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--folds", type=int, default=loso.REPORTED_FOLDS, help="folds of whole sources; 0: one per source")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--rows", type=Path, help="also write each row's source, measured and predicted figures as CSV")
    args = ap.parse_args()
    cases = load_dataset(shipped_catalog()).cases
    k = args.folds or None
    folds = loso.source_folds(cases, k)
    jobs = [(f, k) for f in sorted(set(folds.values()))]
    t0 = time.perf_counter()
    parts: list[loso.LosoResult] = []
    with ProcessPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for n, (f, part) in enumerate(pool.map(_one, jobs), start=1):
            parts.append(part)
            names = ", ".join(s for s, g in folds.items() if g == f)
            print(f"  fold {n}/{len(jobs)}: {names}", file=sys.stderr, flush=True)
    res = loso.merge(parts)
    d = {**loso.loso_dict(cases, res), "folds": len(jobs)}
    print(loso.loso_text(d))
    if args.rows:
        with args.rows.open("w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(
                ["line", "source", "test", "kind", "hardware", "model", "devices", "measured", "predicted", "simple"]
            )
            for c, src, p, q in zip(cases, res.sources, res.predicted, res.simple, strict=True):
                out.writerow(
                    [
                        c.row.line,
                        src,
                        c.test,
                        c.kind,
                        c.scenario.hardware.name,
                        c.scenario.model.name,
                        c.scenario.hardware.devices,
                        c.measured,
                        f"{p:.4g}",
                        f"{q:.4g}",
                    ]
                )
    if not args.no_write:
        write_atomic(LOSO_JSON, json.dumps(d, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {LOSO_JSON.relative_to(ROOT)}", file=sys.stderr)
    depth0 = next(r for r in d["kinds"] if r["test"] == "tg" and r["group"] == "depth 0")
    every = next(r for r in d["kinds"] if r["test"] == "tg" and r["group"] == "all")
    print(
        f"loso_sources={d['sources']} loso_decode_depth0_median={depth0['median_pct']} "
        f"loso_decode_depth0_p90={depth0['p90_pct']} loso_decode_all_median={every['median_pct']} "
        f"loso_s={time.perf_counter() - t0:.0f}"
    )
    return 0 if np.isfinite(res.predicted).all() else 1


if __name__ == "__main__":
    sys.exit(main())
