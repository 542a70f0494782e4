"""The memory line says where what does not fit in fast memory goes: host RAM, and disk beyond it."""

from __future__ import annotations

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.evaluate import evaluate
from advisor.core.scenario import Scenario, Workload
from advisor.present.memory_text import spill_words

CAT = shipped_catalog()


def _words(hardware: str, model: str, host_gb: float) -> tuple[str, float]:
    hw = to_hardware(CAT.hardware[hardware]).model_copy(update={"host_memory_gb": host_gb})
    s = Scenario(
        hardware=hw,
        model=to_model(CAT.models[model]),
        quant=to_quant(CAT.quants["q4_k_m"]),
        workload=Workload(context=4096),
    )
    r = evaluate(s)
    assert r.fast_capacity_gb is not None
    return spill_words(r, r.total_gb - r.fast_capacity_gb), r.total_gb - r.fast_capacity_gb


def test_a_spill_into_host_ram_names_it() -> None:
    words, over = _words("rtx-4060-ti-16gb", "llama-3.3-70b", 64)
    assert over > 0 and words.endswith("GB in host RAM") and "disk" not in words


def test_a_model_beyond_host_ram_says_it_streams_from_disk() -> None:
    words, _ = _words("rtx-4090", "deepseek-v3", 64)
    assert "GB in host RAM" in words and "streamed from disk" in words
