"""`solve_grid` with a third axis for the machine: one broadcast solve for the whole catalog.

Every machine's roofline inputs become a column along a new first axis. That needs each input to
be one number per machine; when one is not, building the stack raises instead of solving some
other way, so a change to the inputs shows up here and in the tests that hold this grid to one
`solve_grid` per machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.core.hardware import Hardware
from advisor.core.inputs import build_inputs, model_terms, weight_bytes
from advisor.core.machines import scenario_on
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.recommend import Grid
from advisor.core.roofline import Inputs, solve
from advisor.core.scenario import Scenario
from advisor.core.units import GB


def _not_stackable(name: str) -> str:
    return f"roofline input {name!r} is not one number per machine: the machine grid cannot stack it"


class MachineStack:
    """The roofline's inputs for many machines, models and quants, ready to gather any set of
    (machine, model, quant) points into one solve. It makes the same calls solve_grid makes
    (build_inputs, then model terms times bytes per weight), with machines as one more axis."""

    def __init__(
        self, base: Scenario, hardware: Sequence[Hardware], models: Sequence[ModelArch], quants: Sequence[Quant]
    ) -> None:
        per_machine = [build_inputs(scenario_on(base, h)) for h in hardware]
        self.cols: dict[str, NDArray[np.float64]] = {}
        for f in fields(Inputs):
            try:
                column = np.asarray([getattr(b, f.name) for b in per_machine], dtype=float)
            except (TypeError, ValueError) as err:  # arrays of different shapes, or not numbers
                raise ValueError(_not_stackable(f.name)) from err
            if column.ndim != 1:
                raise ValueError(_not_stackable(f.name))
            self.cols[f.name] = column
        terms = [model_terms(m, base.workload.kv_cache) for m in models]
        self.terms = {k: np.array([t[k] for t in terms], dtype=float) for k in terms[0]}
        self.bpw = np.array([q.bytes_per_weight for q in quants], dtype=float)
        self.dense_bpw = np.array([q.dense_bytes_per_weight for q in quants], dtype=float)
        self.overhead_gb = base.workload.overhead_gb

    def solve(self, h: NDArray[np.intp], m: NDArray[np.intp], q: NDArray[np.intp]) -> Grid:
        """The points (h[i], m[i], q[i]) broadcast together: indices into the machines, models and quants."""
        kw: dict[str, Any] = {k: v[h] for k, v in self.cols.items()}
        kw.update(weight_bytes({k: v[m] for k, v in self.terms.items()}, self.bpw[q], self.dense_bpw[q]))
        out = solve(Inputs(**kw))
        shape = np.broadcast_shapes(np.shape(h), np.shape(m), np.shape(q))
        return Grid(
            decode=np.broadcast_to(out.decode, shape),
            fits=np.broadcast_to(out.fits, shape),
            runs=np.broadcast_to(out.runs, shape),
            total_gb=np.broadcast_to((out.footprint + self.overhead_gb * GB) / GB, shape),
        )


def machine_grid(
    base: Scenario, hardware: Sequence[Hardware], models: Sequence[ModelArch], quants: Sequence[Quant]
) -> Grid:
    """Every machine × model × quant in one broadcast solve: `solve_grid` per machine, stacked."""
    shape = (len(hardware), len(models), len(quants))
    if 0 in shape:
        z = np.zeros(shape)
        return Grid(z, z.astype(bool), z.astype(bool), z)
    stack = MachineStack(base, hardware, models, quants)
    h, m, q = (np.arange(n) for n in shape)
    return stack.solve(h[:, None, None], m[None, :, None], q[None, None, :])
