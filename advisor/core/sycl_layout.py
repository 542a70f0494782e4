"""Which quantized weights llama.cpp's SYCL backend decodes from its reordered layout.

A GGUF block keeps each block's scales beside its packed weights. Intel GPUs read that interleaved layout
poorly in the decode matrix-vector kernels, so the SYCL backend rewrites supported tensors once at load
into separate arrays of quants and of scales (`opt_for_reorder`, ggml-sycl.cpp) and decodes them with
kernels written for it. A weight type without such a kernel streams at a fraction of the bandwidth the
reordered ones reach: Q2_K decoded 1.5-1.9x faster once it gained one (llama.cpp PR #26336). Which types
have one grew build by build, and MoE expert tensors got theirs separately and later (PR #21920 fused the
expert matmuls; `opt_for_reorder_id` takes only Q4_K, Q5_K and Q6_K experts, issue #27517).

The solver takes this as a share of the decode η on the weights' stream alone (the input `layout_eta`, from
Calibration.sycl_plain_eta, fitted), where the model's weight type decodes from the plain layout; the KV
cache keeps η. The app predicts for a current build; the validation passes each row's build date."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.core.hardware_keys import resolve_backend
from advisor.core.terms import Backend, Engine

if TYPE_CHECKING:
    from advisor.core.calibration import Calibration
    from advisor.core.scenario import Scenario

# First build month ("YYYY-MM") whose dense decode kernels read each type reordered: Q4_0 (PR #12858) and
# Q4_K (#13109), merged spring 2025, with Q8_0's reordered dequantizing kernel beside them (#22152 adds its
# MMVQ path to an existing reorder); Q6_K (#13885, opened 2025-05-29); Q5_K (#22152, opened 2026-04-20);
# Q2_K (#26336, opened 2026-07-30) and Q3_K, in the current reorder list, dated as Q2_K. Types absent
# (the i-quants, MXFP4, Q4_1, Q5_0, Q5_1) have no reordered kernel in any build.
DENSE_REORDERED_SINCE: dict[str, str] = {
    "Q4_0": "2025-05",
    "Q4_K": "2025-05",
    "Q8_0": "2025-05",
    "Q6_K": "2025-06",
    "Q5_K": "2026-05",
    "Q2_K": "2026-08",
    "Q3_K": "2026-08",
}
# Expert tensors (MUL_MAT_ID): Q4_K and Q5_K after the fused MoE kernel (#21920, opened 2026-04-14),
# Q6_K with #24452 (opened 2026-06-11); no other type's experts are reordered.
EXPERT_REORDERED_SINCE: dict[str, str] = {"Q4_K": "2026-05", "Q5_K": "2026-05", "Q6_K": "2026-06"}

_TYPE = re.compile(r"(?<![A-Z0-9])(IQ\d_[A-Z]+|Q\d_K|Q\d_\d|MXFP4|NVFP4|TQ\d_\d)", re.IGNORECASE)


def weight_type(name: str) -> str | None:
    """The ggml weight type a quant's name says ("Q4_K_M" -> "Q4_K", "IQ4_NL", "MXFP4"); None when the
    name says none (F16, BF16, a name without a type)."""
    m = _TYPE.search(name)
    return m.group(1).upper() if m else None


def plain_layout(backend: Backend | None, engine: Engine, wtype: str | None, moe: bool, build_date: str = "") -> bool:
    """Whether SYCL decodes the model's (main) weight type from the plain block layout in a build of
    `build_date` ("YYYY-MM"; empty: a current build). An MoE model counts by its experts, which hold most of
    its bytes. Unknown types count as reordered (no term)."""
    if backend is not Backend.SYCL or engine is not Engine.LLAMA_CPP or wtype is None:
        return False
    since = (EXPERT_REORDERED_SINCE if moe else DENSE_REORDERED_SINCE).get(wtype)
    return since is None or (bool(build_date) and build_date < since)


def scenario_type(scenario: Scenario) -> str | None:
    return weight_type(scenario.quant.name)


def layout_factor(scenario: Scenario, calibration: Calibration) -> float:
    """The decode η's factor for the scenario's weights on SYCL in a current build: the fitted plain-layout
    share where no reordered kernel reads them, else 1."""
    backend = resolve_backend(scenario.hardware, scenario.workload.backend)
    plain = plain_layout(backend, scenario.workload.engine, scenario_type(scenario), scenario.model.is_moe)
    return calibration.sycl_plain_eta if plain else 1.0
