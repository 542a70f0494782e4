"""An untied input embedding table is stored but not read per token: llama.cpp looks up one row of it
(get_rows), while the output head, a matmul, reads all of its own table. A tied model's head reads the
shared table every token, and a model whose tying is unknown counts every weight as read."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.curves import axis_inputs
from advisor.core.evaluate import evaluate
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload

CAT = shipped_catalog()
RTX4090 = to_hardware(CAT.hardware["rtx-4090"])
Q4 = to_quant(CAT.quants["q4_k_m"])


def _scenario(model: ModelArch, context: int = 4096) -> Scenario:
    return Scenario(hardware=RTX4090, model=model, quant=Q4, workload=Workload(context=context))


def _weights_read(model: ModelArch) -> tuple[float, float]:
    """(bytes stored, weight bytes read per token) at batch 1 with everything on the GPU."""
    inp = build_inputs(_scenario(model))
    out = solve(inp)
    return float(out.footprint - out.kv_hold), float(out.fast_read - out.fast_kv)


def test_untied_model_reads_all_but_the_input_table() -> None:
    llama = to_model(CAT.models["llama-3.1-8b"])
    assert llama.tied_embeddings is False
    stored, read = _weights_read(llama)
    bpw = Q4.bits_per_weight / 8
    assert stored == pytest.approx(8.03e9 * bpw)  # memory still holds the table
    assert read == pytest.approx((8.03e9 - 128_256 * 4_096) * bpw)  # 6.5 % less than stored
    assert read / stored == pytest.approx(0.9346, abs=1e-4)


def test_tied_and_unknown_models_read_every_weight() -> None:
    tied = to_model(CAT.models["llama-3.2-1b"])
    assert tied.tied_embeddings is True
    stored, read = _weights_read(tied)
    assert read == pytest.approx(stored)
    unknown = tied.model_copy(update={"tied_embeddings": None})
    assert _weights_read(unknown) == pytest.approx((stored, read))


def test_untying_makes_decode_faster_by_the_bytes_it_skips() -> None:
    llama = to_model(CAT.models["llama-3.1-8b"])
    untied = evaluate(_scenario(llama)).decode_tok_s
    counted = evaluate(_scenario(llama.model_copy(update={"tied_embeddings": None}))).decode_tok_s
    assert untied > counted
    # the ceiling is plain bandwidth ÷ bytes: exactly the ratio of the bytes read
    a = solve(build_inputs(_scenario(llama, context=0)))
    b = solve(build_inputs(_scenario(llama.model_copy(update={"tied_embeddings": None}), context=0)))
    assert float(a.ceiling) / float(b.ceiling) == pytest.approx(1 / 0.9346, abs=1e-3)


def test_model_size_axis_scales_the_unread_table_with_the_model() -> None:
    llama = to_model(CAT.models["llama-3.1-8b"])
    base = build_inputs(_scenario(llama))
    import numpy as np

    inp = axis_inputs(_scenario(llama), "params", np.array([8.03, 16.06]))
    assert inp.unread_bytes[1] == pytest.approx(2 * float(base.unread_bytes))
    assert inp.unread_bytes[1] / inp.dense_bytes[1] == pytest.approx(float(base.unread_bytes / base.dense_bytes))


def test_the_arithmetic_names_the_table_it_skips() -> None:
    llama = to_model(CAT.models["llama-3.1-8b"])
    r = evaluate(_scenario(llama))
    text = next(st.text for st in r.steps if st.label == "Weights")
    assert "4.59 GB read per token (less the input embedding table, 128,256 × 4,096 = 0.525 B params" in text
    assert r.weights_read_gb == pytest.approx((8.03e9 - 128_256 * 4_096) * Q4.bits_per_weight / 8 / 1e9)
    tied = evaluate(_scenario(to_model(CAT.models["llama-3.2-1b"])))
    assert "input embedding" not in next(st.text for st in tied.steps if st.label == "Weights")


def test_every_catalog_model_says_whether_it_ties() -> None:
    # the catalog's notes quote tie_word_embeddings; the field carries it for the arithmetic
    for e in CAT.models.values():
        assert e.tied_embeddings is not None, e.id
        assert f"tied embeddings: {'yes' if e.tied_embeddings else 'no'}" in e.notes, e.id
