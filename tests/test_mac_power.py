"""Macs carry Apple's published whole-system maximum wall power, so their running cost is an upper
bound that the compare JSON and table show; entries without a published figure carry none."""

from __future__ import annotations

import json

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.cli import main

CAT = shipped_catalog()
APPLE_PAGES = ("support.apple.com/en-us/102027", "support.apple.com/en-us/103253")
DESKTOPS = ("m1-max-24c-32gb", "m1-ultra-48c-64gb", "m2-max-30c-32gb", "m2-ultra-76c-192gb", "m4-pro-20c-64gb")


def test_apple_power_is_the_published_maximum_and_says_so() -> None:
    apple = [e for e in CAT.hardware.values() if e.vendor == "Apple" and e.power_w is not None]
    sourced = [e for e in apple if "power_w" not in e.estimates]
    assert {e.id for e in sourced} >= set(DESKTOPS)
    for e in sourced:
        assert any(p in e.source for p in APPLE_PAGES), e.id
        assert "upper bound" in e.notes and "whole-system maximum" in e.notes, e.id
        assert {"Mac Studio", "Mac mini"} & set(e.products), e.id  # Apple publishes it for desktops only
        assert 20 <= (e.power_w or 0) <= 500, e.id  # wall power of a whole small desktop, not a chip's share
    # the same generation's Ultra (two Max dies) is rated above its Max
    by = {e.id: e.power_w or 0 for e in sourced}
    assert by["m1-ultra-48c-64gb"] > by["m1-max-24c-32gb"] and by["m2-ultra-76c-192gb"] > by["m2-max-30c-32gb"]
    # no figure is carried over to a bigger configuration than the one Apple measured
    for hid in ("m1-ultra-64c-128gb", "m2-max-38c-64gb", "m3-ultra-80c-512gb", "m4-max-40c-128gb"):
        assert CAT.hardware[hid].power_w is None, hid


def test_compare_json_carries_the_mac_running_cost(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", "--model", "qwen3-30b-a3b", "--quant", "q4_k_m", "--context", "32768", "--json"]
    assert main([*args, "--hardware", "rtx-3090", "--hardware", "m2-max-30c-32gb", "m4-pro-20c-64gb"]) == 0
    out = json.loads(capsys.readouterr().out)
    macs = [r for r in out["rows"] if r["catalog_id"] in ("m2-max-30c-32gb", "m4-pro-20c-64gb")]
    assert len(macs) == 2
    kwh = out["costs"]["electricity_usd_per_kwh"]
    for r in macs:
        assert r["power_w"] == CAT.hardware[r["catalog_id"]].power_w
        tok_s = r["aggregate_tok_s"]
        assert tok_s > 0 and r["joules_per_token"] == pytest.approx(r["power_w"] / tok_s)
        assert r["usd_per_million_tokens"] == pytest.approx(r["joules_per_token"] * 1e6 / 3.6e6 * kwh)
        assert r["usd_per_million_tokens_with_hardware"] > r["usd_per_million_tokens"]


def test_the_table_shows_a_mac_cost() -> None:
    from advisor.catalog.convert import to_model, to_quant
    from advisor.core.comparison import compare
    from advisor.core.machines import machine_from_entry
    from advisor.core.scenario import Scenario
    from advisor.present.compare_text import cost_row_tip, table_cells

    s = Scenario(model=to_model(CAT.models["llama-3.1-8b"]), quant=to_quant(CAT.quants["q4_k_m"]))
    c = compare([machine_from_entry(CAT.hardware[h]) for h in ("m4-pro-20c-64gb", "m1-max-24c-32gb")], s, [], [])
    for row in c.rows:
        assert table_cells(row, c.threshold_tok_s)["cost"].startswith("$")
        assert "J per token" in cost_row_tip(row, c)
