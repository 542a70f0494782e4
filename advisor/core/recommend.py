"""The best model and quant that fits fast memory and stays interactive, with reasons for the rest.

"Best" is the largest, except where two models both have a published capability score (the
higher one ranks first in the places the scored models hold), and a model superseded by a newer
one of its family at the same or smaller size never wins (`Standing`, `superseded_by`).

All candidates (models × quants) are solved in one broadcast call: models down axis 0, quants
across axis 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

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
    metric: str | None = None  # the capability score that ordered scored models, if any did
    scored: int = 0  # how many of the candidates have that score
    left_out: tuple[tuple[str, str], ...] = ()  # (model, the newer one of its family that supersedes it)


# A newer model of the family supersedes an older one at the same or smaller size: at most this
# much larger (rounding: 24 B vs 23.6 B), and, unless both have scores that say otherwise, at least
# this fraction of its size (a 3 B edge model does not replace a 70 B one).
SAME_SIZE = 1.05
SUCCESSOR_MIN_SIZE = 0.5


class Standing(Frozen):
    """What the catalog says of a model beyond its shape: its family (the line whose newer members
    supersede older ones), its release month and, where published, one capability score."""

    family: str
    released: str | None = Field(None, pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="YYYY-MM")
    score: float | None = Field(None, ge=0, le=100, description="Published capability score, higher is better")
    metric: str | None = Field(None, max_length=80, description="What the score measures, e.g. MMLU-Pro")


def _supersedes(new: Standing, old: Standing, new_b: float, old_b: float) -> bool:
    if new.family != old.family or new.released is None or old.released is None or new.released <= old.released:
        return False
    if new_b > old_b * SAME_SIZE:
        return False
    if new.score is not None and old.score is not None and new.metric == old.metric:
        return new.score >= old.score
    return new_b >= old_b * SUCCESSOR_MIN_SIZE


def superseded_by(stand: Sequence[Standing | None], params: NDArray[np.float64]) -> NDArray[np.intp]:
    """For each model, the index of the newest model of its family that supersedes it, or -1."""
    out = np.full(len(stand), -1, dtype=np.intp)
    for i, old in enumerate(stand):
        if old is None:
            continue
        best: int = -1
        for j, new in enumerate(stand):
            if j != i and new is not None and _supersedes(new, old, float(params[j]), float(params[i])):
                if best < 0 or (new.released or "") > (stand[best].released or ""):  # type: ignore[union-attr]
                    best = j
        out[i] = best
    return out


def rank_order(live: Sequence[int], stand: Sequence[Standing | None], params: NDArray[np.float64]) -> list[int]:
    """`live` model indices, best first: largest first (newest first at equal size); the places that
    scored models take in that order are then refilled with the scored models by score, highest
    first. A score decides only between two models that both have one, in one metric."""

    def released(i: int) -> str:
        s = stand[i]
        return s.released or "" if s is not None else ""

    by_size = sorted(live, key=lambda i: (-float(params[i]), tuple(-ord(c) for c in released(i))))
    metrics = [s.metric for i in live if (s := stand[i]) is not None and s.score is not None]
    metric = max(set(metrics), key=metrics.count) if metrics else None

    def score(i: int) -> float | None:
        s = stand[i]
        return s.score if s is not None and s.metric == metric else None

    slots = [k for k, i in enumerate(by_size) if score(i) is not None]
    scored = sorted((by_size[k] for k in slots), key=lambda i: -(score(i) or 0.0))
    out = list(by_size)
    for k, i in zip(slots, scored, strict=True):
        out[k] = i
    return out


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
        keys=tuple(k for k, _ in models),
        names=tuple(m.name for _, m in models),
        params_b=np.array([m.total_params_b for _, m in models]),
        decode=grid.decode[:, 0].copy(),
        fits=grid.fits[:, 0].copy(),
    )


def recommend(
    scenario: Scenario,
    models: list[tuple[str, ModelArch]],
    quants: list[tuple[str, Quant]],
    runner_ups: int = 4,
    standing: Mapping[str, Standing] | None = None,
) -> Recommendation:
    """Rank models × quants on the scenario's hardware and workload. `standing` (by model key, from
    the catalog) gives family, release month and capability score; without it the largest wins."""
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
            reason = (
                f"needs {num(total_gb[i, j])} GB of {num(cap_gb)} GB: spills to host memory, {num(d)} tok/s"
                if verdict == "spills"
                else f"needs {num(total_gb[i, j])} GB, only {num(cap_gb)} GB fast memory ({num(d)} tok/s offloaded)"
            )
        else:
            verdict, reason = "too_slow", f"{num(d)} tok/s at this context, under the {num(threshold)} tok/s threshold"
        mk, m = models[i]
        qk, q = quants[j]
        return Candidate(
            model_key=mk,
            model_name=m.name,
            quant_key=qk,
            quant_name=q.name,
            total_params_b=m.total_params_b,
            bits_per_weight=q.bits_per_weight,
            decode_tok_s=d,
            total_gb=float(total_gb[i, j]),
            verdict=verdict,
            reason=reason,
        )

    standing = standing or {}
    stand = [standing.get(k) for k, _ in models]
    newer = superseded_by(stand, params)  # index of the model that supersedes each, or -1
    live = [i for i in range(len(models)) if newer[i] < 0]
    # Per model, the highest-precision quant that passes; the passing models in rank order.
    quant_order = np.argsort(-bits, kind="stable")
    best_quant = {i: int(next(j for j in quant_order if ok[i, j])) for i in live if ok[i].any()}
    best_per_model = [(i, best_quant[i]) for i in rank_order(list(best_quant), stand, params)]
    metrics = [s.metric for s in stand if s is not None and s.score is not None]
    facts = {
        "metric": max(set(metrics), key=metrics.count) if metrics else None,
        "scored": sum(1 for i in live if (s := stand[i]) is not None and s.score is not None),
        "left_out": tuple(
            (models[i][1].name, models[int(newer[i])][1].name) for i in range(len(models)) if newer[i] >= 0
        ),
    }
    size_order = [int(i) for i in np.argsort(-params, kind="stable") if newer[i] < 0]
    lowest = int(np.argmin(bits))
    if not best_per_model:
        rejected = tuple(cand(i, lowest) for i in size_order[: runner_ups + 1])
        return Recommendation(pick=None, rejected=rejected, threshold_tok_s=threshold, **facts)
    pick_i, pick_j = best_per_model[0]
    # Bigger models lost with even their smallest quant: say why.
    bigger = [i for i in size_order if params[i] > params[pick_i] and not ok[i].any()]
    rejected = tuple(cand(i, lowest) for i in bigger[-runner_ups:][::-1]) if bigger else ()
    return Recommendation(
        pick=cand(pick_i, pick_j),
        runner_ups=tuple(cand(i, j) for i, j in best_per_model[1 : runner_ups + 1]),
        rejected=rejected,
        threshold_tok_s=threshold,
        **facts,
    )
