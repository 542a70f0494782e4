"""Which published rows ran on catalog machines and models, and how a hardware_specs.csv line of a catalog
device resolves."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.catalog.loader import Catalog, shipped_catalog
from advisor.validation.coverage import catalog_coverage, machine_in_catalog, model_in_catalog
from advisor.validation.data import HARDWARE_SPECS_CSV, MEASUREMENTS_CSV
from advisor.validation.measurements import Measurement, parse_hardware_specs, parse_measurements
from advisor.validation.resolve import MODEL_ALIASES, row_hardware

HEAD = (
    "hardware_name,class,memory_gb,bandwidth_gbps,fp16_tflops,host_memory_gb,host_bandwidth_gbps,"
    "host_link_gbps,source,notes,catalog_id\n"
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return shipped_catalog()


@pytest.fixture(scope="module")
def rows() -> list[Measurement]:
    parsed, problems = parse_measurements(MEASUREMENTS_CSV.read_text(encoding="utf-8"))
    assert not problems
    return parsed


def _row(rows: list[Measurement], **changes: object) -> Measurement:
    return replace(rows[0], **changes)  # type: ignore[arg-type]


def test_a_spec_line_of_a_catalog_device_takes_the_entry_and_adds_its_host(
    catalog: Catalog, rows: list[Measurement]
) -> None:
    specs, problems = parse_hardware_specs(
        HEAD + "RTX 4080 in a DDR4 box,discrete_gpu,16,716.8,97.5,64,51.2,7.9,https://example.org/x,,rtx-4080\n"
    )
    assert not problems
    got = row_hardware(_row(rows, hardware_id="", hardware_name="RTX 4080 in a DDR4 box"), catalog, specs)
    assert not isinstance(got, str)
    hw, host_known = got
    entry = catalog.hardware["rtx-4080"]
    # the device as a user picking the entry gets it (its INT8 rate included, which the line lacks)
    assert hw.bandwidth_gbps == entry.bandwidth_gbps and hw.int8_tops == entry.int8_tops is not None
    # the host as the line states it
    assert (hw.host_memory_gb, hw.host_bandwidth_gbps, hw.host_link_gbps) == (64, 51.2, 7.9) and host_known
    assert machine_in_catalog(_row(rows, hardware_id="", hardware_name="RTX 4080 in a DDR4 box"), catalog, specs)


def test_a_spec_line_without_a_host_keeps_the_entrys_link_and_says_the_host_is_unknown(
    catalog: Catalog, rows: list[Measurement]
) -> None:
    specs, _ = parse_hardware_specs(HEAD + "P40 box,discrete_gpu,24,346,11.8,,,,https://example.org/x,,tesla-p40\n")
    got = row_hardware(_row(rows, hardware_id="", hardware_name="P40 box"), catalog, specs)
    assert not isinstance(got, str)
    hw, host_known = got
    assert hw.host_link_gbps == catalog.hardware["tesla-p40"].host_link_gbps and not host_known


def test_an_unknown_catalog_id_is_named_not_raised(catalog: Catalog, rows: list[Measurement]) -> None:
    specs, _ = parse_hardware_specs(HEAD + "Mystery,discrete_gpu,8,100,10,,,,https://example.org/x,,no-such-gpu\n")
    got = row_hardware(_row(rows, hardware_id="", hardware_name="Mystery"), catalog, specs)
    assert isinstance(got, str) and "no-such-gpu" in got
    assert not machine_in_catalog(_row(rows, hardware_id="", hardware_name="Mystery"), catalog, specs)


def test_coverage_counts_rows_not_excluded(catalog: Catalog, rows: list[Measurement]) -> None:
    on = _row(rows, hardware_id="rtx-4090", model_id="llama-3.1-8b", exclude_reason="")
    alias = _row(rows, hardware_id="rtx-4090", model_id="", model_name="Meta Llama 3 8B", exclude_reason="")
    off_model = _row(rows, hardware_id="rtx-4090", model_id="", model_name="Some 7B fine-tune", exclude_reason="")
    off_machine = _row(rows, hardware_id="", hardware_name="Unlisted box", model_id="qwen3-8b", exclude_reason="")
    excluded = replace(off_model, exclude_reason="debug build")
    cov = catalog_coverage([on, alias, off_model, off_machine, excluded], catalog, {})
    assert (cov.rows, cov.machine, cov.model, cov.both) == (4, 3, 3, 2)
    assert cov.pct(cov.both) == 50.0
    assert model_in_catalog(alias, catalog) and not model_in_catalog(off_model, catalog)


def test_the_shipped_data_mostly_runs_on_catalog_entries(catalog: Catalog, rows: list[Measurement]) -> None:
    specs, problems = parse_hardware_specs(HARDWARE_SPECS_CSV.read_text(encoding="utf-8"))
    assert not problems
    cov = catalog_coverage(rows, catalog, specs)
    assert cov.pct(cov.both) >= 85.0, cov


def test_spec_lines_of_catalog_devices_agree_with_the_entry(catalog: Catalog) -> None:
    """A line may name a catalog device only if its own datasheet figures are that device's."""
    specs, _ = parse_hardware_specs(HARDWARE_SPECS_CSV.read_text(encoding="utf-8"))
    named = [s for s in specs.values() if s.catalog_id]
    assert len(named) >= 10
    for s in named:
        entry = catalog.hardware[s.catalog_id]
        assert s.hardware.bandwidth_gbps == pytest.approx(entry.bandwidth_gbps, rel=0.01), s.name
        assert s.hardware.memory_gb == pytest.approx(entry.memory_gb, rel=0.01), s.name
        assert s.hardware.kind is entry.kind, s.name


def test_every_alias_names_a_catalog_model(catalog: Catalog) -> None:
    assert set(MODEL_ALIASES.values()) <= set(catalog.models)
