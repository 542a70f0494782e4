"""The session the window starts on when none was saved, and the base a detected machine is put under."""

from __future__ import annotations

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import Catalog
from advisor.core.scenario import Scenario
from advisor.session import Session

DEFAULT_PICKS = ("rtx-4090", "llama-3.1-8b", "q4_k_m")


def default_session(catalog: Catalog) -> Session:
    """RTX 4090 · Llama 3.1 8B · Q4_K_M: the seeds' reference case, if the catalog has it."""
    hid, mid, qid = DEFAULT_PICKS
    parts: dict[str, object] = {}
    if hid in catalog.hardware:
        parts["hardware"] = to_hardware(catalog.hardware[hid])
    if mid in catalog.models:
        parts["model"] = to_model(catalog.models[mid])
    if qid in catalog.quants:
        parts["quant"] = to_quant(catalog.quants[qid])
    return Session(
        scenario=Scenario(**parts),  # type: ignore[arg-type]
        hardware_id=hid if "hardware" in parts else None,
        model_id=mid if "model" in parts else None,
        quant_id=qid if "quant" in parts else None,
    )
