"""validate, estimate --many, --n-cpu-moe, the llama-bench line, and the explicit-η contract."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from advisor.cli import main
from advisor.core.calibration import CALIBRATION
from advisor.core.curves import curve
from advisor.core.efficiency import Engine, default_eta
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload

ROOT = Path(__file__).resolve().parents[2]

GPU = Hardware(
    name="24 GB card", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165, host_memory_gb=128, host_bandwidth_gbps=80
)
LLAMA8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
MOE = ModelArch(
    name="30B-A3B",
    total_params_b=30.5,
    active_params_b=3.3,
    layers=48,
    heads=32,
    kv_heads=4,
    head_dim=128,
    experts=128,
    experts_active=8,
)


def _csv_rows() -> int:
    """The data rows of the measurements file, counted apart from the validation's own reader."""
    import csv

    from advisor.validation.data import MEASUREMENTS_CSV

    with MEASUREMENTS_CSV.open(encoding="utf-8", newline="") as f:
        return sum(1 for _ in csv.DictReader(f))


def test_validate_json_has_medians_and_p90s_per_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data"]["rows"] == _csv_rows() and report["data"]["usable"] >= 400
    assert sum(report["data"]["skip_reasons"].values()) == report["data"]["skipped"]
    groups = {(r["test"], r["group"]) for r in report["held_out"]}
    for test in ("decode", "prefill"):
        assert (test, "all") in groups and (test, "depth 0") in groups
    for g in ("depth sweep", "offload", "batch", "MoE", "class discrete_gpu", "class unified"):
        assert ("decode", g) in groups
    for r in report["held_out"] + report["all_rows"]:
        for model in ("flat", "fitted"):
            s = r[model]
            assert s["n"] == r["n"] and s["median_pct"] is not None and s["p90_pct"] >= s["median_pct"]
    assert {t["group"] for t in report["targets"]} >= {"depth 0", "batch", "MoE"}


def test_validate_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate"]) == 0
    out = capsys.readouterr().out
    assert "held-out rows" in out and "flat η" in out and "Skipped rows" in out


def test_validate_missing_file_is_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["validate", "--data", str(tmp_path / "none.csv")]) == 2
    assert "not found" in capsys.readouterr().err


def test_estimate_many_round_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = [
        {"hardware": "rtx-4090", "params": 8.03, "bits": 4.9, "context": 4096, "gpu_layers": 20},
        {"model": "llama-3.1-8b", "quant": "q4_k_m", "batch": 4},
        {"hardware": "no-such-id"},
        {"model": "qwen3-30b-a3b", "quant": "q4_k_m", "n-cpu-moe": 24},
    ]
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n\nnot json\n", encoding="utf-8")
    assert main(["estimate", "--many", str(f), "--hardware", "rtx-3090"]) == 1
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3, 4, 6]
    assert "unknown id" in out[2]["error"] and "not JSON" in out[4]["error"]
    # each good line equals the single-scenario command with the same flags
    assert (
        main(
            [
                "estimate",
                "--hardware",
                "rtx-4090",
                "--params",
                "8.03",
                "--bits",
                "4.9",
                "--context",
                "4096",
                "--gpu-layers",
                "20",
                "--json",
            ]
        )
        == 0
    )
    single = json.loads(capsys.readouterr().out)
    assert out[0]["decode_tok_s"] == pytest.approx(single["decode_tok_s"])
    assert out[1]["scenario"]["hardware"].startswith("NVIDIA GeForce RTX 3090")  # the command line's default
    assert out[1]["scenario"]["streams"] == 4 and out[1]["aggregate_tok_s"] > out[1]["decode_tok_s"]
    assert "llama_bench" in out[0]
    # published runs kept every layer on the GPU: none is "the same setup" as 20 layers of 32
    assert out[0]["published"]["runs"] == [] and out[3]["published"]["runs"] == []
    from advisor.catalog.loader import shipped_catalog
    from advisor.core.published import all_records

    record = next(
        e.record
        for e in all_records(shipped_catalog().published)
        if e.hardware_id == "rtx-4090" and e.devices == 1 and e.engine is Engine.LLAMA_CPP
    )
    assert out[0]["published"]["machine"]["runs"] == record.runs > 0  # the RTX 4090's record still applies


