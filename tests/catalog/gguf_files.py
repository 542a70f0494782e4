"""GGUF files for the tests, written with gguf.GGUFWriter: a llama-shaped model of any size, with or
without its tensor data."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gguf import GGUFWriter, LlamaFileType
from gguf.constants import GGML_QUANT_SIZES
from gguf.constants import GGMLQuantizationType as T
from gguf.quants import quant_shape_to_byte_shape


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


def write_gguf(
    path: Path,
    *,
    arch: str = "llama",
    name: str = "Tiny Llama",
    layers: int = 2,
    hidden: int = 256,
    heads: int = 4,
    kv_heads: int | list[int] = 2,
    vocab: int = 512,
    ff: int = 512,
    experts: int = 0,
    used: int = 0,
    context: int = 4096,
    with_data: bool = True,
    tokens: bool = True,
    merges: int = 0,
    extra: dict[str, int] | None = None,
    tied: bool = False,
) -> Written:
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
        shapes += [
            (f"{b}.attn_norm.weight", (hidden,), T.F32),
            (f"{b}.attn_q.weight", (q, hidden), T.Q8_0),
            (f"{b}.attn_k.weight", (kv, hidden), T.Q8_0),
            (f"{b}.attn_v.weight", (kv, hidden), T.Q8_0),
            (f"{b}.attn_output.weight", (hidden, q), T.Q8_0),
            (f"{b}.ffn_norm.weight", (hidden,), T.F32),
        ]
        if experts:
            shapes += [
                (f"{b}.ffn_gate_inp.weight", (experts, hidden), T.F32),
                (f"{b}.ffn_gate_exps.weight", (experts, ff, hidden), T.Q4_K),
                (f"{b}.ffn_up_exps.weight", (experts, ff, hidden), T.Q4_K),
                (f"{b}.ffn_down_exps.weight", (experts, hidden, ff), T.Q8_0),
            ]
        else:
            shapes += [
                (f"{b}.ffn_gate.weight", (ff, hidden), T.Q4_K),
                (f"{b}.ffn_up.weight", (ff, hidden), T.Q4_K),
                (f"{b}.ffn_down.weight", (hidden, ff), T.Q4_K),
            ]
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
