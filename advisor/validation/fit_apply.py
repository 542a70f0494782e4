"""How the fit's free parameters (advisor.validation.fit_params) write their values into a Calibration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.core.calibration import Calibration
from advisor.core.terms import BackendTerms, MachineTerms
from advisor.validation.fit_params import Param

# Parameters that are one Calibration field each, named as the field
SCALAR_TERMS = frozenset(
    {
        "host_eta",
        "expert_spread",
        "unfused_attn_eta",
        "fused_attn_eta",
        "cpu_attn_gbps",
        "moe_token",
        "sycl_plain_eta",
        "sycl_f32_eta",
    }
)


def apply_params(base: Calibration, params: Sequence[Param], x: NDArray[np.float64]) -> Calibration:
    terms = dict(base.terms)
    backends = dict(base.backends)
    eras = dict(base.era_token)
    scalars: dict[str, Any] = {}  # replace()'s keywords: Any, as mypy checks ** against every field
    # keyed factors: the chips', the architectures' and Vulkan's per vendor
    keyed: dict[str, dict[str, Any]] = {
        "machine": dict(base.machines),
        "generation": dict(base.generations),
        "vulkan_prefill": dict(base.vulkan_prefill),
    }
    for p, xi in zip(params, x, strict=True):
        v = p.value(float(xi))
        if p.term in SCALAR_TERMS:
            scalars[p.term] = v
        elif p.term.startswith("backend.") and p.backend is not None:
            old = backends.get(p.backend, BackendTerms())
            backends[p.backend] = replace(old, decode=v) if p.term == "backend.decode" else replace(old, prefill=v)
        elif p.term == "era_token" and p.era is not None and p.backend is not None:
            eras[(p.era, p.backend)] = v
        elif p.term in keyed and p.machine is not None:
            keyed[p.term][p.machine] = v if p.term == "vulkan_prefill" else MachineTerms(decode=v)
        else:
            part, attr = p.term.split(".")
            change: dict[str, Any] = {attr: v}
            for g in p.groups:
                t = terms[g]
                if part == "decode":
                    terms[g] = replace(t, decode=replace(t.decode, **change), fitted=True)
                else:
                    terms[g] = replace(t, prefill=replace(t.prefill, **change), fitted=True)
    return replace(
        base,
        terms=terms,
        backends=backends,
        era_token=eras,
        machines=keyed["machine"],
        generations=keyed["generation"],
        vulkan_prefill=keyed["vulkan_prefill"],
        **scalars,
    )
