"""How many published rows ran on a machine and a model the catalog holds: the share of real runs a user
can reproduce by picking catalog entries, the rest being machines or models the advisor knows only
from hardware_specs.csv or a typical shape."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from advisor.catalog.loader import Catalog
from advisor.validation.measurements import HardwareSpec, Measurement
from advisor.validation.resolve import catalog_model_key


def machine_in_catalog(row: Measurement, catalog: Catalog, specs: Mapping[str, HardwareSpec]) -> bool:
    """The row's machine is a catalog entry: by its id, or a hardware_specs.csv line of a catalog device."""
    if row.hardware_id:
        return row.hardware_id in catalog.hardware
    spec = specs.get(row.hardware_name)
    return spec is not None and spec.catalog_id in catalog.hardware


def model_in_catalog(row: Measurement, catalog: Catalog) -> bool:
    """The row's model is a catalog entry: by its id, or a name that names one (MODEL_ALIASES)."""
    key = catalog_model_key(row)
    return bool(key) and key in catalog.models


@dataclass(frozen=True)
class Coverage:
    rows: int  # published rows counted: every row not excluded, scored or skipped
    machine: int  # on a catalog machine
    model: int  # of a catalog model
    both: int  # on a catalog machine and of a catalog model

    def pct(self, n: int) -> float:
        return 100.0 * n / self.rows if self.rows else 0.0


def catalog_coverage(rows: Iterable[Measurement], catalog: Catalog, specs: Mapping[str, HardwareSpec]) -> Coverage:
    machine = model = both = total = 0
    for row in rows:
        if row.exclude_reason:
            continue
        on_machine, on_model = machine_in_catalog(row, catalog, specs), model_in_catalog(row, catalog)
        total += 1
        machine += on_machine
        model += on_model
        both += on_machine and on_model
    return Coverage(rows=total, machine=machine, model=model, both=both)
