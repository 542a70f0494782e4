"""`recommend`: the largest model and quant that fits this machine and stays interactive.

python -m advisor.cli recommend --hardware rtx-4090 --context 8192"""

from __future__ import annotations

import argparse
from typing import Any

from advisor.catalog.convert import standings, to_model
from advisor.catalog.loader import Catalog
from advisor.cli.args import add_scenario_flags, quant_pool, scenario_from_args
from advisor.core.fmt import num
from advisor.core.recommend import recommend
from advisor.present.recommend_text import ranking_text


def cmd_recommend(args: argparse.Namespace, catalog: Catalog) -> int:
    s = scenario_from_args(args, catalog)
    models = [(k, to_model(m)) for k, m in catalog.models.items()]
    rec = recommend(
        s, models, quant_pool(catalog, args.quants), runner_ups=args.runner_ups, standing=standings(catalog.models)
    )
    if args.json:
        print(rec.model_dump_json(indent=2))
        return 0
    print(
        f"{s.hardware.name}, {s.workload.context:,} tokens context, {s.workload.streams} stream(s), "
        f"interactive at ≥ {num(rec.threshold_tok_s)} tok/s"
    )
    if rec.pick is None:
        print("Nothing in the catalog fits and stays interactive here.")
    else:
        p = rec.pick
        print(f"Pick:        {p.model_name} at {p.quant_name} — {p.reason}")
        for c in rec.runner_ups:
            print(f"Runner-up:   {c.model_name} at {c.quant_name} — {c.reason}")
    for c in rec.rejected:
        print(f"Lost:        {c.model_name} at {c.quant_name} — {c.reason}")
    print(ranking_text(rec))
    return 0


def add_commands(sub: Any) -> None:
    rec = sub.add_parser("recommend", help="largest model and quant that fits and stays interactive")
    add_scenario_flags(rec)
    rec.add_argument("--quants", choices=("gguf", "gpu", "all"), default="gguf", help="which quant formats to consider")
    rec.add_argument("--runner-ups", type=int, default=4)
    rec.add_argument("--json", action="store_true")
    rec.set_defaults(run=cmd_recommend)
