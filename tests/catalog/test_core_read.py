"""Per-core DRAM read figures in the shipped CPU catalog obey the memory physics: llama.cpp decode with
few threads is capped at threads x core_read_gbps, so an implausible figure moves CPU decode directly."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import Catalog, load_shipped
from advisor.catalog.schema import HardwareEntry

# One core's sustained DRAM read: server mesh cores reach about 10-20 GB/s, client and Apple cores more,
# and no published single-core figure exceeds the ~100 GB/s an Apple M1 Max P-core pulls
_LOW_GBPS, _HIGH_GBPS = 5.0, 150.0
# A whole chip reaches at least this share of its memory's theoretical bandwidth
_MIN_CHIP_SHARE = 0.3


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_shipped()


def _cpus_with_core_read(cat: Catalog) -> list[HardwareEntry]:
    return [hw for hw in cat.hardware.values() if hw.kind == "cpu" and hw.core_read_gbps is not None]


def test_some_cpu_entries_carry_a_core_read_figure(cat: Catalog) -> None:
    assert _cpus_with_core_read(cat), "no CPU entry sets core_read_gbps"


def test_core_read_in_physical_range(cat: Catalog) -> None:
    for hw in _cpus_with_core_read(cat):
        assert hw.core_read_gbps is not None
        assert _LOW_GBPS <= hw.core_read_gbps <= _HIGH_GBPS, (hw.id, hw.core_read_gbps)


def test_one_core_reads_no_more_than_the_memory_delivers(cat: Catalog) -> None:
    for hw in _cpus_with_core_read(cat):
        assert hw.core_read_gbps is not None
        assert hw.core_read_gbps <= hw.bandwidth_gbps, (hw.id, hw.core_read_gbps, hw.bandwidth_gbps)


def test_all_cores_together_reach_a_third_of_the_memory(cat: Catalog) -> None:
    for hw in _cpus_with_core_read(cat):
        assert hw.core_read_gbps is not None, hw.id
        whole_chip = hw.host_threads * hw.core_read_gbps
        assert whole_chip >= _MIN_CHIP_SHARE * hw.bandwidth_gbps, (hw.id, whole_chip, hw.bandwidth_gbps)


def test_core_read_figure_is_cited(cat: Catalog) -> None:
    # each figure names its source in the notes clause, and a URL or the project's own measurement file in source
    for hw in _cpus_with_core_read(cat):
        assert "core_read_gbps = " in hw.notes, hw.id
        assert "http" in str(hw.source) or "benchmarks/data/own-cpu.md" in str(hw.source), hw.id
