"""GGUF import: real files written with gguf.GGUFWriter, broken copies, a sparse 40 GB file, and fuzzing."""

from __future__ import annotations

import os
import struct
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFWriter, LlamaFileType
from gguf.constants import GGML_QUANT_SIZES
from gguf.constants import GGMLQuantizationType as T
from gguf.quants import quant_shape_to_byte_shape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.catalog.gguf_import import GGUFError, import_gguf, read_header


@dataclass(frozen=True)
class Written:
    path: Path
    params: int
    tensor_bytes: int
    expert_params: int


def _nbytes(shape: Sequence[int], typ: T) -> int:
    block, size = GGML_QUANT_SIZES[typ]
    n = int(np.prod(shape))
    return n // block * size


def write_gguf(path: Path, *, arch: str = "llama", name: str = "Tiny Llama", layers: int = 2, hidden: int = 256,
               heads: int = 4, kv_heads: int | list[int] = 2, vocab: int = 512, ff: int = 512,
               experts: int = 0, used: int = 0, context: int = 4096, with_data: bool = True,
               tokens: bool = True, merges: int = 0, extra: dict[str, int] | None = None,
               tied: bool = False) -> Written:
    """A llama-shaped model: F16 embeddings, Q8_0 attention, Q4_K MLP (or MoE experts), F32 norms.
    with_data=False writes the header and tensor infos only, then extends the file sparsely to full size."""
    w = GGUFWriter(path, arch)
    w.add_name(name)
    w.add_block_count(layers)
    w.add_embedding_length(hidden)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_key_length(hidden // heads)
    w.add_value_length(hidden // heads)
    w.add_context_length(context)
    w.add_feed_forward_length(ff)
    w.add_file_type(LlamaFileType.MOSTLY_Q4_K_M)
    if experts:
        w.add_expert_count(experts)
        w.add_expert_used_count(used)
    for k, v in (extra or {}).items():
        w.add_uint32(k.format(arch=arch), v)
    if tokens:
        w.add_tokenizer_model("gpt2")
        w.add_token_list([f"tok{i}" for i in range(vocab)])
        w.add_token_types([1] * vocab)
    if merges:
        w.add_token_merges([f"a{i} b{i}" for i in range(merges)])

    shapes: list[tuple[str, tuple[int, ...], T]] = [("token_embd.weight", (vocab, hidden), T.F16)]
    for i in range(layers):
        b = f"blk.{i}"
        q = hidden
        kv = hidden // heads * (max(kv_heads) if isinstance(kv_heads, list) else kv_heads)
        shapes += [(f"{b}.attn_norm.weight", (hidden,), T.F32), (f"{b}.attn_q.weight", (q, hidden), T.Q8_0),
                   (f"{b}.attn_k.weight", (kv, hidden), T.Q8_0), (f"{b}.attn_v.weight", (kv, hidden), T.Q8_0),
                   (f"{b}.attn_output.weight", (hidden, q), T.Q8_0), (f"{b}.ffn_norm.weight", (hidden,), T.F32)]
        if experts:
            shapes += [(f"{b}.ffn_gate_inp.weight", (experts, hidden), T.F32),
                       (f"{b}.ffn_gate_exps.weight", (experts, ff, hidden), T.Q4_K),
                       (f"{b}.ffn_up_exps.weight", (experts, ff, hidden), T.Q4_K),
                       (f"{b}.ffn_down_exps.weight", (experts, hidden, ff), T.Q8_0)]
        else:
            shapes += [(f"{b}.ffn_gate.weight", (ff, hidden), T.Q4_K), (f"{b}.ffn_up.weight", (ff, hidden), T.Q4_K),
                       (f"{b}.ffn_down.weight", (hidden, ff), T.Q4_K)]
    shapes += [("output_norm.weight", (hidden,), T.F32)]
    if not tied:  # a tied model's head reads token_embd: the file has no output.weight
        shapes += [("output.weight", (vocab, hidden), T.Q8_0)]

    for tname, shape, typ in shapes:
        if not with_data:
            w.add_tensor_info(tname, shape, np.dtype(np.float32), _nbytes(shape, typ), raw_dtype=typ)
        elif typ is T.F32:
            w.add_tensor(tname, np.zeros(shape, np.float32))
        elif typ is T.F16:
            w.add_tensor(tname, np.zeros(shape, np.float16))
        else:
            w.add_tensor(tname, np.zeros(quant_shape_to_byte_shape(shape, typ), np.uint8), raw_dtype=typ)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    if with_data:
        w.write_tensors_to_file()
        w.close()
    else:
        w.write_ti_data_to_file()
        w.close()
        pad = lambda n: -(-n // 32) * 32  # noqa: E731
        os.truncate(path, pad(path.stat().st_size) + sum(pad(_nbytes(s, t)) for _, s, t in shapes))
    params = sum(int(np.prod(s)) for _, s, _ in shapes)
    experts_n = sum(int(np.prod(s)) for n, s, _ in shapes if "_exps" in n)
    return Written(path, params, sum(_nbytes(s, t) for _, s, t in shapes), experts_n)


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


def test_header_only_reads_tensor_infos(tiny: Written) -> None:
    h = read_header(tiny.path)
    assert h.version == 3
    assert h.metadata["general.architecture"] == "llama"
    assert h.metadata["tokenizer.ggml.tokens"].count == 512
    assert {t.ggml_type for t in h.tensors} == {T.F16, T.F32, T.Q8_0, T.Q4_K}
    assert h.data_start % 32 == 0


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
    assert (m.expert_bits_per_weight * w.expert_params + m.dense_bits_per_weight * rest) / 8 == \
        pytest.approx(w.tensor_bytes)
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
    w = write_gguf(tmp_path / "g3.gguf", arch="gemma3", layers=12, context=32768,
                   extra={"{arch}.attention.sliding_window": 1024})
    e = import_gguf(w.path).entry
    assert e.attention == "sliding" and e.sliding_window == 1024 and e.sliding_layers == 10  # 5 of every 6


def test_mla_fields(tmp_path: Path) -> None:
    w = write_gguf(tmp_path / "ds.gguf", arch="deepseek2", extra={
        "{arch}.attention.kv_lora_rank": 512, "{arch}.rope.dimension_count": 64})
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
        w = write_gguf(path, name="Big 70B", layers=80, hidden=8192, heads=64, kv_heads=8, vocab=128256,
                       ff=28672, context=131072, with_data=False, merges=280_000)
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


# --- broken files -----------------------------------------------------------------------------------


def _expect_error(path: Path, match: str) -> GGUFError:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(GGUFError) as info:
            import_gguf(path)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - start < 0.5
    assert peak < 8 << 20, f"peak allocation {peak:,} bytes"
    msg = str(info.value)
    assert msg.startswith(f"{path.name}: ") and "\n" not in msg
    assert match in msg, msg
    return info.value


def _header_len(path: Path) -> int:
    return read_header(path).data_start


@pytest.mark.parametrize("cut", [0, 3, 7, 12, 20, 40, 200, 2000, -64, -1])
def test_truncated(tiny: Written, cut: int) -> None:
    raw = tiny.path.read_bytes()
    end = _header_len(tiny.path) + cut if cut < 0 else cut
    if cut == -1:
        end = len(raw) - 1  # inside the tensor data
    bad = tiny.path.with_name("cut.gguf")
    bad.write_bytes(raw[:end])
    _expect_error(bad, "not a GGUF file" if end < 4 else "truncated" if cut != -1 else "ends at byte")


def test_wrong_magic(tiny: Written) -> None:
    bad = tiny.path.with_name("magic.gguf")
    bad.write_bytes(b"GGML" + tiny.path.read_bytes()[4:])
    _expect_error(bad, "not a GGUF file")


@pytest.mark.parametrize(("version", "match"), [(1, "version 1 is not supported"), (7, "unsupported GGUF version 7")])
def test_bad_version(tiny: Written, version: int, match: str) -> None:
    raw = bytearray(tiny.path.read_bytes())
    raw[4:8] = struct.pack("<I", version)
    bad = tiny.path.with_name("ver.gguf")
    bad.write_bytes(raw)
    _expect_error(bad, match)


@pytest.mark.parametrize(("offset", "value", "match"), [
    (8, 10**9, "tensor count 1,000,000,000 exceeds"),
    (16, 10**7, "metadata count 10,000,000 exceeds"),
    (24, 2**40, "exceeds 1 MiB"),  # the first key's length
])
def test_absurd_counts(tiny: Written, offset: int, value: int, match: str) -> None:
    raw = bytearray(tiny.path.read_bytes())
    raw[offset:offset + 8] = struct.pack("<Q", value)
    bad = tiny.path.with_name("absurd.gguf")
    bad.write_bytes(raw)
    _expect_error(bad, match)


def _handmade(*kv: bytes, tensors: bytes = b"", n_tensors: int = 0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, len(kv)) + b"".join(kv) + tensors


def _s(text: str) -> bytes:
    return struct.pack("<Q", len(text)) + text.encode()


def test_huge_array_length(tmp_path: Path) -> None:
    bad = tmp_path / "array.gguf"
    bad.write_bytes(_handmade(_s("x") + struct.pack("<IIQ", 9, 0, 10**8)))
    _expect_error(bad, "array of 100000000 elements")


def test_too_many_dims(tmp_path: Path) -> None:
    bad = tmp_path / "dims.gguf"
    arch = _s("general.architecture") + struct.pack("<I", 8) + _s("llama")
    bad.write_bytes(_handmade(arch, tensors=_s("t") + struct.pack("<I", 9) + b"\0" * 100, n_tensors=1))
    _expect_error(bad, "9 dimensions")


def test_unknown_value_type_and_ggml_type(tmp_path: Path) -> None:
    bad = tmp_path / "vtype.gguf"
    bad.write_bytes(_handmade(_s("x") + struct.pack("<I", 99)))
    _expect_error(bad, "unknown value type 99")
    arch = _s("general.architecture") + struct.pack("<I", 8) + _s("llama")
    tensor = _s("t") + struct.pack("<IQIQ", 1, 32, 250, 0)
    bad.write_bytes(_handmade(arch, tensors=tensor, n_tensors=1))
    _expect_error(bad, "unknown ggml type 250")


def test_garbage_keys_and_names_stop_early(tmp_path: Path) -> None:
    """Zeros read as metadata or tensor infos (after a corrupted count) are caught at the first entry."""
    bad = tmp_path / "zeros.gguf"
    bad.write_bytes(_handmade(b"\0" * 64) + b"\0" * 4096)
    _expect_error(bad, "empty metadata key")
    one = _s("x") + struct.pack("<IB", 0, 1)
    bad.write_bytes(_handmade(one, one))
    _expect_error(bad, "repeated metadata key 'x'")
    tensor = _s("t") + struct.pack("<IQIQ", 1, 32, 0, 0)
    bad.write_bytes(_handmade(tensors=tensor * 2, n_tensors=2) + b"\0" * 512)
    _expect_error(bad, "repeated tensor name 't'")
    nested = _s("x") + struct.pack("<IIQ", 9, 9, 10**6)
    bad.write_bytes(_handmade(nested) + b"\0" * 4096)
    _expect_error(bad, "array of 1000000 arrays")


def test_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(GGUFError, match="nothing.gguf: no such file"):
        import_gguf(tmp_path / "nothing.gguf")
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    _expect_error(empty, "not a GGUF file")


# --- fuzzing ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_valid(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("fuzz") / "base.gguf"
    write_gguf(path, layers=1, vocab=16, hidden=256, ff=256, experts=4, used=2,
               extra={"{arch}.attention.sliding_window": 64})
    return path.read_bytes()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_header_only_raises_gguf_error(small_valid: bytes, tmp_path: Path, data: st.DataObject) -> None:
    header_end = min(len(small_valid), 2048)
    raw = bytearray(small_valid)
    mutations = data.draw(st.lists(st.tuples(st.integers(0, header_end - 1), st.integers(0, 255)),
                                   min_size=1, max_size=8))
    for pos, byte in mutations:
        raw[pos] = byte
    if data.draw(st.booleans()):
        raw = raw[:data.draw(st.integers(0, len(raw)))]
    path = tmp_path / "fuzz.gguf"
    path.write_bytes(bytes(raw))
    try:
        m = import_gguf(path)
    except GGUFError as err:
        assert str(err).startswith("fuzz.gguf: ")
    else:
        assert m.entry.total_params_b > 0


def test_hybrid_files_cache_only_their_attention_layers(tmp_path: Path) -> None:
    # a state-space hybrid (Nemotron-H, Granite hybrid): head_count_kv per layer, 0 for the Mamba layers
    w = write_gguf(tmp_path / "h.gguf", arch="nemotron_h", layers=4, kv_heads=[0, 2, 0, 0], with_data=False)
    e = import_gguf(w.path).entry
    assert e.kv_bytes_per_token_override == 2 * 1 * 2 * 64 * 2  # one attention layer, 2 KV heads × 64
    assert "hybrid: 1 of 4 layers keep a KV cache" in e.notes and e.attention_layers == 1
    # Qwen3.5/3.6: every full_attention_interval-th layer attends (llama.cpp's default 4 when unstated)
    q = write_gguf(tmp_path / "q.gguf", arch="qwen35moe", layers=8, experts=4, used=2, with_data=False)
    assert import_gguf(q.path).entry.kv_bytes_per_token_override == 2 * 2 * 2 * 64 * 2
    q2 = write_gguf(tmp_path / "q2.gguf", arch="qwen35", layers=8, with_data=False,
                    extra={"{arch}.full_attention_interval": 2, "{arch}.ssm.state_size": 16,
                           "{arch}.ssm.inner_size": 64, "{arch}.ssm.group_count": 2, "{arch}.ssm.conv_kernel": 4})
    e2 = import_gguf(q2.path).entry
    assert e2.kv_bytes_per_token_override == 2 * 4 * 2 * 64 * 2
    # the 4 recurrent layers' f32 state: 16 × 64 plus 3 × (64 + 2 × 2 × 16) conv inputs each
    assert e2.state_bytes_per_sequence == 4 * 4 * (16 * 64 + 3 * (64 + 2 * 2 * 16))
    # a plain llama file keeps the cache its shape gives
    assert import_gguf(write_gguf(tmp_path / "l.gguf", with_data=False).path).entry.kv_bytes_per_token_override \
        is None


def test_tied_embeddings_from_the_tensor_names(tmp_path: Path) -> None:
    untied = import_gguf(write_gguf(tmp_path / "untied.gguf").path).entry
    tied_file = write_gguf(tmp_path / "tied.gguf", tied=True)
    tied = import_gguf(tied_file.path).entry
    assert untied.tied_embeddings is False and tied.tied_embeddings is True
    assert tied.total_params_b * 1e9 == pytest.approx(tied_file.params)  # one table, counted once
