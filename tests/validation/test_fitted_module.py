"""advisor/core/fitted.py is generated: the refit script's text of the committed calibration is the file,
byte for byte, and calibration.py holds no fitted values of its own."""

from __future__ import annotations

from types import ModuleType

import pytest

from advisor.core import fitted
from advisor.core.calibration import CALIBRATION, FLAT
from tests.scripts import ROOT, load

FITTED_PY = ROOT / "advisor" / "core" / "fitted.py"


@pytest.fixture(scope="module")
def validate() -> ModuleType:
    return load(ROOT / "benchmarks" / "validate.py", "validate_script")


def test_the_generator_reproduces_the_committed_module(validate: ModuleType) -> None:
    text = validate.fitted_module_text(CALIBRATION, CALIBRATION.notes)
    assert text == FITTED_PY.read_bytes().decode("utf-8")
    assert validate.FITTED_PY == FITTED_PY


def test_the_module_says_it_is_generated_and_holds_only_the_fitted_names() -> None:
    text = FITTED_PY.read_text(encoding="utf-8")
    assert "benchmarks/validate.py --write" in text.split('"""')[1]
    public = {n for n in vars(fitted) if n.isupper()}
    assert public and all(n.startswith("FITTED_") for n in public)


def test_the_calibration_is_the_flat_defaults_with_the_fitted_groups_on_top() -> None:
    assert CALIBRATION.terms == {**FLAT.terms, **fitted.FITTED_TERMS}
    assert all(t.fitted for t in fitted.FITTED_TERMS.values())
    assert CALIBRATION.notes == fitted.FITTED_NOTES
    assert CALIBRATION.machines == fitted.FITTED_MACHINES and CALIBRATION.generations == fitted.FITTED_GENERATIONS
    assert "FITTED: begin" not in (ROOT / "advisor" / "core" / "calibration.py").read_text(encoding="utf-8")
