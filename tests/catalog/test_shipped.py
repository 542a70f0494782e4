"""The shipped catalogs: every entry loads, ids are unique, figures are plausible for their class,
and each model's parameter count agrees with its own architecture (read back from its notes)."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from advisor.catalog.loader import KINDS, Catalog, catalog_root, load_shipped
from advisor.catalog.params import ArchCounts, count_params
from advisor.catalog.schema import ModelEntry
from advisor.core.hardware import HardwareClass
from advisor.core.quant import KV_BYTES_PER_ELEMENT


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_shipped()


def test_loads_without_problems(cat: Catalog) -> None:
    assert cat.problems == ()


def test_enough_entries(cat: Catalog) -> None:
    assert len(cat.hardware) >= 60 and len(cat.models) >= 40 and len(cat.quants) >= 25


def test_ids_unique_across_files() -> None:
    """Read the TOML directly: the loader would drop a duplicate (with a problem), this names it."""
    root = Path(str(catalog_root()))
    for kind, (table, _) in KINDS.items():
        ids = [
            e.get("id")
            for f in sorted((root / kind).glob("*.toml"))
            for e in tomllib.loads(f.read_text(encoding="utf-8")).get(table, [])
        ]
        dupes = [i for i, n in Counter(ids).items() if n > 1]
        assert not dupes, f"{kind}: duplicate ids {dupes}"


def test_duplicate_id_is_reported(tmp_path: Path) -> None:
    entry = """
