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


def apply_params(base: Calibration, params: Sequence[Param], x: NDArray[np.float64]) -> Calibration:
    terms = dict(base.terms)
    backends = dict(base.backends)
    eras = dict(base.era_token)
    host_eta, spread, attn_eta = base.host_eta, base.expert_spread, base.unfused_attn_eta
    fused_eta = base.fused_attn_eta
    cpu_attn = base.cpu_attn_gbps
    moe_token = base.moe_token
    machines = dict(base.machines)
    generations = dict(base.generations)
    vulkan_prefill = dict(base.vulkan_prefill)
    for p, xi in zip(params, x, strict=True):
        v = p.value(float(xi))
        if p.term.startswith("backend.") and p.backend is not None:
            old = backends.get(p.backend, BackendTerms())
            backends[p.backend] = replace(old, decode=v) if p.term == "backend.decode" else replace(old, prefill=v)
            continue
        if p.term == "era_token" and p.era is not None and p.backend is not None:
            eras[(p.era, p.backend)] = v
            continue
        if p.term == "host_eta":
            host_eta = v
            continue
        if p.term == "expert_spread":
            spread = v
            continue
        if p.term == "unfused_attn_eta":
            attn_eta = v
            continue
        if p.term == "fused_attn_eta":
            fused_eta = v
            continue
        if p.term == "cpu_attn_gbps":
            cpu_attn = v
            continue
        if p.term == "machine" and p.machine is not None:
            machines[p.machine] = MachineTerms(decode=v)
            continue
        if p.term == "generation" and p.machine is not None:
            generations[p.machine] = MachineTerms(decode=v)
            continue
        if p.term == "moe_token":
            moe_token = v
            continue
        if p.term == "vulkan_prefill" and p.machine is not None:
            vulkan_prefill[p.machine] = v
            continue
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
        host_eta=host_eta,
        expert_spread=spread,
        backends=backends,
        unfused_attn_eta=attn_eta,
        fused_attn_eta=fused_eta,
        cpu_attn_gbps=cpu_attn,
        era_token=eras,
        moe_token=moe_token,
        machines=machines,
        generations=generations,
        vulkan_prefill=vulkan_prefill,
    )
