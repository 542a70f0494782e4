"""Cross-validation inside the training rows: folds by configuration, held-out rows never touched,
balanced folds, a parseable key=value line, the same numbers on every run, nothing written."""

from __future__ import annotations

from collections import Counter, defaultdict
from types import ModuleType

import numpy as np
import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.validation import cv
from advisor.validation.cases import Case, config_key
from advisor.validation.data import DataSet, load_dataset
from tests.scripts import ROOT, load

WRITTEN = (ROOT / "advisor" / "core" / "fitted.py", ROOT / "catalogs" / "published" / "runs.json")


@pytest.fixture(scope="module")
def data() -> DataSet:
    return load_dataset(shipped_catalog())


@pytest.fixture(scope="module")
def validate() -> ModuleType:
    return load(ROOT / "benchmarks" / "validate.py", "validate_script")


def test_training_cases_leave_out_every_held_out_row(data: DataSet) -> None:
    train = cv.training_cases(data.cases)
    assert train and not any(c.held_out for c in train)
    assert len(train) == sum(not c.held_out for c in data.cases) < len(data.cases)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_folds_keep_configurations_whole_and_balanced(data: DataSet, seed: int) -> None:
    train = cv.training_cases(data.cases)
    k = cv.DEFAULT_K
    folds = cv.assign_folds(train, k, seed)
    assert len(folds) == len(train) and set(folds) == set(range(k))
    where: dict[str, set[int]] = defaultdict(set)
    for c, f in zip(train, folds, strict=True):
        where[config_key(c.row)].add(f)
    assert all(len(fs) == 1 for fs in where.values())  # each configuration in exactly one fold
    # greedy by rows: the fullest and emptiest fold differ by at most one configuration's rows
    sizes = Counter(folds)
    largest_config = max(Counter(config_key(c.row) for c in train).values())
    assert max(sizes.values()) - min(sizes.values()) <= largest_config
    assert min(Counter(f for f in (next(iter(fs)) for fs in where.values())).values()) >= 5
    assert cv.assign_folds(train, k, seed) == folds  # deterministic
    assert cv.assign_folds(list(reversed(train)), k, seed) == list(reversed(folds))  # not order-dependent


def test_seeds_give_different_folds_and_held_out_rows_are_refused(data: DataSet) -> None:
    train = cv.training_cases(data.cases)
    assert cv.assign_folds(train, 5, 0) != cv.assign_folds(train, 5, 1)
    with pytest.raises(ValueError, match="training rows only"):
        cv.assign_folds(list(data.cases), 5, 0)
    with pytest.raises(ValueError, match="k must be"):
        cv.assign_folds(train, 1, 0)


@pytest.mark.slow
def test_cv_command_refits_on_training_folds_only_and_is_repeatable(
    data: DataSet, validate: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fitted: list[list[Case]] = []
    predicted: list[list[Case]] = []
    real_fit, real_predict = cv._fit.fit, cv.predict

    def spy_fit(cases: list[Case], **kw: object) -> object:
        fitted.append(list(cases))
        return real_fit(cases, **kw)

    def spy_predict(cases: list[Case], cal: object) -> np.ndarray:
        predicted.append(list(cases))
        return real_predict(cases, cal)

    monkeypatch.setattr(cv._fit, "fit", spy_fit)
    monkeypatch.setattr(cv, "predict", spy_predict)
    before = [p.read_bytes() for p in WRITTEN]
    outputs = []
    for _ in range(2):
        assert validate.main(["--cv", "2", "--cv-seeds", "1"]) == 0
        outputs.append(capsys.readouterr().out)
    assert [p.read_bytes() for p in WRITTEN] == before  # --cv writes nothing
    assert outputs[0] == outputs[1]  # deterministic

    train_lines = {c.row.line for c in cv.training_cases(data.cases)}  # main() reads the file afresh
    assert len(fitted) == len(predicted) == 4  # 2 folds × 1 seed × 2 runs
    for inside, left_out in zip(fitted, predicted, strict=True):
        assert not any(c.held_out for c in inside + left_out)
        # a fold's fit and its predictions split the training rows and share no configuration
        assert len(inside) + len(left_out) == len(train_lines)
        assert {c.row.line for c in inside} | {c.row.line for c in left_out} == train_lines
        assert not {config_key(c.row) for c in inside} & {config_key(c.row) for c in left_out}

    last = outputs[0].strip().splitlines()[-1]
    values = dict(item.split("=", 1) for item in last.split())
    assert values["cv_k"] == "2" and values["cv_seeds"] == "1"
    for _, _, key in cv.GROUPS:
        med, p90 = float(values[f"cv_{key}_median"]), float(values[f"cv_{key}_p90"])
        assert 0 <= med <= p90 < 1000
    assert float(values["cv_decode_depth0_median"]) < 30  # a refit on half the configurations still works


def test_cv_refuses_write(validate: ModuleType) -> None:
    with pytest.raises(SystemExit):
        validate.main(["--cv", "--write"])
