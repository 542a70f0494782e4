"""The host bandwidth test: a positive figure, bounded time, progress, cancel."""

from __future__ import annotations

import time

import pytest

from advisor.measure.bandwidth import BandwidthError, default_size, measure_bandwidth


def test_quick_run_returns_a_positive_figure() -> None:
    seen: list[float] = []
    start = time.perf_counter()
    r = measure_bandwidth(0.2, 2**20, progress=seen.append)
    assert time.perf_counter() - start < 2.0
    assert r.gbps > 0 and r.copy_gbps > 0 and r.read_gbps > 0
    assert r.gbps == max(r.copy_gbps, r.read_gbps)
    assert r.passes >= 2 and r.size_bytes == 2**20 and not r.cancelled
    assert seen and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert "GB/s" in r.summary()


def test_cancel_stops_after_the_current_pass() -> None:
    calls = iter([False, False, True])
    r = measure_bandwidth(30.0, 2**20, cancelled=lambda: next(calls))
    assert r.cancelled and r.passes == 2 and r.gbps > 0


def test_time_budget_is_kept_with_a_fake_clock() -> None:
    t = iter(float(k) for k in range(1000))  # every clock read advances one "second"
    r = measure_bandwidth(5.0, 2**16, clock=lambda: next(t))
    assert r.passes == 2 and r.seconds < 15


@pytest.mark.parametrize("seconds, size", [(0, 2**20), (61, 2**20), (1, 10)])
def test_bad_arguments(seconds: float, size: int) -> None:
    with pytest.raises(BandwidthError):
        measure_bandwidth(seconds, size)


def test_default_size() -> None:
    assert default_size(None) == 256 * 2**20
    assert default_size(64 * 2**30) == 256 * 2**20
    assert default_size(1 * 2**30) == 2**30 // 8
