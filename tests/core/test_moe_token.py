"""The fixed time per step of a mixture-of-experts model under llama.cpp: moe_token × t₀."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION, FLAT
from advisor.core.inputs import build_inputs
from advisor.core.roofline import solve
from advisor.core.shape import fixed_time_scale
from advisor.core.terms import Engine
from advisor.validation.data import load_dataset
from advisor.validation.fit_params import backend_of, decode_params
from tests.fitted_ranges import MOE_TOKEN, within


@pytest.fixture(scope="module")
def cases():  # type: ignore[no-untyped-def]
    return load_dataset(shipped_catalog()).cases


def _t0_ms(case) -> float:  # type: ignore[no-untyped-def]
    """t₀ as the inputs carry it: a 32-layer model's (its class's, or the discrete one's for CUDA on unified
    memory), on one device's share of the fixed time."""
    return CALIBRATION.token_ms(case.hw_class, case.engine, backend_of(case)) / case.scenario.hardware.speedup


def _layers(case) -> float:  # type: ignore[no-untyped-def]
    return fixed_time_scale(case.scenario.model)


def test_committed_value() -> None:
    # fitted on the training rows: an MoE step pays more fixed time than a dense model's
    assert within(CALIBRATION.moe_token, MOE_TOKEN)
    assert CALIBRATION.moe_factor(Engine.LLAMA_CPP, True) == CALIBRATION.moe_token
    assert CALIBRATION.moe_factor(Engine.LLAMA_CPP, False) == 1.0
    assert CALIBRATION.moe_factor(Engine.MLX, True) == 1.0  # MLX brings its own kernels
    assert FLAT.moe_token == 1.0


def test_moe_rows_get_the_factor_and_dense_rows_do_not(cases) -> None:  # type: ignore[no-untyped-def]
    moe = next(c for c in cases if c.moe and c.engine is Engine.LLAMA_CPP and c.test == "tg")
    dense = next(c for c in cases if not c.moe and c.engine is Engine.LLAMA_CPP and c.test == "tg")
    # the inputs carry t₀ and the factor; the solve applies the factor where the model has experts
    inp = build_inputs(moe.scenario)
    assert float(inp.token_time) * 1e3 == pytest.approx(_t0_ms(moe))
    assert float(inp.moe_token_factor) == CALIBRATION.moe_token
    assert float(solve(inp).t_token) * 1e3 == pytest.approx(CALIBRATION.moe_token * _t0_ms(moe) * _layers(moe))
    assert float(solve(build_inputs(dense.scenario)).t_token) * 1e3 == pytest.approx(_t0_ms(dense) * _layers(dense))
    # a user-given η is plain η × ceiling: no fixed time at all
    plain = moe.scenario.model_copy(update={"workload": moe.scenario.workload.model_copy(update={"efficiency": 0.7})})
    assert float(build_inputs(plain).token_time) == 0.0


def test_fit_frees_the_factor_only_with_enough_moe_rows(cases) -> None:  # type: ignore[no-untyped-def]
    train = [c for c in cases if not c.held_out]
    assert any(p.name == "moe_token" for p in decode_params(train, FLAT))
    dense_only = [c for c in train if not c.moe]
    assert not any(p.name == "moe_token" for p in decode_params(dense_only, FLAT))


def test_the_arithmetic_names_the_factor(cases) -> None:  # type: ignore[no-untyped-def]
    from advisor.core.evaluate import evaluate

    moe = next(c for c in cases if c.moe and c.engine is Engine.LLAMA_CPP and c.test == "tg")
    text = next(st.text for st in evaluate(moe.scenario).steps if st.label == "Decode realistic")
    assert f"× {CALIBRATION.moe_token:.3g} for a mixture of experts" in text
    dense = next(c for c in cases if not c.moe and c.engine is Engine.LLAMA_CPP and c.test == "tg")
    assert "mixture of experts" not in next(
        st.text for st in evaluate(dense.scenario).steps if st.label == "Decode realistic"
    )


def test_a_dense_draft_model_pays_the_dense_fixed_time(cases) -> None:  # type: ignore[no-untyped-def]
    """Speculative decoding on an MoE target: the target's verify pass pays m × t₀, each draft step t₀."""
    from advisor.core.scenario import Speculative

    moe = next(c for c in cases if c.moe and c.engine is Engine.LLAMA_CPP and c.test == "tg" and c.kind == "depth 0")
    spec = Speculative(enabled=True, draft_params_b=0.5, draft_length=4, acceptance=0.7)
    s = moe.scenario.model_copy(update={"workload": moe.scenario.workload.model_copy(update={"speculative": spec})})
    inp = build_inputs(s)
    out = solve(inp)
    t0 = float(inp.token_time)
    k, alpha = 4, 0.7
    t_draft = float(inp.draft_bytes) / (float(inp.fast_bw) * float(inp.fast_eta)) + t0
    per_pass = (1 - alpha ** (k + 1)) / (1 - alpha)
    # the verify pass: one memory-bound step + m × t₀ (k + 1 tokens of compute stay below the memory time)
    step_plain = 1 / float(out.decode_plain)
    assert float(out.t_token) == pytest.approx(CALIBRATION.moe_token * t0 * _layers(moe))
    assert float(out.decode) == pytest.approx(per_pass / (k * t_draft + step_plain), rel=1e-6)
