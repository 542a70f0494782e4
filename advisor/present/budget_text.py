"""The budget ranking in words: why each machine stops at the model it does."""

from __future__ import annotations

from typing import Any

from advisor.core.budget import BudgetRanking, Ranked, StopReason
from advisor.core.fmt import num
from advisor.present.data import insert_after
from advisor.present.figures import gb, rate


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
    return (f"{text}; {which}{nxt.model_name}, fits at {nxt.quant_name} but runs {num(nxt.decode_tok_s or 0)} "
            f"tok/s, under {rate(threshold)}")


def ranking_data(r: BudgetRanking) -> dict[str, Any]:
    """The ranking as JSON-ready data: the core's numbers with each machine's reason in words."""
    out = r.model_dump(mode="json")
    out["ranked"] = [insert_after(data, "tok_s_per_k_usd", {"reason": budget_reason(x, r.threshold_tok_s)})
                     for x, data in zip(r.ranked, out["ranked"], strict=True)]
    return out
