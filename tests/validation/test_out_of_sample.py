"""Every row out of sample, and the resampled interval of a 90th percentile."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.validation import cv
from advisor.validation.data import DataSet, load_dataset
from advisor.validation.out_of_sample import held_out_interval, p90_interval, pooled, pooled_text
from advisor.validation.predict import predict
from advisor.validation.stats import ape


def _case(machine: str) -> Any:
    row = SimpleNamespace(
        hardware_name=machine, gpus=1, model_name="m", quant="q4_k_m", bits_per_weight=None, engine="llama.cpp"
    )
    return SimpleNamespace(row=row)


@pytest.fixture(scope="module")
def data() -> DataSet:
    return load_dataset(shipped_catalog())


def test_interval_collapses_when_every_row_misses_alike() -> None:
    cases = [_case(f"gpu {i}") for i in range(12)]
    assert p90_interval(cases, np.full(12, 10.0), draws=200) == pytest.approx((10.0, 10.0))


def test_interval_spans_one_configuration_that_misses_in_all_its_rows() -> None:
    """Nine machines off by 5 % and one off by 50 % in four rows: whether the p90 reads 5 or 50
    depends on whether a resample draws that one configuration (it misses from about a third)."""
    cases = [_case(f"gpu {i}") for i in range(9)] + [_case("slow")] * 4
    errors = np.array([5.0] * 9 + [50.0] * 4)
    lo, hi = p90_interval(cases, errors, draws=500)
    assert (lo, hi) == pytest.approx((5.0, 50.0))
    assert p90_interval(cases, errors, draws=500) == (lo, hi)  # the same draws every run


def test_pooled_counts_every_usable_row_once_and_keeps_held_out_errors(data: DataSet) -> None:
    train = cv.training_cases(data.cases)
    perfect = np.array([c.measured for c in train])  # a made-up cross-validation that hits every row
    fake = cv.CVResult(
        k=5,
        rows=len(train),
        configs=0,
        seeds=(cv.SeedResult(seed=0, fold_rows=(), fold_configs=(), predicted=perfect, stats={}),),
    )
    (result,) = pooled(data.cases, fake)
    depth0 = [c for c in data.cases if c.test == "tg" and c.kind == "depth 0"]
    assert result.stats["decode_depth0"].n == len(depth0)
    held = [c for c in depth0 if c.held_out]
    held_err = ape(predict(held), np.array([c.measured for c in held]))
    # the pooled rows are the held-out errors plus zeros, so the pooled median sits at or below theirs
    pooled_err = np.concatenate([held_err, np.zeros(len(depth0) - len(held))])
    assert result.stats["decode_depth0"].median == pytest.approx(float(np.median(pooled_err)))
    assert result.stats["decode_depth0"].p90 == pytest.approx(float(np.percentile(pooled_err, 90)))
    lo, hi = held_out_interval(data.cases)
    assert lo <= float(np.percentile(held_err, 90)) <= hi
    text = pooled_text([result], (lo, hi))
    assert "held-out rows alone" in text and f"{len(depth0):5d}" in text


@pytest.mark.slow
def test_out_of_sample_predictions_leave_every_row_out(data: DataSet) -> None:
    """Held-out rows come from the given calibration, training rows from fits that never saw their fold:
    so a training row's prediction differs from the committed fit's, a held-out row's does not."""
    from advisor.core.calibration import CALIBRATION
    from advisor.validation.out_of_sample import predictions

    cases = list(data.cases)
    oos = predictions(cases, CALIBRATION)
    assert not np.isnan(oos).any()
    held = np.array([c.held_out for c in cases])
    committed = predict(cases)
    assert np.allclose(oos[held], committed[held])
    assert not np.allclose(oos[~held], committed[~held])
