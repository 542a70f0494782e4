"""Machines to buy or compare: one configuration with its price and power, multi-GPU sets of a
catalog card, and a saved comparison.

Catalog entries come in as `Hardware` objects (catalog entries subclass it) and their price and
power are read by attribute, so the core never imports the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import Field, model_validator

from advisor.core.base import Frozen
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.running_cost import CostInputs
from advisor.core.scenario import Scenario, Workload

MAX_MACHINES = 6
SET_SIZES = (2, 4)  # multi-GPU sets the catalog ranking adds for every discrete GPU
COMPARE_SCHEMA_VERSION = 1

Origin = Literal["catalog", "set", "current", "edited"]
Split = Literal["tensor", "layer"]
PriceKind = Literal["new", "used"]
DEFAULT_SPLIT: Split = "layer"  # llama.cpp's default (-sm layer), and the main window's
# The PC around discrete GPUs when ranking them against whole machines (Macs, mini PCs): a desktop with a
# current 8-core CPU, board, 64 GB DDR5, 1000 W PSU, case and SSD. An estimate, shown and editable.
DEFAULT_PC_PRICE_USD = 800.0
_COUNT_PREFIX = re.compile(r"^\d+× ")


class Machine(Frozen):
    """One configuration to compare: the hardware the core evaluates, plus what it costs and draws.

    Price and power are for the whole configuration (a 2× set costs two cards). GPU prices are the
    card alone; Macs, mini PCs and CPU entries are whole machines."""

    label: str = Field(min_length=1, max_length=200)
    hardware: Hardware
    price_usd: float | None = Field(None, ge=0.01, le=100_000_000)  # a cent at least: tok/s per $ stays finite
    price_estimate: bool = True
    price_kind: PriceKind | None = Field(None, description="New or used; None for a price the person typed")
    price_seen: str | None = Field(None, pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="Month the price was seen")
    power_w: float | None = Field(None, ge=0.1, le=10_000_000)
    catalog_id: str | None = Field(None, max_length=80)
    origin: Origin = "catalog"

    @property
    def devices(self) -> int:
        return self.hardware.devices

    @property
    def split(self) -> Split:
        return self.hardware.split

    @property
    def unit_price_usd(self) -> float | None:
        return self.price_usd / self.devices if self.price_usd is not None else None


def set_label(name: str, count: int) -> str:
    return name if count == 1 else f"{count}× {name}"


def single_name(name: str) -> str:
    """'2× NVIDIA GeForce RTX 3090' -> 'NVIDIA GeForce RTX 3090': one card of a set."""
    return _COUNT_PREFIX.sub("", name)


def plain_hardware(entry: Hardware) -> Hardware:
    """A catalog entry (or any Hardware subclass) as the core's plain Hardware."""
    if type(entry) is Hardware:
        return entry
    return Hardware.model_validate(entry.model_dump(include=set(Hardware.model_fields)))


def has_used_price(entry: Hardware) -> bool:
    return getattr(entry, "used_price_usd", None) is not None


def machine_from_entry(
    entry: Hardware,
    count: int = 1,
    split: Split = DEFAULT_SPLIT,
    label: str | None = None,
    origin: Origin | None = None,
    used: bool = False,
) -> Machine:
    """A catalog entry as a machine; count > 1 makes a multi-GPU set (layer split, as llama.cpp does,
    unless `split` says tensor), priced and powered per card. `used` takes the entry's used price
    where it has one (its new price otherwise)."""
    if count < 1:
        raise ValueError("count must be at least 1")
    if count > 1 and entry.kind is not HardwareClass.DISCRETE_GPU:
        raise ValueError(f"{entry.name}: multi-device sets are for discrete GPUs")
    price = getattr(entry, "price_usd", None)
    kind: PriceKind | None = getattr(entry, "price_kind", "new") if price else None
    seen = getattr(entry, "price_seen", None) if price else None
    estimate = bool(getattr(entry, "price_estimate", True))
    if used and has_used_price(entry):
        price, kind, seen = getattr(entry, "used_price_usd", None), "used", getattr(entry, "used_price_seen", None)
        estimate = "used_price_usd" in (getattr(entry, "estimates", None) or ())
    power = getattr(entry, "power_w", None)
    name = set_label(entry.name, count)
    hw = plain_hardware(entry)
    if count > 1:
        hw = Hardware.model_validate({**hw.model_dump(), "devices": count, "split": split, "name": name})
    return Machine(
        label=label or name,
        hardware=hw,
        price_usd=price * count if price else None,
        price_estimate=estimate,
        price_kind=kind,
        price_seen=seen,
        power_w=power * count if power else None,
        catalog_id=getattr(entry, "id", None),
        origin=origin or ("set" if count > 1 else "catalog"),
    )


