"""Buying commands: compare machines side by side, rank the catalog under a budget, and find what
it would take to reach a speed.

    python -m advisor.cli compare --hardware rtx-3090 --hardware 2x rtx-3090 --hardware m4-max-40c-128gb \\
        --model llama-3.3-70b --quant q4_k_m
    python -m advisor.cli budget --max-price 3000 --preset coding-assistant
    python -m advisor.cli what-would-it-take --model llama-3.3-70b --tok-s 15 --ttft 2 --hardware rtx-4090
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic import ValidationError

from advisor.catalog.convert import standings, to_model, to_quant
from advisor.catalog.loader import Catalog
from advisor.cli.args import (
    FLAGS,
    add_scenario_flags,
    dest,
    flag_type,
    non_negative_float,
    positive_float,
    positive_int,
    scenario_from_args,
)
from advisor.cli.buying_machines import (
    PRESET_KEYS,
    apply_overrides,
    base_scenario,
    current_machine,
    machine_specs,
    parse_machine,
    pools,
    preset_arg,
    shared_overrides,
    with_preset,
)
from advisor.cli.buying_text import comparison_text, model_budget_text, plan_text, price_text, workload_line
from advisor.cli.errors import CliError
from advisor.core.budget import rank_budget
from advisor.core.budget_model import rank_for_model
from advisor.core.comparison import compare
from advisor.core.fmt import num
from advisor.core.machines import (
    DEFAULT_PC_PRICE_USD,
    MAX_MACHINES,
    Machine,
    catalog_machines,
    unique_label,
)
from advisor.core.running_cost import (
    DEFAULT_ELECTRICITY_USD_PER_KWH,
    DEFAULT_LIFE_YEARS,
    DEFAULT_UTILIZATION,
    CostInputs,
)
from advisor.core.scenario import Scenario, Workload
from advisor.core.upgrades import what_would_it_take
from advisor.present.budget_text import budget_reason, model_budget_data, ranking_data
from advisor.present.compare_text import comparison_data
from advisor.present.figures import PRICE_NOTE, named
from advisor.present.upgrade_text import plan_data


def cmd_compare(args: argparse.Namespace, catalog: Catalog) -> int:
    specs = machine_specs(args.hardware)
    if not 2 <= len(specs) <= MAX_MACHINES:
        raise CliError(f"--hardware: give 2 to {MAX_MACHINES} machines to compare (got {len(specs)})")
    if args.model is None and args.params is None:
        raise CliError("--model: give a model id (or --params) to compare on")
    base = base_scenario(args, catalog)
    overrides = shared_overrides(args)
    machines: list[Machine] = []
    for spec in specs:
        m = apply_overrides(parse_machine(spec, catalog, used=args.used), overrides)
        label = unique_label(m.label, [x.label for x in machines])
        machines.append(m.model_copy(update={"label": label}))
    models, quants = pools(catalog)
    c = compare(
        machines,
        base,
        models,
        quants,
        published=catalog.published,
        costs=_costs(args),
        standing=standings(catalog.models),
    )
    if args.json:
        out = comparison_data(c)
        out["workload"] = base.workload.model_dump(mode="json")
        out["machines"] = [m.model_dump(mode="json") for m in machines]
        print(json.dumps(out, indent=2))
    else:
        print(comparison_text(c, base))
    return 0


_COST_FLAGS = {
    "electricity_usd_per_kwh": "--electricity",
    "life_years": "--life-years",
    "utilization": "--utilization",
    "api_usd_per_million": "--api-price",
}


def _costs(args: argparse.Namespace) -> CostInputs:
    try:
        return CostInputs(
            electricity_usd_per_kwh=args.electricity,
            life_years=args.life_years,
            utilization=args.utilization,
            api_usd_per_million=args.api_price,
        )
    except ValidationError as err:
        first = err.errors()[0]
        flag = _COST_FLAGS.get(str(first["loc"][0]) if first["loc"] else "", "running cost")
        raise CliError(f"{flag}: {first['msg']}") from None


def _cost_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("running cost")
    g.add_argument(
        "--electricity",
        type=non_negative_float,
        default=DEFAULT_ELECTRICITY_USD_PER_KWH,
        metavar="USD/kWh",
        help=f"electricity price (default ${DEFAULT_ELECTRICITY_USD_PER_KWH:g}/kWh, about the US residential average)",
    )
    g.add_argument(
        "--api-price",
        type=positive_float,
        metavar="USD",
        help="an API's price per million output tokens, to break even against",
    )
    g.add_argument(
        "--life-years",
        type=positive_float,
        default=DEFAULT_LIFE_YEARS,
        metavar="YEARS",
        help=f"years the hardware is paid off over (default {DEFAULT_LIFE_YEARS:g})",
    )
    g.add_argument(
        "--utilization",
        type=positive_float,
        default=DEFAULT_UTILIZATION,
        metavar="SHARE",
        help=f"share of the time it generates, 0 to 1 (default {DEFAULT_UTILIZATION:g})",
    )


def _model_scenario(args: argparse.Namespace, catalog: Catalog, base: Scenario) -> Scenario | None:
    """The budget's own model: --model and --quant (Q4_K_M when not given) on the workload flags."""
    if args.model is None:
        if args.quant is not None:
            raise CliError("--quant: give --model too (the budget ranks machines for that model)")
        return None
    m = catalog.models.get(args.model)
    if m is None:
        close = [k for k in catalog.models if args.model.lower() in k][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `catalog models`"
        raise CliError(f"--model: unknown id '{args.model}'{hint}")
    q = catalog.quants.get(args.quant or "q4_k_m")
    if q is None:
        raise CliError(f"--quant: unknown id '{args.quant}'; see `catalog quants`")
    return base.model_copy(update={"model": to_model(m), "quant": to_quant(q)})


def _catalog(args: argparse.Namespace, catalog: Catalog) -> list[Machine]:
    return catalog_machines(
        catalog.hardware.values(), () if args.no_sets else (2, 4), args.pc_price, split=args.set_split, used=args.used
    )


def cmd_budget(args: argparse.Namespace, catalog: Catalog) -> int:
    base = with_preset(_workload_scenario(args), args)
    for_model = _model_scenario(args, catalog, base)
    machines = _catalog(args, catalog)
    models, quants = pools(catalog, args.quants)
    r = rank_budget(machines, base, models, quants, args.max_price, top=args.top)
    mb = (
        rank_for_model(machines, for_model, args.max_price, top=args.top, costs=_costs(args))
        if for_model is not None
        else None
    )
    if args.json:
        out = {"for_model": model_budget_data(mb)} if mb is not None else {}
        print(json.dumps({**out, **ranking_data(r)}, indent=2, ensure_ascii=False))
        return 0
    lines = model_budget_text(mb, for_model) + ["", ""] if mb is not None and for_model is not None else []
    head = (
        f"{'Second ranking: the largest model each runs' if mb else 'Best'} under ${args.max_price:,.0f}"
        f" · {workload_line(base)}"
    )
    lines += [head, "=" * len(head), ""]
    if not r.ranked:
        lines.append("Nothing in the catalog is priced under that.")
    for x in r.ranked:
        big = x.largest
        what = (
            "nothing interactive"
            if big is None
            else f"{big.model_name} {big.quant_name} at {num(big.decode_tok_s)} tok/s"
        )
        lines.append(
            f"{x.rank:>3}. {named(x.machine.label, x.machine.devices, x.machine.split, short=False)} — "
            f"{price_text(x.machine)} — {what}"
        )
        lines.append(f"     {budget_reason(x, r.threshold_tok_s)}")
    lines += [
        "",
        f"note: {PRICE_NOTE}"
        + (f" Each GPU machine includes ${args.pc_price:,.0f} for the PC." if args.pc_price else ""),
    ]
    if r.over_budget:
        lines.append(f"note: {r.over_budget} machines cost more than that.")
    print("\n".join(lines))
    return 0


def cmd_what_would_it_take(args: argparse.Namespace, catalog: Catalog) -> int:
    if args.model is None and args.params is None:
        raise CliError("--model: give a model id (or --params)")
    s = with_preset(scenario_from_args(args, catalog), args)
    current = current_machine(s, args, catalog)
    machines = _catalog(args, catalog)
    plan = what_would_it_take(
        s,
        args.tok_s,
        machines,
        target_ttft_s=args.ttft,
        current=current,
        limit=args.top,
        max_price_usd=args.max_price,
        allow_spill=args.allow_spill,
    )
    if args.json:
        print(json.dumps(plan_data(plan), indent=2, ensure_ascii=False))
    else:
        print(plan_text(plan, s))
    return 0


def _workload_scenario(args: argparse.Namespace) -> Scenario:
    data = {
        f.field: getattr(args, dest(f.name))
        for f in FLAGS
        if f.section == "workload" and getattr(args, dest(f.name), None) is not None
    }
    try:
        return Scenario(workload=Workload.model_validate(data))
    except ValidationError as err:
        first = err.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        flag = next((f.name for f in FLAGS if f.section == "workload" and f.field == field), field or "workload")
        raise CliError(f"{flag}: {first['msg']}") from None


def _buying_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--used",
        action="store_true",
        help="price machines at their used price where the catalog has one (each price shows its month)",
    )
    p.add_argument(
        "--preset", type=preset_arg, help=f"workload preset: {', '.join(PRESET_KEYS)} (explicit workload flags win)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _catalog_machine_flags(p: argparse.ArgumentParser) -> None:
    """For the commands that rank the whole catalog's machines."""
    p.add_argument("--no-sets", action="store_true", help="leave out 2× and 4× multi-GPU sets")
    p.add_argument(
        "--pc-price",
        type=non_negative_float,
        default=DEFAULT_PC_PRICE_USD,
        metavar="USD",
        help="the PC around discrete GPUs, added to their price (catalog GPU prices are the card alone; "
        f"default ${DEFAULT_PC_PRICE_USD:,.0f}, an estimate; 0 if you have one)",
    )
    p.add_argument(
        "--set-split",
        choices=("layer", "tensor"),
        default="layer",
        help="how the 2× and 4× sets share the model: layer (llama.cpp's default) or tensor",
    )


def add_commands(sub: Any) -> None:
    cmp = sub.add_parser(
        "compare", help="machines side by side for one model, quant and workload", conflict_handler="resolve"
    )
    add_scenario_flags(cmp)
    cmp.add_argument(
        "--hardware",
        action="append",
        nargs="+",
        metavar="ID",
        help="a machine: hardware id, or a multi-GPU set as '2x rtx-3090'; repeat for 2 to 6 machines",
    )
    _cost_flags(cmp)
    _buying_flags(cmp)
    cmp.set_defaults(run=cmd_compare)

    bud = sub.add_parser("budget", help="rank the catalog (and 2×/4× GPU sets) under a price")
    bud.add_argument("--max-price", type=positive_float, required=True, metavar="USD", help="price cap, US dollars")
    g = bud.add_argument_group("workload")
    for f in FLAGS:
        if f.section == "workload":
            g.add_argument(f.name, type=flag_type(f), help=f.help, dest=dest(f.name))
    bud.add_argument(
        "--model",
        help="the model to buy for (catalog id): machines that hold it and meet the "
        "interactive speed first, cheapest first",
    )
    bud.add_argument("--quant", help="its quant (catalog id; Q4_K_M when not given)")
    bud.add_argument(
        "--quants",
        choices=("gguf", "gpu", "all"),
        default="gguf",
        help="which quant formats the largest-model ranking considers",
    )
    _catalog_machine_flags(bud)
    bud.add_argument("--top", type=positive_int, default=15, help="how many to list")
    _cost_flags(bud)
    _buying_flags(bud)
    bud.set_defaults(run=cmd_budget)

    wwit = sub.add_parser(
        "what-would-it-take",
        help="cheapest machines, and your smallest upgrade, for a target speed",
        conflict_handler="resolve",
    )
    add_scenario_flags(wwit)
    wwit.add_argument(
        "--hardware",
        metavar="ID",
        help="your current machine (hardware id; raw hardware flags such as "
        "--gpus or --host-bandwidth describe it further), for upgrades",
    )
    wwit.add_argument("--tok-s", type=positive_float, required=True, help="target decode speed per stream, tok/s")
    wwit.add_argument("--ttft", type=positive_float, help="target time to first token, seconds")
    wwit.add_argument("--max-price", type=positive_float, metavar="USD", help="price cap for machines to buy")
    wwit.add_argument(
        "--allow-spill",
        action="store_true",
        help="let a machine that keeps part of the model in system RAM count as reaching the target",
    )
    _catalog_machine_flags(wwit)
    wwit.add_argument("--top", type=positive_int, default=8, help="how many machines to list")
    _buying_flags(wwit)
    wwit.set_defaults(run=cmd_what_would_it_take)
