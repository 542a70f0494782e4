"""Build eras: older llama.cpp builds paid more fixed time per token; the app predicts a current build."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION, FLAT
from advisor.core.efficiency import Engine
from advisor.core.inputs import build_inputs
from advisor.core.terms import CURRENT_ERA, Backend, BuildEra, build_era
from advisor.validation.data import load_dataset
from advisor.validation.fit_params import backend_of
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
    # fitted on the training rows, per build era and backend, where at least two sources ran that backend's
    # builds of the era: older builds paid more fixed time per token than a current build, the reference
    assert CALIBRATION.era_token
    assert all(era is not CURRENT_ERA for era, _ in CALIBRATION.era_token)
    assert all(within(f, ERA_TOKEN) for f in CALIBRATION.era_token.values())
    (era, backend), factor = next(iter(CALIBRATION.era_token.items()))
    assert CALIBRATION.token_factor(Engine.LLAMA_CPP, era, backend) == factor
    assert CALIBRATION.token_factor(Engine.LLAMA_CPP, BuildEra.FROM_2025, backend) == 1.0
    assert CALIBRATION.token_factor(Engine.LLAMA_CPP, None, backend) == 1.0  # undated: counted as current
    assert CALIBRATION.token_factor(Engine.LLAMA_CPP, era, None) == 1.0
    assert CALIBRATION.token_factor(Engine.MLX, era, backend) == 1.0  # llama.cpp builds only
    # a backend whose builds of an era no two sources ran keeps the current t₀
    missing = [b for b in Backend if (era, b) not in CALIBRATION.era_token]
    assert missing and all(CALIBRATION.token_factor(Engine.LLAMA_CPP, era, b) == 1.0 for b in missing)
    assert FLAT.era_token == {}


def test_app_predicts_a_current_build_and_validation_the_rows_own() -> None:
    data = load_dataset(shipped_catalog())
    may = next(
        c
        for c in data.cases
        if c.test == "tg"
        and c.engine is Engine.LLAMA_CPP
        and c.kind == "depth 0"
        and c.era is not None
        and (c.era, backend_of(c)) in CALIBRATION.era_token
    )
    t0 = CALIBRATION.get(may.hw_class, may.engine).decode.token_ms
    # the app's inputs carry the current era's t₀ ...
    assert float(build_inputs(may.scenario).token_time) * 1000 == pytest.approx(t0 / may.scenario.hardware.speedup)
    # ... the validation gives the older build's row its era's factor × t₀, so it predicts the row slower
    # than the app would (as much slower as the factor is above 1)
    factor = CALIBRATION.era_token[(may.era, backend_of(may))]
    assert float(era_factors([may])[0]) == factor
    app = float(predict([may], CALIBRATION, token_time=build_inputs(may.scenario).token_time)[0])
    assert (float(predict([may])[0]) < app) == (factor > 1.0)
