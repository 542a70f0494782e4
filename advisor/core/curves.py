"""tok/s along one axis (context, model size or batch), each curve one vectorized solve."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

from advisor.core.hardware import HardwareClass
from advisor.core.inputs import build_inputs, realistic_band
from advisor.core.placement_words import LABELS
from advisor.core.result import PlacementName
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
    from_disk: NDArray[np.bool_]  # weights beyond host RAM are read from disk each token
    marker_x: float  # the scenario's own point on this axis
    cliff_x: float | None  # first x that no longer fits fast memory
    no_run_x: float | None  # first x that does not run at all
    disk_x: float | None  # first x that streams weights from disk

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
        from_disk=out.streams_from_disk * full > 0,
        marker_x=marker(scenario, axis),
        cliff_x=_first(xs, ~fits),
        no_run_x=_first(xs, ~runs),
        disk_x=_first(xs, out.streams_from_disk * full > 0),
    )


# Two placements' speeds closer than this are the same line on a log plot: nothing to tell apart.
SAME_SPEED = 0.01
PLACEMENTS: tuple[PlacementName, ...] = get_args(PlacementName)


@dataclass(frozen=True)
class Alternative:
    """The best other placement along a curve where the chosen one spills: its own sweep (the same x,
    workload.offload set to it) and where it differs from the chosen curve."""

    offload: PlacementName
    label: str  # e.g. "experts (--n-cpu-moe)"
    curve: Curve
    shown: NDArray[np.bool_]  # it runs, the chosen one spills there, and the speeds differ


def alternative(scenario: Scenario, chosen: Curve) -> Alternative | None:
    """The placement other than the chosen one that is fastest, on average, over the x where the chosen
    curve spills past fast memory (or does not run); None when nothing spills, on a machine with one
    memory pool, or where no other placement differs. Under auto the candidates are all three; the one
    auto picks everywhere differs nowhere and drops out."""
    spill = ~chosen.fits
    if not spill.any() or scenario.hardware.kind is HardwareClass.CPU:
        return None
    w = scenario.workload
    found: list[tuple[float, int, Alternative]] = []  # (score, spilled points it shares with the chosen, it)
    for name in PLACEMENTS:
        if name == w.offload or (name == "experts" and not scenario.model.is_moe):
            continue
        other = scenario.model_copy(update={"workload": w.model_copy(update={"offload": name})})
        c = curve(other, chosen.axis, x=chosen.x)
        gap = np.abs(c.decode - chosen.decode) > SAME_SPEED * np.maximum(chosen.decode, 1e-12)
        shown = c.runs & spill & gap
        if not shown.any():
            continue
        score = float(np.mean(np.where(c.runs[spill], c.decode[spill], 0.0)))
        found.append((score, int(np.sum(spill & c.runs & ~gap)), Alternative(name, LABELS[name], c, shown)))
    if w.offload == "auto" and len(found) > 1:
        # the placement auto picks over most of the spill is the chosen line itself: the next one is the other
        found.remove(max(found, key=lambda f: f[1]))
    return max(found, key=lambda f: f[0])[2] if found else None
