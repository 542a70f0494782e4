"""Bands from by-source residuals: a source's band is drawn from the other sources' rows only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.validation.data import load_dataset
from advisor.validation.predict import predict
from advisor.validation.source_bands import by_source_bands, ratio_band
from advisor.validation.sources import source_of

CASES = load_dataset(shipped_catalog()).cases
SOURCES = tuple(source_of(c.row.source_url) for c in CASES)


def test_a_band_spans_its_percentiles_and_always_holds_the_prediction() -> None:
    assert ratio_band(np.array([1.1, 1.2, 1.3])) == (1.0, max(1.0, float(np.percentile([1.1, 1.2, 1.3], 90))))
    assert ratio_band(np.array([0.5, 0.6, 0.7]))[1] == 1.0
    predicted = predict(CASES, CALIBRATION)
    lo, hi = by_source_bands(CASES, SOURCES, predicted)
    known = np.isfinite(lo)
    assert known.mean() > 0.9  # nearly every row's group or class has enough other rows
    assert np.all(lo[known] <= 1.0) and np.all(hi[known] >= 1.0)


def test_a_source_wildly_off_does_not_widen_its_own_band() -> None:
    predicted = predict(CASES, CALIBRATION)
    lo, hi = by_source_bands(CASES, SOURCES, predicted)
    biggest = max(set(SOURCES), key=SOURCES.count)
    mine = np.array([s == biggest for s in SOURCES])
    # the same rows measured ten times faster: only the other sources' bands may move
    tampered = [
        replace(c, row=replace(c.row, tok_s=c.row.tok_s * 10)) if m else c for c, m in zip(CASES, mine, strict=True)
    ]
    lo2, hi2 = by_source_bands(tampered, SOURCES, predicted)
    assert np.array_equal(lo[mine], lo2[mine], equal_nan=True) and np.array_equal(hi[mine], hi2[mine], equal_nan=True)
    assert np.nanmax(hi2[~mine]) > np.nanmax(hi[~mine])  # and the others do see it
