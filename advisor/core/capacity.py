"""How many people one machine serves: the most concurrent streams it holds at the workload's
context in fast memory while each stream stays at or above the interactive threshold, and the
requests per hour that makes.

One vectorized solve along a streams axis (whole numbers up to `EXACT_STREAMS`, then steps of at
most `STEP_ABOVE` up to `MAX_STREAMS`); for many machines, one solve over machines × streams. Each
stream holds its own KV cache of the whole context (as vLLM and llama.cpp's parallel slots with a
context per slot do), so memory binds first at long context; the per-stream time binds first on
small models. Requests per hour assumes every stream stays busy, as the seeds' serving example does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from advisor.core.base import Frozen
from advisor.core.curves import axis_inputs
from advisor.core.hardware import Hardware
from advisor.core.machine_grid import MachineStack
from advisor.core.roofline import Inputs, Outputs, solve
from advisor.core.scenario import Scenario
from advisor.core.units import S_PER_HOUR

EXACT_STREAMS = 256
MAX_STREAMS = 8192
STEP_ABOVE = 0.02  # relative step of the axis past EXACT_STREAMS

Limit = Literal["memory", "speed", "axis", "unchecked"]


class Capacity(Frozen):
    """The most streams a machine keeps in fast memory at or above the threshold. `max_streams` 0
    says not even one stream does; `limit` says what stops one more: fast memory, per-stream speed,
    the end of the searched axis (`max_streams` is then a floor), or a memory size not given
    (`max_streams` None: the fit cannot be checked)."""

    max_streams: int | None = Field(ge=0)
    limit: Limit
    decode_tok_s: float | None = Field(None, description="Per stream at max_streams")
    aggregate_tok_s: float | None = Field(None, description="Across max_streams streams")
    response_s: float | None = Field(None, description="TTFT + output tokens ÷ per-stream speed at max_streams")
    requests_per_hour: float | None = None


@lru_cache(maxsize=1)
def stream_axis() -> NDArray[np.float64]:
    """1, 2, … EXACT_STREAMS, then a geometric run to MAX_STREAMS (whole numbers, each once)."""
    exact = np.arange(1, EXACT_STREAMS + 1, dtype=float)
    n = int(np.ceil(np.log(MAX_STREAMS / EXACT_STREAMS) / np.log1p(STEP_ABOVE)))
    above = np.floor(np.geomspace(EXACT_STREAMS, MAX_STREAMS, n + 1))[1:]
    joined = np.concatenate([exact, above])
    x: NDArray[np.float64] = joined[np.concatenate([[True], np.diff(joined) > 0])]
    x.flags.writeable = False
    return x


def _capacities(out: Outputs, x: NDArray[np.float64], base: Scenario, memory_known: Sequence[bool]) -> list[Capacity]:
    """Rows of `out` are machines, columns the streams axis `x`."""
    w = base.workload
    shape = (len(memory_known), len(x))
    decode = np.broadcast_to(out.decode, shape)
    fits = np.broadcast_to(out.fits & out.runs, shape)
    prefill = np.broadcast_to(out.prefill, shape)
    ok = fits & (decode >= w.interactive_tok_s * (1 - 1e-9))
    held = np.cumprod(ok, axis=1).sum(axis=1)  # the leading run of streams that all hold
    result = []
    for i, known in enumerate(memory_known):
        if not known:
            result.append(Capacity(max_streams=None, limit="unchecked"))
            continue
        k = int(held[i])
        if k == 0:
            result.append(Capacity(max_streams=0, limit="memory" if not fits[i, 0] else "speed"))
            continue
        j = k - 1
        n, d, p = float(x[j]), float(decode[i, j]), float(prefill[i, j])
        limit: Limit = "axis" if k == len(x) else ("memory" if not fits[i, k] else "speed")
        response = (w.prompt_tokens / p if p > 0 else 0.0) + w.output_tokens / d
        rph = n * S_PER_HOUR / response if response > 0 else None
        result.append(
            Capacity(
                max_streams=int(n),
                limit=limit,
                decode_tok_s=d,
                aggregate_tok_s=d * n,
                response_s=response,
                requests_per_hour=rph,
            )
        )
    return result


def capacity(scenario: Scenario) -> Capacity:
    """The scenario's machine, model, quant and context: how many streams it serves interactively
    (the workload's own stream count is what this searches over, so it is not read)."""
    x = stream_axis()
    out = solve(axis_inputs(scenario, "batch", x))
    return _capacities(out, x, scenario, [scenario.hardware.memory_known])[0]


def capacities(base: Scenario, hardware: Sequence[Hardware]) -> list[Capacity]:
    """`capacity` for each machine on the base scenario's model and workload, in one solve over
    machines × streams."""
    if not hardware:
        return []
    x = stream_axis()
    stack = MachineStack(base, hardware, [base.model], [base.quant])  # each column is the base on one machine
    kw = {k: v[:, None] for k, v in stack.cols.items()}
    kw["streams"] = x[None, :]
    out = solve(Inputs(**kw))
    return _capacities(out, x, base, [hw.memory_known for hw in hardware])
