"""Plot titles that name the scenario, as a slide needs."""

from __future__ import annotations

from advisor.session import Session


def scenario_title(session: Session) -> str:
    s = session.scenario
    hw = s.hardware.name + (f" ×{s.hardware.devices}" if s.hardware.devices > 1 else "")
    return f"{hw} · {s.model.name} · {s.quant.name} · {s.workload.context:,} ctx"
