"""The buying commands: compare, budget and what-would-it-take print what the core computes, and
bad input is one line with exit code 2."""

from __future__ import annotations

import json

import pytest

from advisor.catalog.convert import standings, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.cli import main
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware
from advisor.core.machines import machine_from_entry, scenario_on
from advisor.core.recommend import recommend
from advisor.core.running_cost import DEFAULT_ELECTRICITY_USD_PER_KWH
from advisor.core.scenario import Scenario

CAT = shipped_catalog()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def scenario(model: str = "llama-3.3-70b", **workload: object) -> Scenario:
    s = Scenario(model=to_model(CAT.models[model]), quant=to_quant(CAT.quants["q4_k_m"]))
    return s.model_copy(update={"workload": s.workload.model_copy(update=workload)})


def test_compare_json_matches_the_core(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(
        capsys,
        "compare",
        "--hardware",
        "rtx-3090",
        "--hardware",
        "2x rtx-3090",
        "--hardware",
        "m4-max-40c-128gb",
        "--model",
        "llama-3.3-70b",
        "--quant",
        "q4_k_m",
        "--context",
        "8192",
    )
    rows = {r["label"]: r for r in out["rows"]}
    assert list(rows) == ["NVIDIA GeForce RTX 3090", "2× NVIDIA GeForce RTX 3090", "Apple M4 Max (40-core GPU), 128 GB"]
    s = scenario(context=8192)
    models = [(k, to_model(m)) for k, m in CAT.models.items()]
    quants = [(k, to_quant(q)) for k, q in CAT.quants.items() if q.format == "gguf"]
    for spec, label in (
        ("rtx-3090", "NVIDIA GeForce RTX 3090"),
        ("m4-max-40c-128gb", "Apple M4 Max (40-core GPU), 128 GB"),
    ):
        hw = machine_from_entry(CAT.hardware[spec]).hardware
        r = evaluate(scenario_on(s, hw))
        assert rows[label]["decode_tok_s"] == pytest.approx(r.decode_tok_s)
        assert rows[label]["ttft_s"] == pytest.approx(r.ttft_s)
        pick = recommend(scenario_on(s, hw), models, quants, runner_ups=0, standing=standings(CAT.models)).pick
        assert rows[label]["largest"]["model_key"] == pick.model_key
    two = rows["2× NVIDIA GeForce RTX 3090"]
    assert two["price_usd"] == pytest.approx(2 * 1499) and two["memory_gb"] == pytest.approx(48) and two["fits"]
    assert two["tok_s_per_k_usd"] == pytest.approx(two["decode_tok_s"] / 2.998)
    assert out["verdict"].startswith("2× RTX 3090 (layer split) runs Llama 3.3 70B Q4_K_M")
    assert two["split"] == "layer"
    assert out["workload"]["context"] == 8192


def test_compare_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--hardware", "rtx-4090", "rtx-5090", "--model", "qwen3-32b", "--preset", "coding"]) == 0
    text = capsys.readouterr().out
    assert "Qwen3 32B · Q4_K_M · 32,768 tokens context · 8,000-token prompt" in text
    assert "interactive ≥ 20 tok/s" in text
    assert "Verdict:" in text and "tok/s per $1,000" in text and "NVIDIA GeForce RTX 5090" in text


@pytest.mark.parametrize("spec", ["2x rtx-3090", "2xrtx-3090", "2×rtx-3090", "rtx-3090:2"])
def test_set_spellings(capsys: pytest.CaptureFixture[str], spec: str) -> None:
    out = run(capsys, "compare", "--hardware", "rtx-4090", "--hardware", spec, "--model", "llama-3.1-8b")
    assert out["rows"][1]["label"] == "2× NVIDIA GeForce RTX 3090" and out["rows"][1]["devices"] == 2


def test_host_flags_apply_to_every_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(
        capsys, "compare", "--hardware", "rtx-4090", "rtx-3090", "--model", "llama-3.3-70b", "--host-bandwidth", "160"
    )
    s = scenario()
    hw = machine_from_entry(CAT.hardware["rtx-4090"]).hardware.model_copy(update={"host_bandwidth_gbps": 160.0})
    assert out["rows"][0]["decode_tok_s"] == pytest.approx(evaluate(scenario_on(s, hw)).decode_tok_s)
    assert all(m["hardware"]["host_bandwidth_gbps"] == 160 for m in out["machines"])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        pytest.param(["compare", "--hardware", "rtx-3090", "--model", "llama-3.1-8b"], "2 to 6", id="one-machine"),
        pytest.param(
            ["compare", *(a for _ in range(7) for a in ("--hardware", "rtx-3090")), "--model", "qwen3-8b"],
            "2 to 6",
            id="seven",
        ),
        pytest.param(
            ["compare", "--hardware", "rtx-3090", "no-such", "--model", "qwen3-8b"], "--hardware", id="unknown"
        ),
        pytest.param(
            ["compare", "--hardware", "rtx-3090", "2x m4-max-40c-128gb", "--model", "qwen3-8b"],
            "discrete GPUs",
            id="mac-set",
        ),
        pytest.param(
            ["compare", "--hardware", "rtx-3090", "rtx-4090", "--model", "qwen3-8b", "--memory", "5"],
            "--memory",
            id="raw-memory",
        ),
        pytest.param(["compare", "--hardware", "rtx-3090", "rtx-4090"], "--model", id="no-model"),
        pytest.param(["budget", "--max-price", "-5"], "--max-price", id="negative-price"),
        pytest.param(["budget", "--max-price", "2000", "--context", "-1"], "--context", id="bad-context"),
        pytest.param(["budget", "--max-price", "2000", "--preset", "nope"], "--preset", id="bad-preset"),
        pytest.param(["what-would-it-take", "--model", "qwen3-8b", "--tok-s", "0"], "--tok-s", id="zero-target"),
        pytest.param(["what-would-it-take", "--tok-s", "10"], "--model", id="wwit-no-model"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err


def test_budget_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "budget", "--max-price", "2500", "--preset", "chat", "--top", "40")
    ranked = out["ranked"]
    assert ranked and [x["rank"] for x in ranked] == list(range(1, len(ranked) + 1))
    assert all(x["machine"]["price_usd"] <= 2500 for x in ranked)
    assert any(x["machine"]["hardware"]["devices"] == 4 for x in ranked)
    top = ranked[0]
    hw = Hardware.model_validate(top["machine"]["hardware"])
    pick = recommend(
        scenario_on(scenario(), hw),
        [(k, to_model(m)) for k, m in CAT.models.items()],
        [(k, to_quant(q)) for k, q in CAT.quants.items() if q.format == "gguf"],
        runner_ups=0,
    ).pick
    assert top["largest"]["model_key"] == pick.model_key
    sizes = [x["largest"]["total_params_b"] if x["largest"] else -1 for x in ranked]
    assert sizes == sorted(sizes, reverse=True)
    solo = run(capsys, "budget", "--max-price", "2500", "--no-sets")
    assert all(x["machine"]["hardware"]["devices"] == 1 for x in solo["ranked"])


def test_budget_text_and_pc_price(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["budget", "--max-price", "1500", "--pc-price", "1000", "--top", "5"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Best under $1,500") and "includes $1,000 for the PC" in text
    assert " 1. " in text and "uses " in text


def test_budget_for_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(
        capsys,
        "budget",
        "--max-price",
        "2500",
        "--model",
        "qwen3-30b-a3b",
        "--quant",
        "q4_k_m",
        "--context",
        "32768",
        "--top",
        "10",
    )
    fm = out["for_model"]
    assert fm["model_name"] == CAT.models["qwen3-30b-a3b"].name and fm["context"] == 32768
    rows = fm["meeting"] + fm["short"]
    assert rows and all(x["price_usd"] <= 2500 for x in rows)
    for x in rows:
        assert {"fits", "offloaded_fraction", "decode_tok_s", "price_usd", "split", "reason"} <= set(x)
    assert all(x["fits"] and x["decode_tok_s"] >= fm["threshold_tok_s"] for x in fm["meeting"])
    assert [x["price_usd"] for x in fm["meeting"]] == sorted(x["price_usd"] for x in fm["meeting"])
    assert out["ranked"], "the largest-model ranking stays as a second one"
    assert main(["budget", "--max-price", "2500", "--model", "qwen3-30b-a3b", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "Hold it in fast memory" in text and "Second ranking" in text


def test_what_would_it_take_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(
        capsys,
        "what-would-it-take",
        "--model",
        "llama-3.3-70b",
        "--tok-s",
        "15",
        "--ttft",
        "2",
        "--hardware",
        "rtx-4090",
    )
    s = scenario()
    prices = [o["machine"]["price_usd"] for o in out["cheapest"]]
    assert prices and prices == sorted(prices)
    for o in out["cheapest"]:
        assert o["meets"] and o["decode_tok_s"] >= 15 and o["ttft_s"] <= 2
    assert out["current"]["machine"]["label"] == "your NVIDIA GeForce RTX 4090" and not out["current"]["meets"]
    up = out["upgrades"][0]
    assert up["kind"] == "more_cards" and up["cost_usd"] == pytest.approx(1599)
    hw = machine_from_entry(CAT.hardware["rtx-4090"], 2).hardware
    assert up["decode_tok_s"] == pytest.approx(evaluate(scenario_on(s, hw)).decode_tok_s)


def test_what_would_it_take_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "what-would-it-take",
                "--model",
                "qwen3-30b-a3b",
                "--tok-s",
                "40",
                "--hardware",
                "desktop-ddr5-5600-2ch-64gb",
                "--preset",
                "coding",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "Cheapest catalog machines and sets that meet it holding the model in fast memory:" in text
    assert "Smallest upgrade: add one" in text and "does not meet it" in text
    assert main(["what-would-it-take", "--model", "llama-3.1-405b", "--tok-s", "5000"]) == 0
    assert "Nothing in the catalog meets it" in capsys.readouterr().out
    out = run(capsys, "what-would-it-take", "--model", "qwen3-30b-a3b", "--tok-s", "20", "--max-price", "1500")
    assert out["max_price_usd"] == 1500 and not out["allow_spill"] and out["cheapest"]
    for o in out["cheapest"]:
        assert o["machine"]["price_usd"] <= 1500 and o["fits"] and o["offloaded_fraction"] == 0
        assert o["split"] in ("layer", "tensor")


def test_compare_accepts_longtail_ids(capsys: pytest.CaptureFixture[str]) -> None:
    """An uncurated GPU from the long tail compares like any other (2x sets too)."""
    assert (
        main(
            [
                "compare",
                "--hardware",
                "rtx-3090",
                "--hardware",
                "2x db-geforce-gtx-1080-ti",
                "--model",
                "llama-3.1-8b",
                "--quant",
                "q4_k_m",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    rows = {r["label"]: r for r in out["rows"]}
    assert any("1080 Ti" in label and label.startswith("2×") for label in rows)


def test_cli_compare_json_and_flags(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", "--hardware", "rtx-3090", "--hardware", "rtx-5090", "--model", "qwen3-30b-a3b", "--json"]
    assert main([*args, "--electricity", "0.30", "--api-price", "0.5"]) == 0
    dear = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)
    for d, x in zip(default["rows"], dear["rows"], strict=True):
        ratio = 0.30 / DEFAULT_ELECTRICITY_USD_PER_KWH
        assert x["usd_per_million_tokens"] == pytest.approx(d["usd_per_million_tokens"] * ratio)
        assert d["break_even_months"] is None and x["break_even_months"] is not None
        assert x["max_streams"] == d["max_streams"] >= 1
    assert main([*args[:-1], "--utilization", "2"]) == 2
    assert "--utilization" in capsys.readouterr().err
