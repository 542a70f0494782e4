"""Bands from by-source residuals: the spread a source the fit never saw meets.

A group's band (10th to 90th percentile of measured ÷ predicted decode) drawn from the fit's own rows
is too narrow for a new machine, build or method: the fit has already bent toward those rows. Drawn
from predictions each made by a fit without the row's source (leave-one-source-out), it is the band a
person's own, unseen setup falls in. The app's bands (`out_of_sample.shipped_fit`) and the band-held
figure of the cross-validation (`loso.loso_dict`) both come from here."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from advisor.validation.cases import Case
from advisor.validation.fit import BAND_MIN_ROWS, ratio_band
from advisor.validation.fit_params import MIN_ROWS


def pooled_band(
    cases: Sequence[Case], ratio: NDArray[np.float64], pool: NDArray[np.bool_], c: Case
) -> tuple[float, float] | None:
    """The band for case `c` from the decode rows in `pool`: its class and engine's, else its class's."""
    tg = pool & np.array([d.test == "tg" for d in cases]) & np.isfinite(ratio)
    same_class = tg & np.array([d.hw_class is c.hw_class for d in cases])
    same_group = same_class & np.array([d.engine is c.engine for d in cases])
    if same_group.sum() >= BAND_MIN_ROWS:
        return ratio_band(ratio[same_group])
    if same_class.sum() >= MIN_ROWS:
        return ratio_band(ratio[same_class])
    return None


def by_source_bands(
    cases: Sequence[Case], sources: Sequence[str], predicted: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per case, the band (as multiples of its prediction) from the by-source residuals of every other
    source's rows; NaN where no group or class has enough of them."""
    meas = np.array([c.measured for c in cases], dtype=float)
    ratio = meas / np.where(predicted > 0, predicted, np.nan)
    src = np.array(sources)
    low, high = np.full(len(cases), np.nan), np.full(len(cases), np.nan)
    cache: dict[tuple[str, object, object], tuple[float, float] | None] = {}
    for i, c in enumerate(cases):
        key = (str(src[i]), c.hw_class, c.engine)
        if key not in cache:
            cache[key] = pooled_band(cases, ratio, src != src[i], c)
        if (band := cache[key]) is not None:
            low[i], high[i] = band
    return low, high
