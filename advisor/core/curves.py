"""tok/s along one axis (context, model size or batch), each curve one vectorized solve."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from advisor.core.inputs import build_inputs, realistic_band
from advisor.core.roofline import Inputs, solve
from advisor.core.scenario import Scenario
from advisor.core.units import GB

Axis = Literal["context", "params", "batch"]
AXES: tuple[Axis, ...] = ("context", "params", "batch")
AXIS_LABELS: dict[Axis, str] = {
    "context": "Context length (tokens)",
    "params": "Model size (billion parameters)",
    "batch": "Concurrent streams (batch size)",
}

# Along the model-size axis the chosen model is scaled: weights in proportion, KV per token and
# attention width as params^0.42, which is how the Llama 3 family's GQA shapes grow
# (8B: 128 KiB/token, 70B: 320 KiB/token at f16).
KV_SCALING_EXPONENT = 0.42
MIN_CONTEXT = 512
PARAMS_RANGE_B = (0.5, 1000.0)
MAX_BATCH = 1024


@dataclass(frozen=True)
class Curve:
    axis: Axis
    x: NDArray[np.float64]
    decode: NDArray[np.float64]  # realistic per-stream tok/s (0 where it does not run)
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    ceiling: NDArray[np.float64]
    aggregate: NDArray[np.float64]
    fits: NDArray[np.bool_]
    runs: NDArray[np.bool_]
    total_gb: NDArray[np.float64]
    compute_bound: NDArray[np.bool_]
    marker_x: float  # the scenario's own point on this axis
    cliff_x: float | None  # first x that no longer fits fast memory
    no_run_x: float | None  # first x that does not run at all

    def as_rows(self) -> list[dict[str, float | bool]]:
        return [
            dict(
                x=float(self.x[i]),
                decode_tok_s=float(self.decode[i]),
                low_tok_s=float(self.low[i]),
                high_tok_s=float(self.high[i]),
                ceiling_tok_s=float(self.ceiling[i]),
                aggregate_tok_s=float(self.aggregate[i]),
                total_gb=float(self.total_gb[i]),
                fits=bool(self.fits[i]),
                runs=bool(self.runs[i]),
            )
            for i in range(len(self.x))
        ]


def default_range(scenario: Scenario, axis: Axis, n: int = 500) -> NDArray[np.float64]:
    hi = max(scenario.model.max_context, MIN_CONTEXT * 2) if axis == "context" else 0
    return _axis_range(axis, hi, n)


@lru_cache(maxsize=64)
def _axis_range(axis: Axis, max_context: int, n: int) -> NDArray[np.float64]:
    """Read-only and shared: the window asks for the same few ranges on every edit."""
    if axis == "context":
        x = np.geomspace(MIN_CONTEXT, max_context, n)
    elif axis == "params":
        x = np.geomspace(*PARAMS_RANGE_B, n)
    else:
        x = np.round(np.geomspace(1, MAX_BATCH, n))  # whole streams, each once (np.unique imports numpy.ma)
        x = x[np.concatenate([[True], np.diff(x) > 0])]
    x.flags.writeable = False
    return x


def axis_inputs(scenario: Scenario, axis: Axis, x: NDArray[np.float64]) -> Inputs:
    w = scenario.workload
    base = build_inputs(scenario)
    if axis == "context":
        return replace(base, context=x, hold_tokens=x + w.output_tokens)
    if axis == "batch":
        return replace(base, streams=x)
    ratio = x / scenario.model.total_params_b
    kv_ratio = ratio**KV_SCALING_EXPONENT
    return replace(
        base,
        dense_bytes=base.dense_bytes * ratio,
        expert_bytes=base.expert_bytes * ratio,
        unread_bytes=base.unread_bytes * ratio,
        active_params=base.active_params * ratio,
        kv_full=base.kv_full * kv_ratio,
        kv_window=base.kv_window * kv_ratio,
        attn_flops_full=base.attn_flops_full * kv_ratio,
        attn_flops_window=base.attn_flops_window * kv_ratio,
    )


def marker(scenario: Scenario, axis: Axis) -> float:
    w = scenario.workload
    return {"context": float(w.context), "params": scenario.model.total_params_b, "batch": float(w.streams)}[axis]


def curve_key(scenario: Scenario, axis: Axis) -> Scenario:
    """The part of the scenario a curve depends on: its own axis variable only sets the marker, so
    two scenarios with the same key have the same curve (a context drag leaves the context curve be)."""
    w = scenario.workload
    if axis == "context":
        return scenario.model_copy(update={"workload": w.model_copy(update={"context": MIN_CONTEXT})})
    if axis == "batch":
        return scenario.model_copy(update={"workload": w.model_copy(update={"streams": 1})})
    return scenario


def with_marker(c: Curve, scenario: Scenario) -> Curve:
    """A curve computed for a scenario with the same key, with this scenario's marker."""
    return replace(c, marker_x=marker(scenario, c.axis))


def _first(x: NDArray[np.float64], mask: NDArray[np.bool_]) -> float | None:
    idx = np.flatnonzero(mask)
    return float(x[idx[0]]) if idx.size else None


def curve(scenario: Scenario, axis: Axis, x: NDArray[np.float64] | None = None, n: int = 500) -> Curve:
    xs = default_range(scenario, axis, n) if x is None else np.asarray(x, dtype=float)
    inp = axis_inputs(scenario, axis, xs)
    out = solve(inp)
    low, high = realistic_band(scenario, out.decode, out.ceiling)
    full = np.ones_like(xs)
    fits = out.fits * full > 0
    runs = out.runs * full > 0
    total = (out.footprint * full + scenario.workload.overhead_gb * GB) / GB
    return Curve(
        axis=axis,
        x=xs,
        decode=out.decode * full,
        low=low * full,
        high=high * full,
        ceiling=out.ceiling * full,
        aggregate=out.aggregate * full,
        fits=fits,
        runs=runs,
        total_gb=total,
        compute_bound=out.compute_bound * full > 0,
        marker_x=marker(scenario, axis),
        cliff_x=_first(xs, ~fits),
        no_run_x=_first(xs, ~runs),
    )
