"""docs/accuracy.md's figures are the ones `benchmarks/validate.py --docs` renders from the committed
constants and the measurements, never typed by hand."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.validation.data import load_dataset
from advisor.validation.docs_block import BEGIN, DOCS_FILE, END, _g, block_in, render, replace_block
from advisor.validation.report import calibration_dict


def test_the_block_in_docs_accuracy_is_what_validate_docs_renders() -> None:
    # Fails after a refit or a data change until `python benchmarks/validate.py --docs` is run.
    catalog = shipped_catalog()
    block = block_in(DOCS_FILE.read_text(encoding="utf-8"))
    assert block is not None, f"{DOCS_FILE} has no {BEGIN} … {END} block"
    assert block == render(load_dataset(catalog), catalog)


def test_the_block_is_replaced_and_the_text_around_it_kept() -> None:
    page = f"# Title\n\nBefore.\n\n{BEGIN}\nold figures\n{END}\n\nAfter.\n"
    new = f"{BEGIN}\nnew figures\n{END}"
    assert replace_block(page, new) == f"# Title\n\nBefore.\n\n{new}\n\nAfter.\n"
    assert block_in(replace_block(page, new)) == new
    with pytest.raises(ValueError):
        replace_block("# A page without the markers\n", new)


def test_the_shared_terms_the_docs_list_are_the_committed_ones() -> None:
    """Every shared constant the block names comes from the calibration, not a default standing in for it."""
    cal = calibration_dict(CALIBRATION)
    assert cal["sycl_plain_eta"] == CALIBRATION.sycl_plain_eta != 1.0
    assert cal["sycl_f32_eta"] == CALIBRATION.sycl_f32_eta
    block = block_in(DOCS_FILE.read_text(encoding="utf-8")) or ""
    assert f"s_SYCL = {_g(CALIBRATION.sycl_plain_eta)}:" in block
    assert f"η_f32 = {_g(CALIBRATION.sycl_f32_eta)}:" in block