[[quant]]
id = "dup"
name = "{name}"
format = "gguf"
bits_per_weight = 4.5
source = "test"
"""
    (tmp_path / "quants").mkdir()
    (tmp_path / "quants" / "a.toml").write_text(entry.format(name="first"))
    (tmp_path / "quants" / "b.toml").write_text(entry.format(name="second"))
    c = load_shipped(tmp_path)
    assert c.quants["dup"].name == "first"
    assert c.problems == ("catalogs/quants/b.toml: entry 'dup' field 'id': duplicate id, already defined",)


def test_every_entry_has_a_source(cat: Catalog) -> None:
    for kind in ("hardware", "models", "quants", "kv_cache"):
        for e in getattr(cat, kind).values():
            assert e.source.strip(), f"{kind}/{e.id} has no source"


# Plausible per class: (memory GB, bandwidth GB/s, FP16 TFLOPS)
RANGES = {
    HardwareClass.DISCRETE_GPU: ((4, 300), (100, 10_000), (5, 5_000)),
    HardwareClass.UNIFIED: ((8, 1024), (50, 1_500), (1, 500)),
    # a Raspberry Pi 5's one 32-bit LPDDR4X channel: 17 GB/s
    HardwareClass.CPU: ((8, 4096), (10, 1_000), (0.1, 100)),
}


def test_hardware_figures_plausible(cat: Catalog) -> None:
    for h in cat.hardware.values():
        (mlo, mhi), (blo, bhi), (tlo, thi) = RANGES[h.kind]
        assert mlo <= h.memory_gb <= mhi, f"{h.id}: memory {h.memory_gb} GB"
        assert blo <= h.bandwidth_gbps <= bhi, f"{h.id}: bandwidth {h.bandwidth_gbps} GB/s"
        assert tlo <= h.fp16_tflops <= thi, f"{h.id}: {h.fp16_tflops} TFLOPS"
        if h.kind is HardwareClass.UNIFIED:
            assert 0.5 <= h.gpu_memory_fraction < 1, f"{h.id}: GPU share {h.gpu_memory_fraction}"
            assert h.host_memory_gb == 0, f"{h.id}: unified memory has no separate host pool"
        if h.price_usd is not None:
            assert 50 <= h.price_usd <= 1_000_000, f"{h.id}: price {h.price_usd}"
        if h.year is not None:
            assert 2015 <= h.year <= 2030, f"{h.id}: year {h.year}"
        assert set(h.estimates) <= set(type(h).model_fields), f"{h.id}: estimates name unknown fields"


def test_model_figures_plausible(cat: Catalog) -> None:
    for m in cat.models.values():
        assert 0.1 <= m.total_params_b <= 2000, m.id
        assert m.has_kv_shape, f"{m.id}: no KV shape"
        if m.heads and m.kv_heads:
            assert m.heads % m.kv_heads == 0, f"{m.id}: {m.heads} heads do not group into {m.kv_heads} KV heads"
        if m.experts is not None:
            assert m.experts_active is not None and m.active_params_b is not None, m.id
            assert m.experts_active < m.experts and m.active_params_b < m.total_params_b, m.id
        if m.attention == "sliding":
            assert m.sliding_window is not None and m.sliding_window < m.max_context, m.id
        assert set(m.estimates) <= set(ModelEntry.model_fields), f"{m.id}: estimates name unknown fields"


def test_quant_figures_plausible(cat: Catalog) -> None:
    for q in cat.quants.values():
        assert 1 <= q.bits_per_weight <= 32, f"{q.id}: {q.bits_per_weight} bpw"
        if q.quality is not None and q.quality.metric == "kld":
            assert q.quality.value < 5, q.id  # IQ1_S on Llama-3-8B really is 2.25


def test_kv_cache_matches_the_core(cat: Catalog) -> None:
    assert {k for k in cat.kv_cache} == {p.value for p in KV_BYTES_PER_ELEMENT}
    for precision, size in KV_BYTES_PER_ELEMENT.items():
        assert cat.kv_cache[precision.value].bytes_per_element == size


# --- parameter counts from the architecture written in each model's notes -----------------------------


def _num(notes: str, key: str) -> int:
    m = re.search(rf"(?<![a-z_]){key}=(\d+)", notes)
    return int(m.group(1)) if m else 0


def arch_from_notes(m: ModelEntry) -> ArchCounts | None:
    """The entry's shape plus what its notes record (intermediate sizes, experts, tying, MLA dims);
    None when the notes do not say enough."""
    n = m.notes
    tied = re.search(r"tied embeddings: (yes|no)", n)
    dense, moe = _num(n, "intermediate_size"), _num(n, "moe_intermediate_size")
    if tied is None or not (dense or moe) or None in (m.layers, m.hidden, m.heads, m.vocab):
        return None
    assert m.layers and m.hidden and m.heads and m.vocab
    return ArchCounts(
        layers=m.layers,
        hidden=m.hidden,
        heads=m.heads,
        kv_heads=m.kv_heads or m.heads,
        head_dim=m.resolved_head_dim or m.hidden // m.heads,
        vocab=m.vocab,
        intermediate_size=dense,
        tied_embeddings=tied.group(1) == "yes",
        experts=m.experts or 0,
        experts_active=m.experts_active or 0,
        moe_intermediate_size=moe,
        shared_experts=_num(n, "shared_experts"),
        shared_intermediate_size=_num(n, "shared_expert_intermediate_size"),
        dense_layers=_num(n, "first_k_dense_replace"),
        kv_lora_rank=(m.kv_lora_rank or 0) if m.attention == "mla" else 0,
        q_lora_rank=_num(n, "q_lora_rank"),
        qk_nope_head_dim=_num(n, "qk_nope_head_dim"),
        qk_rope_head_dim=_num(n, "qk_rope_head_dim"),
        v_head_dim=_num(n, "v_head_dim"),
    )


def _published_active(m: ModelEntry, a: ArchCounts, active: int) -> int:
    """Some publishers leave embedding tables out of 'active'; the notes say so."""
    if re.search(r"active count excludes the [\d.]+B input embedding table", m.notes):
        return active - a.vocab * a.hidden
    if "active excludes the embedding and output tables" in m.notes:
        return active - 2 * a.vocab * a.hidden
    return active


def test_params_agree_with_architecture(cat: Catalog) -> None:
    covered, off = 0, []
    for m in cat.models.values():
        a = arch_from_notes(m)
        if a is None:
            continue
        covered += 1
        total, active = count_params(a)
        if abs(total / 1e9 / m.total_params_b - 1) > 0.05:
            off.append(f"{m.id}: total {m.total_params_b}B, architecture gives {total / 1e9:.2f}B")
        # a hybrid's linear-attention layers have their own projections, which the notes' standard-attention
        # shape does not describe: its total still agrees to 5 %, its small active count need not
        if m.active_params_b is not None and m.attention_layers is None:
            act = _published_active(m, a, active) / 1e9
            if abs(act / m.active_params_b - 1) > 0.05:
                off.append(f"{m.id}: active {m.active_params_b}B, architecture gives {act:.2f}B")
    assert not off, "\n".join(off)
    assert covered >= 0.9 * len(cat.models), f"notes describe only {covered} of {len(cat.models)} models"
