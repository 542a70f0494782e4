"""An MoE file whose non-expert tensors are stored at other bits than its experts (MXFP4: Q8_0 outside
the experts): the bytes stored and read per token count each part at its own precision."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.evaluate import evaluate
from advisor.core.inputs import build_inputs, split_params
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.recommend import solve_grid
from advisor.core.scenario import Scenario, Workload
from advisor.core.units import GB
from advisor.validation.data import load_dataset

CAT = shipped_catalog()
RTX4090 = to_hardware(CAT.hardware["rtx-4090"])
GPT_OSS = to_model(CAT.models["gpt-oss-20b"])
MXFP4 = to_quant(CAT.quants["mxfp4"])


def _scenario(model: ModelArch, quant: Quant) -> Scenario:
    return Scenario(hardware=RTX4090, model=model, quant=quant, workload=Workload(context=4096))


def test_catalog_mxfp4_keeps_the_rest_at_q8_0() -> None:
    assert (MXFP4.bits_per_weight, MXFP4.dense_bits_per_weight) == (4.25, 8.5)
    assert Quant(bits_per_weight=4.89).dense_bytes_per_weight == pytest.approx(4.89 / 8)  # unset: the same


def test_gpt_oss_bytes_stored_and_read() -> None:
    dense, experts, share = split_params(GPT_OSS)
    assert share == pytest.approx(4 / 32)
    inp = build_inputs(_scenario(GPT_OSS, MXFP4))
    assert float(inp.dense_bytes) == pytest.approx(dense * 8.5 / 8)
    assert float(inp.expert_bytes) == pytest.approx(experts * 4.25 / 8)
    stored = float(inp.dense_bytes) + float(inp.expert_bytes)
    embedding = 201_088 * 2_880  # the untied input table: a token reads one row of it
    assert float(inp.unread_bytes) == pytest.approx(embedding * 8.5 / 8)
    read = float(inp.dense_bytes) - float(inp.unread_bytes) + float(inp.expert_bytes) * share
    # 19.1 B expert weights at 4.25 bits and 1.80 B others at 8.5 bits: 12.07 GB (the file: 12.1 GB; the
    # card's MLP 19.12 B); a token reads 2.57 GB, against 3.61 B × 4.25 bits = 1.92 GB if all were MXFP4
    assert experts / 1e9 == pytest.approx(19.11, abs=0.01) and dense / 1e9 == pytest.approx(1.80, abs=0.01)
    assert stored / GB == pytest.approx(12.07, abs=0.01)
    assert read / GB == pytest.approx(2.57, abs=0.01)
    text = next(st.text for st in evaluate(_scenario(GPT_OSS, MXFP4)).steps if st.label == "Weights")
    assert "B outside the experts × 8.50 bits" in text and "2.57 GB read per token" in text
    assert "less the input embedding table, 201,088 × 2,880 = 0.579 B params" in text


def test_a_dense_model_is_all_at_the_formats_own_bits() -> None:
    llama = to_model(CAT.models["llama-3.1-8b"])
    inp = build_inputs(_scenario(llama, MXFP4))
    assert float(inp.dense_bytes) == pytest.approx(llama.total_params_b * 1e9 * 4.25 / 8)
    assert float(inp.expert_bytes) == 0.0


def test_the_broadcast_grid_agrees_with_one_scenario() -> None:
    """The recommendation and comparison grids count the two precisions the same way."""
    llama = to_model(CAT.models["llama-3.1-8b"])
    grid = solve_grid(_scenario(GPT_OSS, MXFP4), [GPT_OSS, llama], [MXFP4, to_quant(CAT.quants["q4_k_m"])])
    for i, model in enumerate((GPT_OSS, llama)):
        for j, quant in enumerate((MXFP4, to_quant(CAT.quants["q4_k_m"]))):
            one = evaluate(_scenario(model, quant), explain=False)
            assert grid.decode[i, j] == pytest.approx(one.decode_tok_s, rel=1e-9)
    assert np.all(grid.fits)


def test_validation_rows_keep_the_files_printed_average() -> None:
    """A row prints the whole file's average bits (4.63 for gpt-oss-20b MXFP4): the experts get the bits
    that, with Q8_0 outside them, store exactly that many bytes."""
    cases = [c for c in load_dataset(CAT).cases if c.row.quant == "mxfp4" and c.row.bits_per_weight]
    assert cases
    for c in cases:
        dense, experts, _ = split_params(c.scenario.model)
        q = c.scenario.quant
        assert q.dense_bits_per_weight == 8.5
        stored_bits = dense * 8.5 + experts * q.bits_per_weight
        assert stored_bits == pytest.approx(c.row.bits_per_weight * (dense + experts), rel=1e-9)
        assert q.bits_per_weight < c.row.bits_per_weight


def test_unpacking_counts_each_part_at_its_own_bytes() -> None:
    """gpt-oss-20b reads 3.61 B weights a token (the card's active count, which leaves the input table
    out): that many are unpacked, whatever their two precisions."""
    from advisor.core.roofline import solve

    out = solve(build_inputs(_scenario(GPT_OSS, MXFP4)))
    assert float(out.unpacked_weights) == pytest.approx(GPT_OSS.active_b * 1e9 - 201_088 * 2_880, rel=1e-6)
    assert float(out.unpacked_weights) == pytest.approx(3.61e9, rel=1e-3)
    llama = to_model(CAT.models["llama-3.1-8b"])
    unpacked = float(solve(build_inputs(_scenario(llama, MXFP4))).unpacked_weights)
    assert unpacked == pytest.approx(8.03e9 - 128_256 * 4_096, rel=1e-3)
    f16 = Quant(bits_per_weight=16.0)
    assert float(solve(build_inputs(_scenario(llama, f16))).unpacked_weights) == 0.0  # nothing to unpack
