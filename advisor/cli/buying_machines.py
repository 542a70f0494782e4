"""The machines of a buying command: catalog ids and sets ("2x rtx-3090") as Machines, the shared host
flags applied to each, presets, and the scenario every machine is compared on."""

from __future__ import annotations

import argparse
import re
from typing import Any

from pydantic import ValidationError

from advisor.catalog.convert import to_model
from advisor.catalog.loader import Catalog
from advisor.cli.args import (
    FLAGS,
    dest,
    quant_pool,
    resolve_hardware,
    scenario_from_args,
    validation_message,
)
from advisor.cli.errors import CliError
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.machines import (
    Machine,
    machine_from_entry,
)
from advisor.core.presets import PRESETS, preset_changes
from advisor.core.scenario import Scenario, Workload

# Raw hardware flags that make sense for every machine in a comparison (the host around the cards).
SHARED_HARDWARE = {"host_memory_gb", "host_bandwidth_gbps", "host_link_gbps", "split"}


def preset_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


PRESET_KEYS = {preset_key(n): n for n in PRESETS}


def preset_arg(text: str) -> str:
    """A preset by its name, or by any unambiguous part of it ('coding', 'rag', 'agent')."""
    key = preset_key(text)
    if key in PRESET_KEYS:
        return PRESET_KEYS[key]
    hits = [k for k in PRESET_KEYS if key and key in k]
    if len(hits) == 1:
        return PRESET_KEYS[hits[0]]
    raise argparse.ArgumentTypeError(f"unknown preset {text!r}; choose from {', '.join(PRESET_KEYS)}")


# --- building inputs ---------------------------------------------------------------------------


def with_preset(s: Scenario, args: argparse.Namespace) -> Scenario:
    """Apply --preset under any workload flags given explicitly."""
    if not getattr(args, "preset", None):
        return s
    explicit = {f.field for f in FLAGS if f.section == "workload" and getattr(args, dest(f.name), None) is not None}
    changes = {k: v for k, v in preset_changes(args.preset, s.model.max_context).items() if k not in explicit}
    try:
        return s.model_copy(update={"workload": Workload.model_validate({**s.workload.model_dump(), **changes})})
    except ValidationError as err:
        raise CliError(validation_message(err)) from None


def base_scenario(args: argparse.Namespace, catalog: Catalog) -> Scenario:
    """Model, quant and workload from the usual flags, without the machine."""
    ns = argparse.Namespace(**vars(args))
    ns.hardware = None
    for f in FLAGS:
        if f.section == "hardware":
            setattr(ns, dest(f.name), None)
    return with_preset(scenario_from_args(ns, catalog), args)


def parse_machine(spec: str, catalog: Catalog, used: bool = False) -> Machine:
    """'rtx-3090', '2x rtx-3090', '2×rtx-3090' or 'rtx-3090:2'."""
    entry, count = resolve_hardware(catalog, spec)  # any spelling of an id or name, and sets, as everywhere
    try:
        return machine_from_entry(entry, count, used=used)
    except ValueError as err:
        raise CliError(f"--hardware: {err}") from None


def shared_overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in FLAGS:
        value = getattr(args, dest(f.name), None)
        if f.section != "hardware" or value is None:
            continue
        if f.field not in SHARED_HARDWARE:
            raise CliError(
                f"{f.name}: compare takes each machine's figures from its --hardware id; "
                f"only --host-memory, --host-bandwidth, --host-link and --split apply to all"
            )
        out[f.field] = value
    return out


def apply_overrides(machine: Machine, overrides: dict[str, Any]) -> Machine:
    hw = machine.hardware
    changes = {
        k: v
        for k, v in overrides.items()
        if (k != "split" or hw.devices > 1) and (k == "split" or hw.kind is HardwareClass.DISCRETE_GPU)
    }
    if not changes:
        return machine
    try:
        new = Hardware.model_validate({**hw.model_dump(), **changes})
    except ValidationError as err:
        raise CliError(validation_message(err)) from None
    return machine.model_copy(update={"hardware": new})


def pools(catalog: Catalog, which: str = "gguf") -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    return [(k, to_model(m)) for k, m in catalog.models.items()], quant_pool(catalog, which)


def current_machine(s: Scenario, args: argparse.Namespace, catalog: Catalog) -> Machine | None:
    """The user's machine for upgrades: --hardware plus any raw hardware flags, priced from the catalog."""
    raw = any(getattr(args, dest(f.name), None) is not None for f in FLAGS if f.section == "hardware")
    if args.hardware is None and not raw:
        return None
    hw = s.hardware
    entry = catalog.hardware.get(args.hardware) if args.hardware else None
    label = entry.name if entry else hw.name
    label = f"{hw.devices}× {label}" if hw.devices > 1 else label
    price = entry.price_usd * hw.devices if entry is not None and entry.price_usd else None
    power = entry.power_w * hw.devices if entry is not None and entry.power_w else None
    return Machine(
        label=f"your {label}",
        hardware=hw,
        price_usd=price,
        power_w=power,
        price_kind=entry.price_kind if price and entry is not None else None,
        price_seen=entry.price_seen if price and entry is not None else None,
        price_estimate=entry.price_estimate if entry else True,
        catalog_id=entry.id if entry else None,
        origin="current",
    )


# --- commands ----------------------------------------------------------------------------------


def machine_specs(groups: list[list[str]] | None) -> list[str]:
    """--hardware values, each one or more words: '2x rtx-3090' may arrive as two words, and one
    --hardware may name several machines."""
    specs: list[str] = []
    for words in groups or []:
        i = 0
        while i < len(words):
            w = words[i].strip()
            if re.fullmatch(r"\d+\s*[x×*]", w, re.IGNORECASE) and i + 1 < len(words):
                specs.append(f"{w} {words[i + 1]}")
                i += 2
            else:
                specs.append(w)
                i += 1
    return specs
