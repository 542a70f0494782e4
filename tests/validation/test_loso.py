"""Leave-one-source-out: what a source is, that no fit sees the rows it predicts, and the simple formula."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from advisor.catalog.accuracy import shipped_source_validation
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION, Calibration
from advisor.validation.cases import Case
from advisor.validation.data import load_dataset
from advisor.validation.loso import leave_one_source_out, loso_dict, merge, simple_formula, source_folds
from advisor.validation.sources import source_of


@pytest.mark.parametrize(
    ("url", "source"),
    [
        pytest.param(
            "https://github.com/ggml-org/llama.cpp/discussions/4167#discussioncomment-1", "llama.cpp#4167", id="thread"
        ),
        pytest.param("https://github.com/ggml-org/llama.cpp/pull/14001", "llama.cpp#14001", id="pull"),
        pytest.param(
            "https://github.com/ggml-org/llama.cpp/blob/4c7e98/benches/dgx-spark.md", "llama.cpp benches", id="benches"
        ),
        pytest.param(
            "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference/blob/00db/README.md",
            "xiongjiedai",
            id="author repo",
        ),
        pytest.param("https://github.com/geerlingguy/ai-benchmarks/issues/46", "geerlingguy", id="author's issues"),
        pytest.param("https://github.com/AlexsJones/llmfit/pull/778", "llmfit#778", id="community pull"),
        pytest.param(
            "https://github.com/ThomasBaruzier/ikawrakow-ik-llama.cpp-archive/blob/590bad27/pull_requests/"
            "351%20-%20CPU%20FA%20improvements.md",
            "ik_llama.cpp#351",
            id="archived thread",
        ),
        pytest.param(
            "https://github.com/ThomasBaruzier/ikawrakow-ik-llama.cpp-archive/blob/590bad27/README.md",
            "thomasbaruzier",
            id="archive's own file",
        ),
        pytest.param("https://www.example.org/post/1", "example.org", id="site"),
    ],
)
def test_source_of(url: str, source: str) -> None:
    assert source_of(url) == source


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return list(load_dataset(shipped_catalog()).cases)


@dataclass
class _Fitted:
    calibration: Calibration


def test_every_row_is_predicted_by_a_fit_that_never_saw_its_source(cases: list[Case]) -> None:
    seen: list[set[str]] = []

    def fitter(train_cases: Sequence[Case], train: Any = None) -> _Fitted:
        seen.append({source_of(c.row.source_url) for c in train_cases})
        return _Fitted(CALIBRATION)

    res = leave_one_source_out(cases, fitter=fitter)  # type: ignore[arg-type]
    sources = {source_of(c.row.source_url) for c in cases}
    assert len(seen) == len(sources) >= 10
    for fold in seen:
        assert len(sources - fold) == 1  # exactly one source left out of each fit
    assert np.isfinite(res.predicted).all() and (res.predicted > 0).all()
    assert (res.low <= res.predicted).all() and (res.predicted <= res.high).all()

    one = sorted(sources)[0]
    fold = source_folds(cases)[one]
    part = leave_one_source_out(
        cases,
        fitter=lambda c, train=None: _Fitted(CALIBRATION),  # type: ignore[arg-type]
        only=fold,
    )
    mine = np.array([s == one for s in part.sources])
    assert np.isfinite(part.predicted[mine]).all() and np.isnan(part.predicted[~mine]).all()
    assert np.allclose(merge([part]).predicted[mine], res.predicted[mine])

    d = loso_dict(cases, res)
    groups = {(r["test"], r["group"]) for r in d["kinds"]}
    assert {("tg", "depth 0"), ("tg", "MoE"), ("tg", "multi-GPU"), ("pp", "all")} <= groups
    assert d["sources"] == len(sources) and {v["vendor"] for v in d["vendors"]} >= {"nvidia", "apple", "amd"}


def test_folds_of_whole_sources_are_balanced(cases: list[Case]) -> None:
    folds = source_folds(cases, 8)
    assert set(folds.values()) == set(range(8))
    rows = np.bincount([folds[source_of(c.row.source_url)] for c in cases], minlength=8)
    largest = max(np.unique([source_of(c.row.source_url) for c in cases], return_counts=True)[1])
    assert rows.max() - rows.min() <= largest  # a fold differs from another by at most one whole source
    with pytest.raises(ValueError):
        source_folds(cases, 1)


def test_the_simple_formula_recovers_its_own_constants() -> None:
    """Rows made by 1 / (1 / (0.8 × ceiling) + 4 ms) give back that formula."""

    class Row:
        def __init__(self, test: str, tok_s: float) -> None:
            self.test, self.measured = test, tok_s

    ceilings = np.array([20.0, 50.0, 100.0, 200.0, 400.0])
    measured = 1 / (1 / (0.8 * ceilings) + 0.004)
    rows = [Row("tg", float(m)) for m in measured]
    got = simple_formula(range(len(rows)), rows, (ceilings, np.zeros(5)))  # type: ignore[arg-type]
    assert np.allclose(got, measured, rtol=1e-9)


def test_the_shipped_figures_are_of_todays_data(cases: list[Case]) -> None:
    """catalogs/published/loso.json (benchmarks/loso.py) covers the rows and sources the data holds now, and
    every kind it reports; rerun benchmarks/loso.py after changing the data."""
    sv, why_not = shipped_source_validation()
    assert sv is not None, why_not
    assert sv.rows == len(cases)
    assert sv.sources == len({source_of(c.row.source_url) for c in cases})
    kinds = {(k.test, k.group): k for k in sv.kinds}
    assert {("tg", "all"), ("tg", "depth 0"), ("pp", "all")} <= set(kinds)
    assert kinds[("tg", "all")].n == sum(1 for c in cases if c.test == "tg")
    for k in sv.kinds:
        assert k.median_pct is not None and k.p90_pct is not None and 0 <= k.median_pct <= k.p90_pct