def with_devices(machine: Machine, count: int, split: Split | None = None) -> Machine:
    """The same card, `count` of them: price and power scale per card; the split stays the machine's
    unless `split` names one."""
    if count == machine.devices:
        return machine
    if machine.hardware.kind is not HardwareClass.DISCRETE_GPU and count > 1:
        raise ValueError(f"{machine.label}: multi-device sets are for discrete GPUs")
    per = machine.devices
    hw = Hardware.model_validate(
        {
            **machine.hardware.model_dump(),
            "devices": count,
            "split": split or machine.hardware.split,
            "name": set_label(single_name(machine.hardware.name), count),
        }
    )
    return machine.model_copy(
        update={
            "label": set_label(single_name(machine.label), count),
            "hardware": hw,
            "price_usd": machine.price_usd / per * count if machine.price_usd else None,
            "power_w": machine.power_w / per * count if machine.power_w else None,
            "origin": "set"
            if count > 1 and machine.origin == "catalog"
            else ("catalog" if count == 1 and machine.origin == "set" else machine.origin),
        }
    )


def catalog_machines(
    entries: Iterable[Hardware],
    set_sizes: Sequence[int] = SET_SIZES,
    pc_price_usd: float = 0.0,
    split: Split = DEFAULT_SPLIT,
    used: bool = False,
) -> list[Machine]:
    """Every catalog entry, plus 2× and 4× sets (split as `split` says) of each desktop or datacenter
    GPU. `pc_price_usd` adds the PC around discrete GPUs (their catalog price is the card alone);
    `used` prices each at its used price where it has one."""
    out: list[Machine] = []
    for e in entries:
        counts = [1]
        if e.kind is HardwareClass.DISCRETE_GPU and "laptop" not in e.name.lower():
            counts += list(set_sizes)
        for n in counts:
            m = machine_from_entry(e, n, split, used=used)
            if pc_price_usd and e.kind is HardwareClass.DISCRETE_GPU and m.price_usd is not None:
                m = m.model_copy(update={"price_usd": m.price_usd + pc_price_usd})
            out.append(m)
    return out


def scenario_on(base: Scenario, hardware: Hardware) -> Scenario:
    """The base scenario (model, quant, workload) on another machine."""
    return base.model_copy(update={"hardware": hardware})


def unique_label(label: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if label not in used:
        return label
    n = 2
    while f"{label} ({n})" in used:
        n += 1
    return f"{label} ({n})"


class CompareSetup(Frozen):
    """What a comparison is made of: saved and opened like a scenario."""

    schema_version: int = Field(COMPARE_SCHEMA_VERSION, ge=1, le=COMPARE_SCHEMA_VERSION)
    kind: Literal["comparison"] = "comparison"
    machines: tuple[Machine, ...] = Field((), max_length=MAX_MACHINES)
    model: ModelArch = ModelArch()
    quant: Quant = Quant()
    workload: Workload = Workload()
    model_id: str | None = None
    quant_id: str | None = None
    current: Machine | None = Field(None, description="The user's own machine, for upgrades")
    budget_usd: float = Field(3000.0, ge=1, le=100_000_000)
    include_sets: bool = True
    budget_used: bool = Field(False, description="The budget ranking prices machines at their used price where known")
    set_split: Split = Field(DEFAULT_SPLIT, description="How the ranking's 2× and 4× sets share the model")
    budget_by: Literal["model", "largest"] = Field(
        "model", description="Rank the budget by the chosen model (fits, then price) or the largest model"
    )
    pc_price_usd: float = Field(
        DEFAULT_PC_PRICE_USD,
        ge=0,
        le=1_000_000,
        description="Added to discrete GPUs in the rankings: the PC around them",
    )
    target_tok_s: float = Field(20.0, ge=0.01, le=100_000)
    target_ttft_s: float | None = Field(None, ge=0.001, le=100_000)
    take_max_price_usd: float | None = Field(None, ge=1, le=100_000_000, description="What-would-it-take's cap")
    take_include_sets: bool = True
    take_allow_spill: bool = False
    costs: CostInputs = Field(
        CostInputs(), description="Electricity, life, utilization and API price for the running cost"
    )

    @model_validator(mode="after")
    def _unique_labels(self) -> CompareSetup:
        labels = [m.label for m in self.machines]
        if len(set(labels)) != len(labels):
            raise ValueError("machine labels must be unique")
        return self

    @property
    def scenario(self) -> Scenario:
        return Scenario(model=self.model, quant=self.quant, workload=self.workload)
