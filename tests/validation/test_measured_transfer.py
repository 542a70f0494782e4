"""Your own calibration keeps the fitted model: calibrated on one model's published runs, a machine's
other models are predicted about as well as by the fitted model alone (leave one model out), while
the old replacement by η × ceiling moved them far away."""

from __future__ import annotations

import statistics
from collections import defaultdict
from functools import lru_cache

import pytest

from advisor.catalog.loader import load_catalog
from advisor.core.inputs import build_inputs
from advisor.core.measured import SPREAD_FLOOR, MeasuredTerms
from advisor.core.measured_fit import calibrate, measured_run, uncalibrated, with_terms
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario
from advisor.core.terms import Engine
from advisor.validation.cases import Case
from advisor.validation.data import load_dataset

MACHINES = ("rtx-4090", "m2-ultra-76c-192gb", "dgx-spark")
TOLERANCE = 0.015  # a point and a half of median error


def _decode(s: Scenario) -> float:
    return float(solve(build_inputs(s)).decode)


@lru_cache(maxsize=1)
def _groups() -> dict[tuple[str, str], dict[tuple[str, str], list[Case]]]:
    """Single-stream llama.cpp decode runs held in fast memory, by (machine, source), then by model."""
    out: dict[tuple[str, str], dict[tuple[str, str], list[Case]]] = defaultdict(lambda: defaultdict(list))
    for c in load_dataset(load_catalog()).cases:
        if (
            c.test != "tg"
            or c.engine is not Engine.LLAMA_CPP
            or c.aggregate
            or c.kind not in ("depth 0", "depth sweep")
        ):
            continue
        if c.row.hardware_id in MACHINES and c.row.batch in (None, 1):
            out[(c.row.hardware_id, c.row.source_url)][(c.row.model_name, c.row.quant)].append(c)
    return {k: dict(v) for k, v in out.items() if len(v) >= 2}


@lru_cache(maxsize=1)
def _errors() -> dict[str, dict[str, list[list[float]]]]:
    """|measured ÷ predicted − 1| on each machine's other models from the same source, one list per
    calibration (a model's runs): fitted model, calibrated, old plain η."""
    errs: dict[str, dict[str, list[list[float]]]] = defaultdict(lambda: defaultdict(list))
    for (hw, _src), models in _groups().items():
        for m, rows in models.items():
            runs = [r for c in rows if (r := measured_run(c.scenario, "decode", c.measured))]
            if not runs:
                continue
            terms = calibrate(rows[0].scenario, runs, [])
            # the old way: η = mean of measured ÷ ceiling, replacing every fitted term
            ceilings = [_decode(_plain(c.scenario, 1.0)) for c in rows]
            old_eta = min(statistics.fmean(c.measured / ce for c, ce in zip(rows, ceilings, strict=True)), 1.0)
            got: dict[str, list[float]] = defaultdict(list)
            for other, cases in models.items():
                if other == m:
                    continue
                for c in cases:
                    for name, s in (
                        ("fitted", uncalibrated(c.scenario)),
                        ("calibrated", with_terms(c.scenario, terms)),
                        ("plain eta", _plain(c.scenario, old_eta)),
                    ):
                        got[name].append(abs(c.measured / _decode(s) - 1))
            for name, values in got.items():
                errs[hw][name].append(values)
    return errs


def _plain(s: Scenario, eta: float) -> Scenario:
    data = s.model_dump()
    data["workload"]["efficiency"] = eta
    return Scenario.model_validate(data)


@pytest.mark.parametrize("hw", MACHINES)
def test_calibrating_on_one_model_does_not_worsen_the_machines_other_models(hw: str) -> None:
    e = _errors()[hw]
    assert sum(map(len, e["fitted"])) >= 20  # several models, several runs each
    # paired per calibration: the median error on the other models with and without it. A pooled median
    # would sit between sources whose errors differ by several points and jump with either.
    change = [statistics.median(c) - statistics.median(f) for f, c in zip(e["fitted"], e["calibrated"], strict=True)]
    assert statistics.median(change) <= TOLERANCE / 2, (hw, change)
    assert max(change) <= 4 * TOLERANCE, (hw, change)  # no single calibration moves them far
    pooled = {k: statistics.fmean(x for v in e[k] for x in v) for k in ("fitted", "calibrated")}
    assert pooled["calibrated"] <= pooled["fitted"] + TOLERANCE, (hw, pooled)


def test_the_old_replacement_by_plain_eta_moved_other_models_further() -> None:
    pooled = {k: [x for hw in MACHINES for v in _errors()[hw][k] for x in v] for k in ("calibrated", "plain eta")}
    assert statistics.median(pooled["calibrated"]) < statistics.median(pooled["plain eta"])


def test_the_measured_model_itself_gets_the_whole_factor_and_lands_closer() -> None:
    for models in _groups().values():
        for rows in models.values():
            runs = [r for c in rows if (r := measured_run(c.scenario, "decode", c.measured))]
            if len(runs) < 3:
                continue
            terms = calibrate(rows[0].scenario, runs, [])
            # the fit minimizes the squared relative error of the time per token
            before = sum((c.measured / _decode(uncalibrated(c.scenario)) - 1) ** 2 for c in rows)
            after = sum((c.measured / _decode(with_terms(c.scenario, terms)) - 1) ** 2 for c in rows)
            assert after <= before * (1 + 1e-6)


def test_band_narrows_with_runs_for_the_measured_model_only() -> None:
    s = next(iter(next(iter(_groups().values())).values()))[0].scenario
    key = f"{s.model.name} @ {s.quant.name}"
    shipped = (0.8, 1.2)
    widths = []
    for n in (1, 2, 5, 20):
        lo, hi = MeasuredTerms(decode_runs=n, decode_spread=0.01, model=key).band(shipped, key)
        widths.append(hi / lo)
        assert 0.8 <= lo < 1 < hi <= 1.2
    assert widths == sorted(widths, reverse=True) and widths[0] > widths[-1]
    assert widths[-1] >= (1 + SPREAD_FLOOR) ** 2 * 0.99  # never narrower than one model's spread
    assert MeasuredTerms(decode_runs=20, model=key).band(shipped, "another @ Q4") == shipped
