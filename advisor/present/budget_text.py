"""The budget ranking in words: why each machine stops at the model it does."""

from __future__ import annotations

from typing import Any

from advisor.core.budget import BudgetRanking, Ranked, StopReason
from advisor.core.budget_model import ModelBudget, ModelFit
from advisor.core.fmt import num
from advisor.present.data import insert_after
from advisor.present.figures import gb, rate, split_text
from advisor.present.serving_text import streams_phrase


def budget_reason(x: Ranked, threshold: float) -> str:
    """The memory the pick uses, and what the next larger model lacks; `threshold` is the
    workload's interactive speed."""
    if x.largest is not None:
        text = f"uses {num(x.largest.total_gb)} of {gb(x.machine.hardware.fast_capacity_gb)} GB"
    else:
        text = "nothing in the catalog fits and stays interactive"
    nxt = x.next_model
    if x.stop is StopReason.LARGEST or nxt is None:
        return text + "; nothing larger in the catalog"
    which = "next larger, " if x.largest is not None else "even the smallest, "
    if x.stop is StopReason.TOO_BIG:
        return f"{text}; {which}{nxt.model_name}, needs {num(nxt.total_gb)} GB even at {nxt.quant_name}"
    return (
        f"{text}; {which}{nxt.model_name}, fits at {nxt.quant_name} but runs {num(nxt.decode_tok_s or 0)} "
        f"tok/s, under {rate(threshold)}"
    )


def ranking_data(r: BudgetRanking) -> dict[str, Any]:
    """The ranking as JSON-ready data: the core's numbers with each machine's reason in words."""
    out = r.model_dump(mode="json")
    out["ranked"] = [
        insert_after(data, "tok_s_per_k_usd", {"reason": budget_reason(x, r.threshold_tok_s), "split": x.machine.split})
        for x, data in zip(r.ranked, out["ranked"], strict=True)
    ]
    return out


def fit_reason(x: ModelFit, threshold: float) -> str:
    """Why a machine does or does not answer for the chosen model, as a person reads it."""
    d = num(x.decode_tok_s or 0)
    mem = "memory size not given" if x.memory_gb is None else f"{gb(x.memory_gb)} GB"
    how = split_text(x.machine.devices, x.split)
    tail = f" ({how})" if how else ""
    if x.shortfall == "meets":
        serves = f"; {streams_phrase(x.max_streams, None, x.requests_per_hour)}" if x.max_streams else ""
        return f"holds it: {num(x.total_gb)} of {mem}, {d} tok/s{tail}{serves}"
    if x.shortfall == "too_slow":
        return f"holds it ({num(x.total_gb)} of {mem}) but runs {d} tok/s, under {rate(threshold)}{tail}"
    if x.shortfall == "spills":
        spilled = f"{x.offloaded_fraction:.0%} spills to system RAM"
        return f"needs {num(x.total_gb)} GB, has {mem}: {spilled}, {d} tok/s{tail}"
    if x.shortfall == "not_checked":
        return f"{mem}, so whether it fits is not checked; {d} tok/s{tail}"
    return f"cannot run it: needs {num(x.total_gb)} GB, has {mem} and system RAM"


def model_budget_data(b: ModelBudget) -> dict[str, Any]:
    """The model's ranking as JSON-ready data, each row with its reason in words."""
    out = b.model_dump(mode="json")
    for key in ("meeting", "short"):
        out[key] = [
            insert_after(data, "shortfall", {"reason": fit_reason(x, b.threshold_tok_s)})
            for x, data in zip(getattr(b, key), out[key], strict=True)
        ]
    return out
