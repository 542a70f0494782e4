"""The calibration's factor fit (advisor.core.measured.fit_factor): a factor and, with runs at several
sizes, a change of the fixed time; at the datasheet cap the fixed time is refitted for the capped factor."""

from __future__ import annotations

import pytest

from advisor.core.measured import Run, fit_factor


def _runs(factor: float, extra_s: float) -> list[Run]:
    # streaming times of models of several sizes, 2 ms of fixed time each
    return [Run(measured_s=s / factor + 0.002 + extra_s, scaled_s=s, fixed_s=0.002) for s in (0.004, 0.01, 0.02, 0.03)]


def test_an_uncapped_fit_recovers_factor_and_fixed_time() -> None:
    fit = fit_factor(_runs(1.2, 0.001), max_factor=2.0)
    assert fit.factor == pytest.approx(1.2, rel=1e-6) and fit.extra_s == pytest.approx(0.001, abs=1e-9)


def test_a_capped_factor_gets_the_fixed_time_that_fits_at_the_cap() -> None:
    runs = _runs(1.3, 0.001)
    fit = fit_factor(runs, max_factor=1.2)
    assert fit.factor == pytest.approx(1.2) and fit.raw_factor == pytest.approx(1.3)
    # the capped factor leaves every run slower than measured, so less fixed time than the joint fit's
    assert 0.0 <= fit.extra_s < 0.001

    def sse(extra: float) -> float:
        return sum((r.predicted_s(1.2, extra) / r.measured_s - 1) ** 2 for r in runs)

    assert sse(fit.extra_s) <= min(sse(fit.extra_s - 1e-4), sse(fit.extra_s + 1e-4))
