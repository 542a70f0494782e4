"""The CLI takes what people type: ids in any case and spacing, 32k and 2,500, '2x ID' sets, and a
context past the model's window is cut to it with a note naming the window."""

from __future__ import annotations

import argparse
import json

import pytest

from advisor.catalog.loader import load_catalog
from advisor.cli import main
from advisor.cli.args import number, plain_number


def run_json(capsys, *argv: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    assert main(["estimate", *argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog(None)


def test_ids_in_any_case_and_spacing(capsys) -> None:  # type: ignore[no-untyped-def]
    exact = run_json(capsys, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--quant", "q4_k_m")
    typed = run_json(capsys, "--hardware", "RTX 4090", "--model", "Llama 3.1 8B", "--quant", "Q4_K_M")
    assert typed == exact
    named = run_json(capsys, "--hardware", "NVIDIA GeForce RTX 4090", "--model", "llama 3.1 8b")
    assert named["decode_tok_s"] == exact["decode_tok_s"]


@pytest.mark.parametrize(
    "text, binary, value",
    [
        ("32k", True, 32768),
        ("128k", True, 131072),
        ("2,500", False, 2500),
        ("1,234,567", False, 1234567),
        ("2.5k", False, 2500),
        ("8192", True, 8192),
        ("1_000", False, 1000),
        ("1M", True, 2**20),
    ],
)
def test_numbers_as_people_write_them(text: str, binary: bool, value: int) -> None:
    assert plain_number(text, int if isinstance(value, int) else float, binary) == value


@pytest.mark.parametrize("text", ["2,5", "1.5.3", "k", "1,23", "nan", "inf"])
def test_ambiguous_numbers_are_refused(text: str) -> None:
    with pytest.raises((ValueError, argparse.ArgumentTypeError)):
        number(float)(text)


def test_context_in_k_and_price_with_commas(capsys) -> None:  # type: ignore[no-untyped-def]
    a = run_json(capsys, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--context", "32k")
    b = run_json(capsys, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--context", "32768")
    assert a == b
    assert main(["budget", "--max-price", "2,500", "--json"]) == 0
    capsys.readouterr()


def test_sets_in_estimate(capsys, catalog) -> None:  # type: ignore[no-untyped-def]
    one = run_json(capsys, "--hardware", "rtx-3090", "--model", "llama-3.1-70b", "--quant", "q4_k_m")
    two = run_json(capsys, "--hardware", "2x rtx-3090", "--model", "llama-3.1-70b", "--quant", "q4_k_m")
    also = run_json(capsys, "--hardware", "2 × RTX 3090", "--model", "llama-3.1-70b", "--quant", "q4_k_m")
    assert two == also
    per_card = catalog.hardware["rtx-3090"].memory_gb
    assert one["fast_capacity_gb"] <= per_card < two["fast_capacity_gb"] <= 2 * per_card
    # a set says how it splits, llama.cpp's layer split by default; one card has no split
    assert (two["scenario"]["devices"], two["scenario"]["split"]) == (2, "layer")
    assert one["scenario"]["split"] is None
    assert main(["estimate", "--hardware", "65x rtx-3090"]) == 2
    assert "1 to 64 devices" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag, typo, suggestion",
    [
        ("--hardware", "rtx-4009", "rtx-4090"),
        ("--model", "lama-3.1-8b", "llama-3.1-8b"),
        ("--quant", "q4_k_n", "q4_k_m"),
    ],
)
def test_near_misses_get_suggestions(capsys, flag: str, typo: str, suggestion: str) -> None:  # type: ignore[no-untyped-def]
    assert main(["estimate", flag, typo]) == 2
    err = capsys.readouterr().err
    assert f"unknown id '{typo}'" in err and suggestion in err


def test_context_past_the_window_is_cut_with_a_note(capsys, catalog) -> None:  # type: ignore[no-untyped-def]
    window = catalog.models["gemma-2-9b"].max_context
    out = run_json(capsys, "--hardware", "rtx-4090", "--model", "gemma-2-9b", "--context", "16k")
    assert main(["estimate", "--hardware", "rtx-4090", "--model", "gemma-2-9b", "--context", "16k"]) == 0
    err = capsys.readouterr().err
    assert f"window of {window:,} tokens" in err and "8,192" in err
    at_window = run_json(capsys, "--hardware", "rtx-4090", "--model", "gemma-2-9b", "--context", str(window))
    assert out == at_window
    assert main(["estimate", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--context", "300000"]) == 0
    assert "window of 131,072 tokens" in capsys.readouterr().err
