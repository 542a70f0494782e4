"""The buyer's question on the command line: a model at 32k context under $2,500, and five machines a
person weighs for it. Every row says whether the model fits, how much spills, its speed, its dated
price and kind, its split, how many users it holds and what a token costs to make."""

from __future__ import annotations

import json
import re

import pytest

from advisor.cli import main

MODELS = ("qwen3-30b-a3b", "llama-3.3-70b")
MACHINES = ("rtx-3090", "2x rtx-3090", "rtx-5090", "m2-max-30c-32gb", "strix-halo-395-128gb")
ROW_KEYS = ("fits", "offloaded_fraction", "decode_tok_s", "price_usd", "price_seen", "price_kind", "split")
COST_KEYS = ("max_streams", "joules_per_token", "usd_per_million_tokens", "usd_per_million_tokens_with_hardware")
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main([*args, "--quant", "q4_k_m", "--context", "32768", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_row(r: dict, threshold: float) -> None:
    for key in (*ROW_KEYS, *COST_KEYS):
        assert key in r, key
    assert r["price_usd"] > 0 and r["price_kind"] in ("new", "used") and MONTH.match(r["price_seen"])
    assert r["split"] == "layer"  # the default, as llama.cpp splits
    assert 0 <= r["offloaded_fraction"] <= 1
    assert (r["offloaded_fraction"] > 0) == (r["fits"] is False)  # spilling is exactly not fitting
    if r["max_streams"]:  # streams at speed are held in fast memory, each at or above the threshold
        assert r["fits"] and r["decode_tok_s"] >= threshold * 0.999
    if r["joules_per_token"] is not None:  # every machine here has a rated power
        assert (
            r["usd_per_million_tokens"] > 0 and r["usd_per_million_tokens_with_hardware"] > r["usd_per_million_tokens"]
        )


@pytest.mark.parametrize("model", MODELS)
def test_budget_for_the_buyers_model(capsys: pytest.CaptureFixture[str], model: str) -> None:
    b = run(capsys, "budget", "--max-price", "2500", "--model", model)["for_model"]
    rows = b["meeting"] + b["short"]
    assert rows and all(r["price_usd"] <= 2500 for r in rows)
    for r in rows:
        check_row(r, b["threshold_tok_s"])
        if r["power_w"]:
            aggregate = r["decode_tok_s"] * b["streams"]
            assert r["joules_per_token"] == pytest.approx(r["power_w"] / aggregate)
    # those that hold it at speed come first, cheapest first; then each says why not
    assert all(r["fits"] and r["decode_tok_s"] >= b["threshold_tok_s"] * 0.999 for r in b["meeting"])
    assert [r["price_usd"] for r in b["meeting"]] == sorted(r["price_usd"] for r in b["meeting"])
    assert all(r["shortfall"] != "meets" and r["reason"] for r in b["short"])
    if model == "qwen3-30b-a3b":  # an 18 GB MoE: plenty of machines under $2,500 hold it at speed
        assert len(b["meeting"]) >= 5 and all(r["max_streams"] >= 1 for r in b["meeting"])
    else:  # a 70B at 32k context needs over 48 GB of fast memory and its bandwidth: none meets it
        assert not b["meeting"]


@pytest.mark.parametrize("model", MODELS)
def test_compare_the_buyers_machines(capsys: pytest.CaptureFixture[str], model: str) -> None:
    args = ["compare", "--model", model, "--used"]
    for spec in MACHINES:
        args += ["--hardware", spec]
    out = run(capsys, *args)
    rows = {r["label"]: r for r in out["rows"]}
    assert len(rows) == len(MACHINES)
    for r in rows.values():
        check_row(r, out["threshold_tok_s"])
        assert r["joules_per_token"] is not None, r["label"]  # the Mac too: Apple's published maximum
    one, two = (next(r for r in rows.values() if r["catalog_id"] == "rtx-3090" and r["devices"] == n) for n in (1, 2))
    assert one["price_kind"] == two["price_kind"] == "used" and two["price_usd"] == pytest.approx(2 * one["price_usd"])
    # a layer split runs the cards one after another: two are no faster than one on a model one holds
    if one["fits"]:
        assert two["decode_tok_s"] <= one["decode_tok_s"] * 1.02
    # two cards hold more at once: more streams, or less spilled
    assert (two["max_streams"] or 0) >= (one["max_streams"] or 0)
    assert two["offloaded_fraction"] <= one["offloaded_fraction"]


def test_budget_text_gives_the_cost_and_takes_the_electricity(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["budget", "--max-price", "2500", "--model", "qwen3-30b-a3b", "--top", "3"]
    cheap, dear = (run(capsys, *base, "--electricity", p)["for_model"]["meeting"][0] for p in ("0.10", "0.30"))
    assert dear["usd_per_million_tokens"] == pytest.approx(3 * cheap["usd_per_million_tokens"])
    assert main([*base, "--quant", "q4_k_m", "--context", "32768"]) == 0
    assert "per 1M tokens (power · with hardware)" in capsys.readouterr().out
