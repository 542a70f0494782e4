"""The compare window's state: the setup (machines, model, quant, workload), validated on every
edit, with each machine's row and curves computed once and kept until its inputs change, so adding
a machine computes only that machine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, Signal

from advisor.catalog.convert import standings, to_model, to_quant
from advisor.catalog.loader import Catalog
from advisor.core.comparison import CompareRow, Comparison, compare, compare_row, pool
from advisor.core.curves import AXES, Axis, Curve, curve
from advisor.core.machines import MAX_MACHINES, CompareSetup, Machine, unique_label, with_devices
from advisor.core.presets import preset_changes
from advisor.core.scenario import Scenario
from advisor.ui import theme

CURVE_POINTS = 200  # per plotted curve: smooth at any size, cheap to draw six of


@dataclass(frozen=True)
class CompareSnapshot:
    setup: CompareSetup
    comparison: Comparison
    curves: dict[str, dict[Axis, Curve]]  # machine label -> axis -> curve
    colors: dict[str, str]  # machine label -> theme.SERIES colour


def _key(*parts: Any) -> str:
    return "|".join(p.model_dump_json() if hasattr(p, "model_dump_json") else str(p) for p in parts)


class CompareStore(QObject):
    changed = Signal(object)  # CompareSnapshot
    rejected = Signal(str)  # why an edit was refused; nothing changed

    def __init__(self, catalog: Catalog, setup: CompareSetup, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.models = [(k, to_model(m)) for k, m in catalog.models.items()]
        self.quants = [(k, to_quant(q)) for k, q in catalog.quants.items() if q.format == "gguf"]
        self._rows: dict[str, CompareRow] = {}
        self._curves: dict[str, Curve] = {}
        self._colors: dict[str, int] = {}
        self.snapshot = self._compute(setup)

    @property
    def setup(self) -> CompareSetup:
        return self.snapshot.setup

    @property
    def scenario(self) -> Scenario:
        return self.setup.scenario

    # --- edits ------------------------------------------------------------------------------
    def apply(self, data: dict[str, Any] | CompareSetup) -> bool:
        try:
            new = data if isinstance(data, CompareSetup) else CompareSetup.model_validate(data)
        except ValidationError as err:
            first = err.errors()[0]
            self.rejected.emit(f"{'.'.join(str(p) for p in first['loc']) or 'comparison'}: {first['msg']}")
            return False
        if new != self.setup:
            self._publish(new)
        return True

    def update(self, **changes: Any) -> bool:
        return self.apply({**self.setup.model_dump(), **changes})

    def update_workload(self, **changes: Any) -> bool:
        data = self.setup.model_dump()
        data["workload"].update(changes)
        return self.apply(data)

    def apply_preset(self, name: str) -> bool:
        return self.update_workload(**preset_changes(name, self.setup.model.max_context))

    def set_model(self, model_id: str) -> bool:
        entry = self.catalog.models[model_id]
        data = self.setup.model_dump()
        data["model"] = to_model(entry).model_dump()
        data["model_id"] = model_id
        w = data["workload"]
        w["context"] = min(w["context"], entry.max_context)
        w["prompt_tokens"] = min(w["prompt_tokens"], w["context"])
        return self.apply(data)

    def set_quant(self, quant_id: str) -> bool:
        data = self.setup.model_dump()
        data["quant"] = to_quant(self.catalog.quants[quant_id]).model_dump()
        data["quant_id"] = quant_id
        return self.apply(data)

    def add_machine(self, machine: Machine) -> bool:
        machines = list(self.setup.machines)
        if len(machines) >= MAX_MACHINES:
            self.rejected.emit(f"A comparison holds at most {MAX_MACHINES} machines: remove one first")
            return False
        label = unique_label(machine.label, [m.label for m in machines])
        machines.append(machine.model_copy(update={"label": label}))
        return self.update(machines=machines)

    def remove_machine(self, label: str) -> bool:
        return self.update(machines=[m for m in self.setup.machines if m.label != label])

    def replace_machine(self, label: str, machine: Machine) -> bool:
        others = [m.label for m in self.setup.machines if m.label != label]
        new = machine.model_copy(update={"label": unique_label(machine.label, others)})
        if label in self._colors:
            self._colors[new.label] = self._colors[label]
        return self.update(machines=[new if m.label == label else m for m in self.setup.machines])

    def set_devices(self, label: str, count: int) -> bool:
        machine = self.machine(label)
        try:
            new = with_devices(machine, count)
        except ValueError as err:
            self.rejected.emit(str(err))
            return False
        return self.replace_machine(label, new)

    def set_price(self, label: str, price: float | None) -> bool:
        machine = self.machine(label)
        return self.replace_machine(
            label,
            machine.model_copy(
                update={"price_usd": price, "price_estimate": True, "price_kind": None, "price_seen": None}
            ),
        )

    def machine(self, label: str) -> Machine:
        return next(m for m in self.setup.machines if m.label == label)

    # --- computing --------------------------------------------------------------------------
    def _publish(self, setup: CompareSetup) -> None:
        self.snapshot = self._compute(setup)
        self.changed.emit(self.snapshot)

    def _assign_colors(self, labels: list[str]) -> dict[str, str]:
        """Each machine keeps its colour while it stays in the comparison; new ones take the first free one."""
        self._colors = {k: v for k, v in self._colors.items() if k in labels}
        for label in labels:
            if label not in self._colors:
                used = set(self._colors.values())
                self._colors[label] = next(i for i in range(len(theme.SERIES)) if i not in used)
        return {label: theme.SERIES[self._colors[label]] for label in labels}

    def _compute(self, setup: CompareSetup) -> CompareSnapshot:
        base = setup.scenario
        scenario_key = _key(base)
        qs = pool(self.quants, base.workload)
        rows: list[CompareRow] = []
        curves: dict[str, dict[Axis, Curve]] = {}
        live_rows: dict[str, CompareRow] = {}
        live_curves: dict[str, Curve] = {}
        for m in setup.machines:
            rk = _key(m, scenario_key)
            row = self._rows.get(rk) or compare_row(
                m, base, self.models, qs, self.catalog.published, standings(self.catalog.models)
            )
            live_rows[rk] = row
            rows.append(row)
            s = base.model_copy(update={"hardware": m.hardware})
            per: dict[Axis, Curve] = {}
            for axis in AXES:
                ck = _key(m.hardware, scenario_key, axis)
                c = self._curves.get(ck) or curve(s, axis, n=CURVE_POINTS)
                live_curves[ck] = c
                per[axis] = c
            curves[m.label] = per
        self._rows, self._curves = live_rows, live_curves
        comparison = compare(setup.machines, base, self.models, self.quants, rows=rows, costs=setup.costs)
        colors = self._assign_colors([m.label for m in setup.machines])
        return CompareSnapshot(setup=setup, comparison=comparison, curves=curves, colors=colors)
