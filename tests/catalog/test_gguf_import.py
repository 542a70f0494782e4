"""GGUF import: real files written with gguf.GGUFWriter (dense, MoE, sliding-window, MLA, hybrid, tied,
split into parts) become the model entries their headers describe, a sparse 40 GB file included."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFWriter

from advisor.catalog.gguf_import import GGUFError, import_gguf
from tests.catalog.gguf_files import Written, write_gguf


@pytest.fixture
def tiny(tmp_path: Path) -> Written:
    return write_gguf(tmp_path / "tiny-llama-Q4_K_M.gguf")


# --- good files -------------------------------------------------------------------------------------


def test_tiny_llama(tiny: Written) -> None:
    m = import_gguf(tiny.path)
    e = m.entry
    assert e.total_params_b * 1e9 == pytest.approx(tiny.params)
    assert m.bits_per_weight == pytest.approx(tiny.tensor_bytes * 8 / tiny.params)
    assert 4.5 < m.bits_per_weight < 16  # a mix of F16, Q8_0 and Q4_K
    assert (e.layers, e.hidden, e.heads, e.kv_heads, e.head_dim, e.vocab) == (2, 256, 4, 2, 64, 512)
    assert e.max_context == 4096 and e.attention == "full"
    assert e.active_params_b is None and e.name == "Tiny Llama" and e.id == "tiny-llama"
    assert m.file_type == "Q4_K_M" and m.tensor_count == 21 and m.file_size == tiny.path.stat().st_size
    assert m.architecture == "llama"


def test_moe(tmp_path: Path) -> None:
    w = write_gguf(tmp_path / "moe.gguf", arch="qwen3moe", name="Tiny MoE", experts=8, used=2)
    m = import_gguf(w.path)
    e = m.entry
    assert e.experts == 8 and e.experts_active == 2
    assert e.total_params_b * 1e9 == pytest.approx(w.params)
    assert e.active_params_b is not None
    assert e.active_params_b * 1e9 == pytest.approx(w.params - w.expert_params * 6 / 8)
    assert e.is_moe
    # the experts (Q4_K gate/up, Q8_0 down) and the rest (F16 embeddings, Q8_0 attention, F32 norms and
    # router) each at the bits of their own bytes; together they give back the file's average
    assert m.expert_bits_per_weight is not None and m.dense_bits_per_weight is not None
    assert 4.5 < m.expert_bits_per_weight < 8.5 < m.dense_bits_per_weight
    rest = w.params - w.expert_params
    assert (m.expert_bits_per_weight * w.expert_params + m.dense_bits_per_weight * rest) / 8 == pytest.approx(
        w.tensor_bytes
    )
    q = m.quant()
    assert (q.bits_per_weight, q.dense_bits_per_weight) == (m.expert_bits_per_weight, m.dense_bits_per_weight)
    # the core's split of this entry (from its active count) is the file's own: bytes stored come out exact
    from advisor.catalog.convert import to_model
    from advisor.core.inputs import build_inputs
    from advisor.core.scenario import Scenario, Workload

    inp = build_inputs(Scenario(model=to_model(e), quant=q, workload=Workload(context=0)))
    assert float(inp.dense_bytes) + float(inp.expert_bytes) == pytest.approx(w.tensor_bytes, rel=1e-6)


def test_dense_file_has_no_split(tiny: Written) -> None:
    m = import_gguf(tiny.path)
    assert m.expert_bits_per_weight is None and m.dense_bits_per_weight is None
    assert m.quant().bits_per_weight == pytest.approx(m.bits_per_weight) and m.quant().dense_bits_per_weight is None


def test_per_layer_kv_heads_take_the_max(tmp_path: Path) -> None:
    w = write_gguf(tmp_path / "var.gguf", layers=3, kv_heads=[1, 2, 4])
    m = import_gguf(w.path)
    assert m.entry.kv_heads == 4
    assert any("vary by layer" in n for n in m.notes)


def test_sliding_window_pattern_by_arch(tmp_path: Path) -> None:
    w = write_gguf(
        tmp_path / "g3.gguf", arch="gemma3", layers=12, context=32768, extra={"{arch}.attention.sliding_window": 1024}
    )
    e = import_gguf(w.path).entry
    assert e.attention == "sliding" and e.sliding_window == 1024 and e.sliding_layers == 10  # 5 of every 6


def test_mla_fields(tmp_path: Path) -> None:
    w = write_gguf(
        tmp_path / "ds.gguf",
        arch="deepseek2",
        extra={"{arch}.attention.kv_lora_rank": 512, "{arch}.rope.dimension_count": 64},
    )
    e = import_gguf(w.path).entry
    assert (e.attention, e.kv_lora_rank, e.rope_dim) == ("mla", 512, 64)


def test_split_model_sums_every_part(tmp_path: Path) -> None:
    w = GGUFWriter(tmp_path / "big.gguf", "llama", split_max_tensors=2)
    w.add_name("Split")
    w.add_block_count(1)
    for i in range(5):
        w.add_tensor(f"t{i}.weight", np.zeros((4, 8), np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    parts = sorted(tmp_path.glob("big-*-of-*.gguf"))
    assert len(parts) == 3
    m = import_gguf(parts[0])
    assert m.tensor_count == 5 and m.entry.total_params_b * 1e9 == pytest.approx(5 * 32)
    assert m.file_size == sum(p.stat().st_size for p in parts)
    with pytest.raises(GGUFError, match="open the -00001-of- file"):
        import_gguf(parts[1])
    parts[2].unlink()
    with pytest.raises(GGUFError, match="big-00003-of-00003.gguf is missing"):
        import_gguf(parts[0])


def test_sparse_40gb_file_imports_fast(tmp_path: Path) -> None:
    """Llama-70B shapes at Q4_K with a 128k vocabulary: the data region is a sparse hole, never read."""
    path = tmp_path / "big-70b.gguf"
    try:
        w = write_gguf(
            path,
            name="Big 70B",
            layers=80,
            hidden=8192,
            heads=64,
            kv_heads=8,
            vocab=128256,
            ff=28672,
            context=131072,
            with_data=False,
            merges=280_000,
        )
    except OSError as err:  # a filesystem without sparse files
        pytest.skip(f"cannot make a sparse file here: {err}")
    size = path.stat().st_size
    assert size > 38e9
    start = time.perf_counter()
    m = import_gguf(path)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"{elapsed:.2f} s"
    assert m.entry.total_params_b == pytest.approx(w.params / 1e9)
    assert 69 < m.entry.total_params_b < 72 and m.entry.vocab == 128256 and m.file_size == size
    assert path.stat().st_blocks * 512 < 64 << 20  # still sparse: nothing was written into the hole


def test_hybrid_files_cache_only_their_attention_layers(tmp_path: Path) -> None:
    # a state-space hybrid (Nemotron-H, Granite hybrid): head_count_kv per layer, 0 for the Mamba layers
    w = write_gguf(tmp_path / "h.gguf", arch="nemotron_h", layers=4, kv_heads=[0, 2, 0, 0], with_data=False)
    e = import_gguf(w.path).entry
    assert e.kv_bytes_per_token_override == 2 * 1 * 2 * 64 * 2  # one attention layer, 2 KV heads × 64
    assert "hybrid: 1 of 4 layers keep a KV cache" in e.notes and e.attention_layers == 1
    # Qwen3.5/3.6: every full_attention_interval-th layer attends (llama.cpp's default 4 when unstated)
    q = write_gguf(tmp_path / "q.gguf", arch="qwen35moe", layers=8, experts=4, used=2, with_data=False)
    assert import_gguf(q.path).entry.kv_bytes_per_token_override == 2 * 2 * 2 * 64 * 2
    q2 = write_gguf(
        tmp_path / "q2.gguf",
        arch="qwen35",
        layers=8,
        with_data=False,
        extra={
            "{arch}.full_attention_interval": 2,
            "{arch}.ssm.state_size": 16,
            "{arch}.ssm.inner_size": 64,
            "{arch}.ssm.group_count": 2,
            "{arch}.ssm.conv_kernel": 4,
        },
    )
    e2 = import_gguf(q2.path).entry
    assert e2.kv_bytes_per_token_override == 2 * 4 * 2 * 64 * 2
    # the 4 recurrent layers' f32 state: 16 × 64 plus 3 × (64 + 2 × 2 × 16) conv inputs each
    assert e2.state_bytes_per_sequence == 4 * 4 * (16 * 64 + 3 * (64 + 2 * 2 * 16))
    # a plain llama file keeps the cache its shape gives
    assert import_gguf(write_gguf(tmp_path / "l.gguf", with_data=False).path).entry.kv_bytes_per_token_override is None


def test_tied_embeddings_from_the_tensor_names(tmp_path: Path) -> None:
    untied = import_gguf(write_gguf(tmp_path / "untied.gguf").path).entry
    tied_file = write_gguf(tmp_path / "tied.gguf", tied=True)
    tied = import_gguf(tied_file.path).entry
    assert untied.tied_embeddings is False and tied.tied_embeddings is True
    assert tied.total_params_b * 1e9 == pytest.approx(tied_file.params)  # one table, counted once
