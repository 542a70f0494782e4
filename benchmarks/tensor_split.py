"""Predicted against measured for the tensor-split runs in benchmarks/data/pending/tensor-split.csv.

    .venv/bin/python benchmarks/tensor_split.py            # the per-row table and the summary

The validation does not read these rows (several lack a depth or a catalog model), so this script
predicts each with `advisor estimate`, filling what the catalog lacks with the stand-in named in the
row's "assumed" column, and prints the error by split, test and engine. Ends with one key=value line.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.cli import main as cli_main  # noqa: E402

ROWS = ROOT / "benchmarks" / "data" / "pending" / "tensor-split.csv"


def is_tensor(r: dict[str, str]) -> bool:
    return "-sm tensor" in r["notes"] or "tensor parallel" in r["notes"].lower()


def scenario(r: dict[str, str]) -> tuple[dict[str, Any] | None, str]:
    """The estimate's flags for a row and the stand-ins used; None when the row cannot be scored."""
    a: dict[str, Any] = {}
    assumed = []
    hw = r["hardware_id"]
    if not hw:
        hw = "a100-80gb-sxm"
        assumed.append("A100 SXM 80 GB")
    a["hardware"] = hw if r["gpus"] == "1" else f"{r['gpus']}x {hw}"
    a["split"] = "tensor" if is_tensor(r) else "layer"
    model, quant, name = r["model_id"], r["quant"], r["model_name"]
    if not model:
        if name.startswith("llama 1B"):
            model = "llama-3.2-1b"
            assumed.append("Llama 3.2 1B shape")
        elif "Qwen3.8-27B" in name:
            if "quant not stated" in name:
                return None, "quant not stated"
            model = "qwen3.6-27b"
            assumed.append("Qwen3.6-27B shape")
        else:
            return None, "model not in the catalog"
    if not quant:
        if "AWQ" in name:
            quant = "awq-4bit-g128"
            assumed.append("AWQ g128")
        elif "UD-Q4_K_M" in name:
            quant = "q4_k_m"
            assumed.append("Q4_K_M")
        elif "UD-Q4_K_XL" in name:
            quant = "q4_k_m"
            a["bits"] = round(17.545e9 * 8 / 26.9e9, 3)
            assumed.append(f"{a['bits']} bpw from 17.545 GB")
        else:
            return None, "quant not stated"
    a.update(model=model, quant=quant, engine=r["engine"], batch=int(r["batch"] or 1))
    if r["depth"] == "":
        assumed.append("depth 0")
    a["context"] = int(r["depth"] or 0)
    if r["test"] == "pp":
        a["prompt"] = int(r["prompt_tokens"])
    if r["backend"]:
        a["backend"] = r["backend"].lower()
    return a, "; ".join(assumed)


def estimate(a: dict[str, Any]) -> dict[str, Any] | None:
    argv = ["estimate", "--json"] + [x for k, v in a.items() for x in (f"--{k}", str(v))]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return json.loads(out.getvalue()) if code == 0 else None


def summary(errors: list[float]) -> str:
    a = sorted(abs(e) for e in errors)
    p90 = a[min(len(a) - 1, round(0.9 * (len(a) - 1)))]
    return f"n={len(a)}, median {statistics.median(a):.1f} %, p90 {p90:.1f} %"


def main() -> int:
    rows = list(csv.DictReader(ROWS.open(encoding="utf-8")))
    groups: dict[str, list[float]] = {}
    print("| line | GPUs | split | engine | model | test | batch | measured | predicted | error % | assumed |")
    print("|---:|---:|---|---|---|---|---:|---:|---:|---:|---|")
    for line, r in enumerate(rows, start=2):
        a, assumed = scenario(r)
        d = estimate(a) if a is not None else None
        split = ("tensor" if is_tensor(r) else "layer") if r["gpus"] != "1" else "one GPU"
        head = f"| {line} | {r['gpus']} | {split} | {r['engine']} | {r['model_name'][:40]} | {r['test']} | {r['batch']}"
        if a is None or d is None:
            print(f"{head} | {r['tok_s']} | — | — | not scored: {assumed or 'the estimate refused it'} |")
            continue
        pred = (
            d["prefill_tok_s"] if r["test"] == "pp" else (d["aggregate_tok_s"] if a["batch"] > 1 else d["decode_tok_s"])
        )
        e = 100.0 * (pred - float(r["tok_s"])) / float(r["tok_s"])
        for key in (
            f"{split} {r['test']}",
            f"{split} {r['test']} {r['engine']}",
            f"{split} {r['test']} batch {a['batch'] > 1 and '>1' or '1'}",
        ):
            groups.setdefault(key, []).append(e)
        print(f"{head} | {r['tok_s']} | {pred:.1f} | {e:+.1f} | {assumed or '—'} |")
    print()
    for key in sorted(groups):
        print(f"- {key}: {summary(groups[key])}")
    batch1 = groups.get("tensor tg batch 1", [])
    med = statistics.median(abs(e) for e in batch1) if batch1 else float("nan")
    print(f"tensor_decode_batch1_rows={len(batch1)} tensor_decode_batch1_median={med:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
