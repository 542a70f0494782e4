"""The largest model and quant that fits fast memory and stays interactive, with reasons for the rest.

All candidates (models × quants) are solved in one broadcast call: models down axis 0, quants
across axis 1."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from advisor.core.base import Frozen
from advisor.core.fmt import num
from advisor.core.inputs import build_inputs, model_terms, weight_bytes
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario
from advisor.core.units import GB

Verdict = Literal["ok", "does_not_fit", "spills", "too_slow", "does_not_run"]


class Candidate(Frozen):
    model_key: str
    model_name: str
    quant_key: str
    quant_name: str
    total_params_b: float
    bits_per_weight: float
    decode_tok_s: float
    total_gb: float
    verdict: Verdict
    reason: str


class Recommendation(Frozen):
    pick: Candidate | None
    runner_ups: tuple[Candidate, ...] = ()
    rejected: tuple[Candidate, ...] = ()  # bigger models than the pick, each with why it lost
    threshold_tok_s: float


@dataclass(frozen=True)
class Grid:
    """Every model (rows) at every quant (columns) on the scenario's hardware and workload; the
    comparison's machine grid puts machines on a leading axis before them."""

    decode: NDArray[np.float64]
    fits: NDArray[np.bool_]
    runs: NDArray[np.bool_]
    total_gb: NDArray[np.float64]


def solve_grid(scenario: Scenario, models: list[ModelArch], quants: list[Quant]) -> Grid:
    """One broadcast solve: model terms down axis 0, bytes per weight across axis 1."""
    w = scenario.workload
    terms = [model_terms(m, w.kv_cache) for m in models]
    col = {k: np.array([t[k] for t in terms], dtype=float)[:, None] for k in terms[0]}
    bpw = np.array([q.bytes_per_weight for q in quants], dtype=float)[None, :]
    dense_bpw = np.array([q.dense_bytes_per_weight for q in quants], dtype=float)[None, :]
    out = solve(replace(build_inputs(scenario), **weight_bytes(col, bpw, dense_bpw)))
    shape = (len(models), len(quants))
    return Grid(
        decode=np.broadcast_to(out.decode, shape),
        fits=np.broadcast_to(out.fits, shape),
        runs=np.broadcast_to(out.runs, shape),
        total_gb=np.broadcast_to((out.footprint + w.overhead_gb * GB) / GB, shape),
    )


@dataclass(frozen=True)
class ModelPoints:
    """Catalog models at the scenario's quant: where each lands on the model-size plot."""

    keys: tuple[str, ...]
    names: tuple[str, ...]
    params_b: NDArray[np.float64]
    decode: NDArray[np.float64]
    fits: NDArray[np.bool_]


def model_points(scenario: Scenario, models: list[tuple[str, ModelArch]]) -> ModelPoints:
    if not models:
        empty = np.zeros(0)
        return ModelPoints((), (), empty, empty, empty.astype(bool))
    grid = solve_grid(scenario, [m for _, m in models], [scenario.quant])
    return ModelPoints(
        keys=tuple(k for k, _ in models), names=tuple(m.name for _, m in models),
        params_b=np.array([m.total_params_b for _, m in models]), decode=grid.decode[:, 0].copy(),
        fits=grid.fits[:, 0].copy(),
    )


def recommend(
    scenario: Scenario,
    models: list[tuple[str, ModelArch]],
    quants: list[tuple[str, Quant]],
    runner_ups: int = 4,
) -> Recommendation:
    """Rank models × quants on the scenario's hardware and workload."""
    w = scenario.workload
    threshold = w.interactive_tok_s
    quants = [(k, q) for k, q in quants if q.bits_per_weight >= w.min_bits]
    if not models or not quants:
        return Recommendation(pick=None, threshold_tok_s=threshold)
    grid = solve_grid(scenario, [m for _, m in models], [q for _, q in quants])
    decode, fits, runs, total_gb = grid.decode, grid.fits, grid.runs, grid.total_gb
    ok = fits & (decode >= threshold)

    params = np.array([m.total_params_b for _, m in models])
    bits = np.array([q.bits_per_weight for _, q in quants])
    cap_gb = scenario.hardware.fast_capacity_gb

    def cand(i: int, j: int) -> Candidate:
        d = float(decode[i, j])
        if ok[i, j]:
            verdict: Verdict = "ok"
            reason = f"fits ({num(total_gb[i, j])} of {num(cap_gb)} GB) at {num(d)} tok/s"
        elif not runs[i, j]:
            verdict, reason = "does_not_run", f"needs {num(total_gb[i, j])} GB: more than fast and host memory together"
        elif not fits[i, j]:
            verdict = "spills" if d >= threshold else "does_not_fit"
            reason = (f"needs {num(total_gb[i, j])} GB of {num(cap_gb)} GB: spills to host memory, {num(d)} tok/s"
                      if verdict == "spills" else
                      f"needs {num(total_gb[i, j])} GB, only {num(cap_gb)} GB fast memory ({num(d)} tok/s offloaded)")
        else:
            verdict, reason = "too_slow", f"{num(d)} tok/s at this context, under the {num(threshold)} tok/s threshold"
        mk, m = models[i]
        qk, q = quants[j]
        return Candidate(model_key=mk, model_name=m.name, quant_key=qk, quant_name=q.name,
                         total_params_b=m.total_params_b, bits_per_weight=q.bits_per_weight,
                         decode_tok_s=d, total_gb=float(total_gb[i, j]), verdict=verdict, reason=reason)

    # Per model, the highest-precision quant that passes; models ordered largest first.
    model_order = np.argsort(-params, kind="stable")
    quant_order = np.argsort(-bits, kind="stable")
    best_per_model: list[tuple[int, int]] = []
    for i in model_order:
        passing = [j for j in quant_order if ok[i, j]]
        if passing:
            best_per_model.append((int(i), int(passing[0])))
    if not best_per_model:
        lowest = int(np.argmin(bits))
        rejected = tuple(cand(int(i), lowest) for i in model_order[:runner_ups + 1])
        return Recommendation(pick=None, rejected=rejected, threshold_tok_s=threshold)
    pick_i, pick_j = best_per_model[0]
    # Bigger models lost with even their smallest quant: say why.
    lowest = int(np.argmin(bits))
    bigger = [int(i) for i in model_order if params[i] > params[pick_i]]
    rejected = tuple(cand(i, lowest) for i in bigger[-runner_ups:][::-1]) if bigger else ()
    return Recommendation(
        pick=cand(pick_i, pick_j),
        runner_ups=tuple(cand(i, j) for i, j in best_per_model[1:runner_ups + 1]),
        rejected=rejected,
        threshold_tok_s=threshold,
    )
