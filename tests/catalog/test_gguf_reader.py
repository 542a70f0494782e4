"""Reading a GGUF header: what the reader keeps of a real file, and broken copies, hand-made headers and
fuzzed bytes that must each end in one GGUFError naming the file, fast and in little memory."""

from __future__ import annotations

import struct
import time
import tracemalloc
from pathlib import Path

import pytest
from gguf.constants import GGMLQuantizationType as T
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.catalog.gguf_import import import_gguf
from advisor.catalog.gguf_reader import GGUFError, read_header
from tests.catalog.gguf_files import Written, write_gguf


@pytest.fixture
def tiny(tmp_path: Path) -> Written:
    return write_gguf(tmp_path / "tiny-llama-Q4_K_M.gguf")


def test_header_only_reads_tensor_infos(tiny: Written) -> None:
    h = read_header(tiny.path)
    assert h.version == 3
    assert h.metadata["general.architecture"] == "llama"
    assert h.metadata["tokenizer.ggml.tokens"].count == 512
    assert {t.ggml_type for t in h.tensors} == {T.F16, T.F32, T.Q8_0, T.Q4_K}
    assert h.data_start % 32 == 0


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


@pytest.mark.parametrize(
    ("offset", "value", "match"),
    [
        (8, 10**9, "tensor count 1,000,000,000 exceeds"),
        (16, 10**7, "metadata count 10,000,000 exceeds"),
        (24, 2**40, "exceeds 1 MiB"),  # the first key's length
    ],
)
def test_absurd_counts(tiny: Written, offset: int, value: int, match: str) -> None:
    raw = bytearray(tiny.path.read_bytes())
    raw[offset : offset + 8] = struct.pack("<Q", value)
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
    write_gguf(
        path, layers=1, vocab=16, hidden=256, ff=256, experts=4, used=2, extra={"{arch}.attention.sliding_window": 64}
    )
    return path.read_bytes()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_header_only_raises_gguf_error(small_valid: bytes, tmp_path: Path, data: st.DataObject) -> None:
    header_end = min(len(small_valid), 2048)
    raw = bytearray(small_valid)
    mutations = data.draw(
        st.lists(st.tuples(st.integers(0, header_end - 1), st.integers(0, 255)), min_size=1, max_size=8)
    )
    for pos, byte in mutations:
        raw[pos] = byte
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    path = tmp_path / "fuzz.gguf"
    path.write_bytes(bytes(raw))
    try:
        m = import_gguf(path)
    except GGUFError as err:
        assert str(err).startswith("fuzz.gguf: ")
    else:
        assert m.entry.total_params_b > 0
