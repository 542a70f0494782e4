"""Build eras: older llama.cpp builds paid more fixed time per token; the app predicts a current build."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION, FLAT
from advisor.core.efficiency import Engine
from advisor.core.inputs import build_inputs
from advisor.core.terms import CURRENT_ERA, BuildEra, build_era
from advisor.validation.data import load_dataset
from advisor.validation.predict import era_factors, predict
from tests.fitted_ranges import ERA_TOKEN, within


def test_build_era_of_a_month() -> None:
    assert build_era("") is None
    assert build_era("2023-12") is BuildEra.BEFORE_2024_05
    assert build_era("2024-04") is BuildEra.BEFORE_2024_05
    assert build_era("2024-05") is BuildEra.MAY_TO_DEC_2024  # CUDA graphs merged 2024-05-08
    assert build_era("2024-12") is BuildEra.MAY_TO_DEC_2024
    assert build_era("2025-01") is BuildEra.FROM_2025 is CURRENT_ERA
    assert build_era("2026-04") is BuildEra.FROM_2025


def test_committed_era_factors() -> None:
    # fitted on the training rows: builds before May 2024 and the May-Dec 2024 builds (most of the May 2024
    # table) paid more fixed time per token than a current build; the current era is the reference
    assert set(CALIBRATION.era_token) == {BuildEra.BEFORE_2024_05, BuildEra.MAY_TO_DEC_2024}
    assert all(within(f, ERA_TOKEN) for f in CALIBRATION.era_token.values())
    assert (
        CALIBRATION.token_factor(Engine.LLAMA_CPP, BuildEra.BEFORE_2024_05)
        == CALIBRATION.era_token[BuildEra.BEFORE_2024_05]
    )
    assert CALIBRATION.token_factor(Engine.LLAMA_CPP, BuildEra.FROM_2025) == 1.0
    assert CALIBRATION.token_factor(Engine.LLAMA_CPP, None) == 1.0  # undated: counted as current
    assert CALIBRATION.token_factor(Engine.MLX, BuildEra.BEFORE_2024_05) == 1.0  # llama.cpp builds only
    assert FLAT.era_token == {}


def test_app_predicts_a_current_build_and_validation_the_rows_own() -> None:
    data = load_dataset(shipped_catalog())
    may = next(
        c
        for c in data.cases
        if c.row.build_date == "2024-05" and c.test == "tg" and c.engine is Engine.LLAMA_CPP and c.kind == "depth 0"
    )
    t0 = CALIBRATION.get(may.hw_class, may.engine).decode.token_ms
    # the app's inputs carry the current era's t₀ ...
    assert float(build_inputs(may.scenario).token_time) * 1000 == pytest.approx(t0 / may.scenario.hardware.speedup)
    # ... the validation gives the May 2024 row its era's factor × t₀, so it predicts the row slower than the
    # app would (as much slower as the factor is above 1)
    factor = CALIBRATION.era_token[BuildEra.MAY_TO_DEC_2024]
    assert float(era_factors([may])[0]) == factor
    app = float(predict([may], CALIBRATION, token_time=build_inputs(may.scenario).token_time)[0])
    assert (float(predict([may])[0]) < app) == (factor > 1.0)
