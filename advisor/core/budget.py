"""The best machine under a budget: every priced catalog machine and multi-GPU set at or under the
cap, ranked by the largest catalog model it runs interactively, and why each stops there, as facts
(advisor.present.budget_text words them).

The pick on every machine is the recommender's, found with the machine grid's stacked solve; tests
hold it to the full grid and to `recommend` machine by machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import cast

import numpy as np
from numpy.typing import NDArray

from advisor.core.base import Frozen
from advisor.core.comparison import Largest, ModelList, QuantList, pool
from advisor.core.hardware import Hardware
from advisor.core.machine_grid import MachineStack
from advisor.core.machines import Machine
from advisor.core.recommend import Grid
from advisor.core.scenario import Scenario


class StopReason(StrEnum):
    """Why a machine's pick is as large as it gets."""

    LARGEST = "largest"  # nothing in the catalog is larger
    TOO_BIG = "too_big"  # the next model does not fit fast memory even at the lowest-bit quant
    TOO_SLOW = "too_slow"  # it fits at the lowest-bit quant but runs under the interactive speed


class NextModel(Frozen):
    """The next larger catalog model than the pick (without a pick, the smallest) at the pool's
    lowest-bit quant: what stops the machine where it does."""

    model_key: str
    model_name: str
    quant_key: str
    quant_name: str
    total_params_b: float
    fits: bool
    decode_tok_s: float | None  # when it fits fast memory
    total_gb: float


class Ranked(Frozen):
    rank: int
    machine: Machine
    largest: Largest | None
    tok_s_per_k_usd: float | None
    stop: StopReason
    next_model: NextModel | None = None  # None when the pick is the largest model there is


class BudgetRanking(Frozen):
    max_price_usd: float
    threshold_tok_s: float
    ranked: tuple[Ranked, ...]
    over_budget: int
    no_price: tuple[str, ...]


@dataclass(frozen=True)
class Picks:
    """Per machine: the recommender's pick, and the next larger model (or, without a pick, the
    smallest) at the lowest-bit quant, which says why the machine stops there."""

    has: NDArray[np.bool_]
    model: NDArray[np.intp]  # index into models
    quant: NDArray[np.intp]  # index into quants
    decode: NDArray[np.float64]
    total_gb: NDArray[np.float64]
    nxt: NDArray[np.intp]  # -1 when the pick is the largest model there is
    nxt_fits: NDArray[np.bool_]
    nxt_decode: NDArray[np.float64]
    nxt_total_gb: NDArray[np.float64]


def _any(a: NDArray[np.bool_], axis: int) -> NDArray[np.bool_]:
    """`a.any(axis)`, typed as the array it is (numpy's stubs also allow a scalar)."""
    return cast(NDArray[np.bool_], a.any(axis=axis))


def _next_models(has: NDArray[np.bool_], model: NDArray[np.intp], params: NDArray[np.float64]) -> NDArray[np.intp]:
    above = params[None, :] > np.where(has, params[model], -np.inf)[:, None]
    masked = np.where(above, params[None, :], np.inf)
    return np.where(above.any(axis=1), masked.argmin(axis=1), -1)


def dense_picks(grid: Grid, params: NDArray[np.float64], bits: NDArray[np.float64], threshold: float) -> Picks:
    """The pick from a full machines × models × quants grid (the reference `best_picks` must equal)."""
    ok = np.asarray(grid.fits & (grid.decode >= threshold), dtype=np.bool_)
    m_order = np.argsort(-params, kind="stable")
    q_order = np.argsort(-bits, kind="stable")
    ok_sorted = ok[:, m_order][:, :, q_order]
    any_m = _any(ok_sorted, axis=2)
    has = _any(any_m, axis=1)
    mi = any_m.argmax(axis=1)
    h = np.arange(ok.shape[0])
    qi = ok_sorted[h, mi].argmax(axis=1)
    model, quant = m_order[mi], q_order[qi]
    nxt = _next_models(has, model, params)
    lowest = int(np.argmin(bits))
    safe = np.maximum(nxt, 0)
    return Picks(
        has=has,
        model=model,
        quant=quant,
        decode=grid.decode[h, model, quant],
        total_gb=grid.total_gb[h, model, quant],
        nxt=nxt,
        nxt_fits=grid.fits[h, safe, lowest],
        nxt_decode=grid.decode[h, safe, lowest],
        nxt_total_gb=grid.total_gb[h, safe, lowest],
    )