def test_n_cpu_moe_moves_expert_bytes_to_host(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["estimate", "--hardware", "rtx-4090", "--model", "qwen3-30b-a3b", "--quant", "q4_k_m", "--json"]
    assert main(base) == 0
    on_gpu = json.loads(capsys.readouterr().out)
    assert main([*base, "--n-cpu-moe", "24"]) == 0
    half = json.loads(capsys.readouterr().out)
    assert main([*base, "--n-cpu-moe", "48"]) == 0
    all_experts = json.loads(capsys.readouterr().out)
    assert on_gpu["fits"] and not half["fits"]
    assert 0 < half["offloaded_fraction"] < all_experts["offloaded_fraction"] < 1
    assert on_gpu["decode_tok_s"] > half["decode_tok_s"] > all_experts["decode_tok_s"]
    assert "--n-cpu-moe 24 " in half["llama_bench"] + " " and "-ngl 99" in half["llama_bench"]


def test_n_cpu_moe_places_exactly_the_expert_share() -> None:
    s = Scenario(
        hardware=GPU,
        model=MOE,
        quant=Quant(bits_per_weight=4.89),
        workload=Workload(cpu_moe_layers=12, context=0, output_tokens=0),
    )
    assert not evaluate(s).fits
    inp = build_inputs(s)
    out = solve(inp)
    assert float(out.host_stored) == pytest.approx(12 / 48 * float(inp.expert_bytes))


def test_llama_bench_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "estimate",
                "--hardware",
                "rtx-4090",
                "--model",
                "llama-3.1-8b",
                "--quant",
                "q4_k_m",
                "--context",
                "8192",
                "--prompt",
                "1024",
                "--output",
                "128",
                "--json",
            ]
        )
        == 0
    )
    cmd = json.loads(capsys.readouterr().out)["llama_bench"]
    assert re.fullmatch(
        r"llama-bench -m <Llama-3\.1-8B-Q4_K_M\.gguf> -p 1024 -n 128 -d 8192 -ngl 99 -b 2048 -fa 1", cmd
    )
    assert main(["estimate", "--hardware", "rtx-4090", "--model", "llama-3.1-70b", "--quant", "q4_k_m"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("Check it:"))
    ngl = int(re.search(r"-ngl (\d+)", line).group(1))  # type: ignore[union-attr]
    assert 0 < ngl < 80  # the advisor's own placement of a model that does not fit
    assert main(["estimate", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--batch", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["llama_bench"].startswith("llama-batched-bench")


def test_explicit_eta_is_plain_eta_times_ceiling() -> None:
    """An explicit η switches every fitted overhead off: realistic = η × ceiling, exactly."""
    for streams in (1, 8):
        s = Scenario(
            hardware=GPU,
            model=LLAMA8,
            quant=Quant(bits_per_weight=4.89),
            workload=Workload(context=8192, streams=streams, efficiency=0.6),
        )
        r = evaluate(s)
        assert r.decode_tok_s == pytest.approx(0.6 * (r.decode_ceiling_tok_s or 0), rel=1e-12)
    default = evaluate(
        Scenario(hardware=GPU, model=LLAMA8, quant=Quant(bits_per_weight=4.89), workload=Workload(context=8192))
    )
    terms = CALIBRATION.get(HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP)
    assert terms.fitted and terms.decode.token_ms > 0
    # the fitted model realizes less than its η × ceiling: the overhead terms are on
    assert (default.decode_tok_s or 0) < terms.decode.eta * (default.decode_ceiling_tok_s or 0)


def test_fitted_terms_flow_into_curves_and_bands() -> None:
    s = Scenario(hardware=GPU, model=LLAMA8, quant=Quant(bits_per_weight=4.89), workload=Workload(context=4096))
    r = evaluate(s)
    c = curve(s, "context", x=np.array([4096.0]))
    assert c.decode[0] == pytest.approx(r.decode_tok_s)
    lo, hi = CALIBRATION.get(HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP).decode.band
    assert c.low[0] == pytest.approx(lo * c.decode[0]) and c.high[0] == pytest.approx(hi * c.decode[0])
    assert r.decode_low_tok_s == pytest.approx(lo * (r.decode_tok_s or 0))
    assert lo < 1 < hi
    d = default_eta(HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP)
    assert d.low < d.decode < d.high


def test_realistic_step_adds_up() -> None:
    s = Scenario(hardware=GPU, model=LLAMA8, quant=Quant(bits_per_weight=4.89), workload=Workload(context=4096))
    r = evaluate(s)
    text = next(st.text for st in r.steps if st.label == "Decode realistic")
    terms = [float(x) for x in re.findall(r"= ([\d.,]+) ms", text.split(" per step")[0])]
    fixed = float(re.search(r"\+ ([\d.]+) ms fixed", text).group(1))  # type: ignore[union-attr]
    total = float(re.search(r"= ([\d.]+) ms per step", text).group(1))  # type: ignore[union-attr]
    assert sum(terms) + fixed == pytest.approx(total, rel=0.01)
    assert 1000 / total == pytest.approx(r.decode_tok_s, rel=0.01)


def test_validate_lists_every_excluded_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    excluded = report["excluded_rows"]
    assert len(excluded) == report["data"]["excluded"] > 0
    # a published row cites its URL; the project's own runs cite their method file in the repository
    assert all(e["reason"] and (e["source"].startswith("http") or (ROOT / e["source"]).is_file()) for e in excluded)
    # predictable excluded rows show how far off they land; the rest say so
    assert all(("error_pct" in e) != bool(e.get("not_predictable")) for e in excluded)
    assert report["data"]["usable"] + report["data"]["skipped"] + report["data"]["excluded"] == _csv_rows()
    assert main(["validate"]) == 0
    assert "Excluded rows" in capsys.readouterr().out


def test_backend_flag(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["estimate", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--quant", "q4_k_m", "--json"]
    assert main(base) == 0
    default = json.loads(capsys.readouterr().out)
    assert main([*base, "--backend", "cuda"]) == 0
    assert json.loads(capsys.readouterr().out)["decode_tok_s"] == pytest.approx(default["decode_tok_s"])
    assert main([*base, "--backend", "vulkan"]) == 0
    vulkan = json.loads(capsys.readouterr().out)
    assert vulkan["prefill_tok_s"] != pytest.approx(default["prefill_tok_s"])
    assert main([*base, "--backend", "glide"]) == 2
    assert "--backend" in capsys.readouterr().err


def test_validate_reports_how_often_the_band_holds(capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    from advisor.catalog.loader import shipped_catalog
    from advisor.core.calibration import CALIBRATION
    from advisor.validation.data import load_dataset
    from advisor.validation.predict import predict
    from advisor.validation.report import band_coverage

    assert main(["validate", "--json"]) == 0
    cov = json.loads(capsys.readouterr().out)["band_coverage"]
    cases = load_dataset(shipped_catalog()).cases
    held = np.array([c.held_out for c in cases])
    assert cov["held_out_decode_rows"] == sum(c.held_out and c.test == "tg" for c in cases)
    assert cov["nominal_pct"] == 80.0 and 50 < cov["inside_pct"] < 100
    # a band as wide as anything holds every row; a band of one point holds none
    pred = predict(list(cases))
    wide = replace(
        CALIBRATION,
        terms={g: replace(t, decode=replace(t.decode, band=(0.0, 1e9))) for g, t in CALIBRATION.terms.items()},
    )
    assert band_coverage(list(cases), pred, held, wide)["inside_pct"] == 100.0
    point = replace(
        CALIBRATION,
        terms={g: replace(t, decode=replace(t.decode, band=(2.0, 2.0))) for g, t in CALIBRATION.terms.items()},
    )
    assert band_coverage(list(cases), pred, held, point)["inside_pct"] == 0.0
    assert main(["validate"]) == 0
    assert "held-out decode rows measure inside the band" in capsys.readouterr().out