def _staged_picks(
    stack: MachineStack,
    caps: NDArray[np.float64],
    params: NDArray[np.float64],
    bits: NDArray[np.float64],
    threshold: float,
    batch: int = 6,
) -> Picks:
    """The same pick without solving every cell: each machine tries its models largest first, a few
    per round, all machines in one solve per round, and stops at the first that passes. Models whose
    weights alone exceed the machine's fast memory at the smallest quant are skipped: they cannot fit."""
    n_h, n_q = len(caps), len(bits)
    m_order = np.argsort(-params, kind="stable")
    q_order = np.argsort(-bits, kind="stable")
    min_weights_gb = params[m_order] * float(bits.min()) / 8
    candidates = [m_order[min_weights_gb <= caps[h]] for h in range(n_h)]
    pos = np.zeros(n_h, dtype=int)
    has = np.zeros(n_h, dtype=bool)
    model = np.zeros(n_h, dtype=np.intp)
    quant = np.zeros(n_h, dtype=np.intp)
    decode = np.zeros(n_h)
    total = np.zeros(n_h)
    todo = [h for h in range(n_h) if candidates[h].size]
    qs = np.arange(n_q)[None, :]
    while todo:
        hh = np.concatenate([np.full(len(candidates[h][pos[h] : pos[h] + batch]), h) for h in todo])
        mm = np.concatenate([candidates[h][pos[h] : pos[h] + batch] for h in todo])
        g = stack.solve(hh[:, None], mm[:, None], qs)
        ok = np.asarray(g.fits & (g.decode >= threshold), dtype=np.bool_)[:, q_order]
        row_ok = _any(ok, axis=1)
        still = []
        start = 0
        for h in todo:
            n = len(candidates[h][pos[h] : pos[h] + batch])
            rows = np.flatnonzero(row_ok[start : start + n])
            if rows.size:
                r = start + int(rows[0])
                qi = int(q_order[int(ok[r].argmax())])
                has[h], model[h], quant[h] = True, mm[r], qi
                decode[h], total[h] = g.decode[r, qi], g.total_gb[r, qi]
            else:
                pos[h] += batch
                if pos[h] < candidates[h].size:
                    still.append(h)
            start += n
        todo = still
    nxt = _next_models(has, model, params)
    probe = stack.solve(np.arange(n_h), np.maximum(nxt, 0), np.full(n_h, int(np.argmin(bits))))
    return Picks(
        has=has,
        model=model,
        quant=quant,
        decode=decode,
        total_gb=total,
        nxt=nxt,
        nxt_fits=probe.fits.copy(),
        nxt_decode=probe.decode.copy(),
        nxt_total_gb=probe.total_gb.copy(),
    )


def best_picks(base: Scenario, hardware: Sequence[Hardware], models: ModelList, quants: QuantList) -> Picks:
    """The recommender's pick on every machine (quants already filtered to the pool)."""
    params = np.array([m.total_params_b for _, m in models], dtype=float)
    bits = np.array([q.bits_per_weight for _, q in quants], dtype=float)
    stack = MachineStack(base, hardware, [m for _, m in models], [q for _, q in quants])
    caps = np.array([h.fast_capacity_gb for h in hardware], dtype=float)
    return _staged_picks(stack, caps, params, bits, base.workload.interactive_tok_s)


def _next_model(i: int, p: Picks, models: ModelList, quants: QuantList, bits: NDArray[np.float64]) -> NextModel | None:
    if p.nxt[i] < 0:
        return None
    mk, mm = models[int(p.nxt[i])]
    qk, qq = quants[int(np.argmin(bits))]
    return NextModel(
        model_key=mk,
        model_name=mm.name,
        quant_key=qk,
        quant_name=qq.name,
        total_params_b=mm.total_params_b,
        fits=bool(p.nxt_fits[i]),
        decode_tok_s=float(p.nxt_decode[i]) if p.nxt_fits[i] else None,
        total_gb=float(p.nxt_total_gb[i]),
    )


def _stop(nxt: NextModel | None) -> StopReason:
    if nxt is None:
        return StopReason.LARGEST
    return StopReason.TOO_SLOW if nxt.fits else StopReason.TOO_BIG


def rank_budget(
    machines: Sequence[Machine],
    base: Scenario,
    models: ModelList,
    quants: QuantList,
    max_price_usd: float,
    top: int | None = None,
) -> BudgetRanking:
    """Machines priced at or under the cap, ranked by the largest catalog model they run
    interactively (fits fast memory, per-stream tok/s at or over the threshold), then by its speed,
    then by price."""
    w = base.workload
    qs = pool(quants, w)
    no_price = tuple(m.label for m in machines if m.price_usd is None)
    priced = [m for m in machines if m.price_usd is not None]
    within = [m for m in priced if (m.price_usd or 0) <= max_price_usd]
    threshold = w.interactive_tok_s
    if not within or not models or not qs:
        return BudgetRanking(
            max_price_usd=max_price_usd,
            threshold_tok_s=threshold,
            ranked=(),
            over_budget=len(priced) - len(within),
            no_price=no_price,
        )
    p = best_picks(base, [m.hardware for m in within], models, qs)
    params = np.array([m.total_params_b for _, m in models])
    bits = np.array([q.bits_per_weight for _, q in qs])
    prices = np.array([m.price_usd for m in within], dtype=float)
    size = np.where(p.has, params[p.model], -1.0)
    speed = np.where(p.has, p.decode, 0.0)
    order = np.lexsort((prices, -speed, -size))
    if top is not None:
        order = order[:top]
    ranked = []
    for rank, i in enumerate(order, start=1):
        i = int(i)
        largest = None
        if p.has[i]:
            mk, mm = models[int(p.model[i])]
            qk, qq = qs[int(p.quant[i])]
            largest = Largest(
                model_key=mk,
                model_name=mm.name,
                quant_key=qk,
                quant_name=qq.name,
                total_params_b=mm.total_params_b,
                decode_tok_s=float(p.decode[i]),
                total_gb=float(p.total_gb[i]),
            )
        nxt = _next_model(i, p, models, qs, bits)
        ranked.append(
            Ranked(
                rank=rank,
                machine=within[i],
                largest=largest,
                tok_s_per_k_usd=float(p.decode[i]) / (prices[i] / 1000) if p.has[i] else None,
                stop=_stop(nxt),
                next_model=nxt,
            )
        )
    return BudgetRanking(
        max_price_usd=max_price_usd,
        threshold_tok_s=threshold,
        ranked=tuple(ranked),
        over_budget=len(priced) - len(within),
        no_price=no_price,
    )
