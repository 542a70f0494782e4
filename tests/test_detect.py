"""Detecting this machine with faked commands and files: every fallback is a normal answer."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from advisor.catalog.loader import load_catalog
from advisor.catalog.user_store import save_entry
from advisor.detect import Detection, detect, detected_session
from advisor.probe import TIMEOUT_S, detect_machine, run_command
from advisor.session import Session

CPUINFO = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen 9 9950X 16-Core Processor\n"
MEMINFO = "MemTotal:       65536000 kB\nMemFree:        1000 kB\n"


def files(cpuinfo: str = CPUINFO, meminfo: str = MEMINFO):  # type: ignore[no-untyped-def]
    def read(path: str) -> str:
        if path == "/proc/cpuinfo":
            return cpuinfo
        if path == "/proc/meminfo":
            return meminfo
        raise FileNotFoundError(path)

    return read


def commands(**answers: object):  # type: ignore[no-untyped-def]
    """A runner: answers[argv0] is stdout, or an exception to raise; absent commands are not installed."""
    calls: list[tuple[tuple[str, ...], float]] = []

    def run(argv: Sequence[str], timeout: float) -> str:
        calls.append((tuple(argv), timeout))
        answer = answers.get(argv[0].replace("-", "_"))
        if answer is None:
            raise FileNotFoundError(argv[0])
        if isinstance(answer, BaseException):
            raise answer
        return str(answer)

    run.calls = calls  # type: ignore[attr-defined]
    return run


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog(None)


def linux(catalog, smi: object = None, **kw: object) -> Detection:  # type: ignore[no-untyped-def]
    return detect(
        catalog, system="Linux", run=commands(nvidia_smi=smi), read=kw.get("read", files()), cpu_count=lambda: 32
    )


def test_no_nvidia_smi_falls_back_to_the_cpu(catalog) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog)
    assert d.entry_id == "desktop-ddr5-5600-2ch-64gb" and d.confidence == "medium"
    m = d.machine
    assert m.cpu == "AMD Ryzen 9 9950X 16-Core Processor" and m.cores == 32
    assert m.ram_gb == pytest.approx(65536000 / 2**20)
    assert m.gpus == () and m.problems == ("nvidia-smi not found",)
    assert "no GPU found" in d.found


def test_nvidia_gpu(catalog) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog, "NVIDIA GeForce RTX 4090, 24564 MiB\n")
    assert (d.entry_id, d.confidence) == ("rtx-4090", "high")
    assert d.machine.gpus[0].memory_gb == pytest.approx(23.99, abs=0.01)
    s = detected_session(catalog, detection=d)
    assert s is not None and s.hardware_id == "rtx-4090"
    assert s.scenario.hardware.host_memory_gb == 62.0  # the detected RAM beside the GPU
    assert s.model_id == "llama-3.1-8b"  # the rest is the default session


@pytest.mark.parametrize(
    "line, entry",
    [
        ("NVIDIA GeForce RTX 4060 Ti, 16380 MiB", "rtx-4060-ti-16gb"),
        ("NVIDIA GeForce RTX 4060 Ti, 8188 MiB", "rtx-4060-ti-8gb"),
        ("NVIDIA GeForce RTX 4090 Laptop GPU, 16376 MiB", "rtx-4090-laptop"),
        ("NVIDIA H100 80GB HBM3, 81559 MiB", "h100-sxm"),
        ("NVIDIA H100 PCIe, 81559 MiB", "h100-pcie"),
        ("NVIDIA A100-SXM4-80GB, 81920 MiB", "a100-80gb-sxm"),
        ("NVIDIA RTX 6000 Ada Generation, 49140 MiB", "rtx-6000-ada"),
        ("NVIDIA RTX A6000, 49140 MiB", "rtx-a6000"),
        ("NVIDIA L40S, 46068 MiB", "l40s"),
        ("NVIDIA GB10, [N/A]", "dgx-spark"),
    ],
)
def test_gpu_names(catalog, line: str, entry: str) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog, line + "\n")
    assert d.entry_id == entry and d.confidence == "high"


def test_two_identical_gpus_set_the_device_count(catalog) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog, "NVIDIA GeForce RTX 3090, 24576 MiB\nNVIDIA GeForce RTX 3090, 24576 MiB\n")
    s = detected_session(catalog, detection=d)
    assert s is not None and s.scenario.hardware.devices == 2 and "2 × NVIDIA GeForce RTX 3090" in d.found


def test_unknown_gpu_is_not_forced_onto_an_entry(catalog) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog, "NVIDIA GeForce GTX 1080, 8192 MiB\n")
    assert d.entry_id is None and d.confidence == "none"
    assert "GTX 1080" in d.reason and detected_session(catalog, detection=d) is None


def test_nvidia_smi_error(catalog) -> None:  # type: ignore[no-untyped-def]
    err = subprocess.CalledProcessError(
        9,
        ["nvidia-smi"],
        output="",
        stderr="NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
    )
    d = linux(catalog, err)
    assert d.machine.gpus == ()
    assert d.machine.problems[0].startswith("nvidia-smi failed (exit 9): NVIDIA-SMI has failed")
    assert d.entry_id == "desktop-ddr5-5600-2ch-64gb"  # carries on with the CPU


def test_nvidia_smi_timeout_is_bounded(catalog) -> None:  # type: ignore[no-untyped-def]
    run = commands(nvidia_smi=subprocess.TimeoutExpired(["nvidia-smi"], TIMEOUT_S))
    d = detect(catalog, system="Linux", run=run, read=files(), cpu_count=lambda: 8)
    assert run.calls[0][1] == TIMEOUT_S == 2.0  # type: ignore[attr-defined]
    assert d.machine.problems == ("nvidia-smi did not answer within 2 s",)
    assert d.entry_id == "desktop-ddr5-5600-2ch-64gb"


def test_real_runner_times_out(tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        run_command(["sleep", "5"], 0.2)
    with pytest.raises(FileNotFoundError):
        run_command([str(tmp_path / "no-such-tool")], 1.0)


def test_odd_nvidia_smi_output(catalog) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog, "No devices were found\n")
    assert d.machine.gpus == ()
    assert d.machine.problems == (
        "nvidia-smi printed an unexpected line: 'No devices were found'",
        "nvidia-smi listed no GPU",
    )
    odd = linux(catalog, "NVIDIA GeForce RTX 4090, lots\n")
    assert odd.entry_id == "rtx-4090" and odd.machine.gpus[0].memory_gb is None
    assert "unexpected memory figure: 'lots'" in odd.machine.problems[0]


def test_macos_sysctl(catalog) -> None:  # type: ignore[no-untyped-def]
    run = commands(sysctl="137438953472\nApple M3 Max\nMac15,9\n")
    d = detect(catalog, system="Darwin", run=run, cpu_count=lambda: 16)
    assert (d.entry_id, d.confidence) == ("m3-max-40c-128gb", "high")
    assert d.machine.apple_chip == "Apple M3 Max" and d.machine.mac_model == "Mac15,9"
    assert d.machine.ram_gb == 128.0
    assert [c[0][0] for c in run.calls] == ["sysctl"]  # no nvidia-smi on a Mac  # type: ignore[attr-defined]
    s = detected_session(catalog, detection=d)
    assert s is not None and s.scenario.hardware.memory_gb == 128.0


def test_macos_memory_without_an_exact_entry(catalog) -> None:  # type: ignore[no-untyped-def]
    d = detect(catalog, system="Darwin", run=commands(sysctl="51539607552\nApple M3 Max\nMac15,8\n"))
    assert d.entry_id == "m3-max-40c-48gb" and d.confidence == "high"
    d = detect(catalog, system="Darwin", run=commands(sysctl="25769803776\nApple M3 Max\nMac15,8\n"))
    assert d.confidence == "low" and "no entry with 24 GB" in d.reason


def test_macos_intel_and_failing_sysctl(catalog) -> None:  # type: ignore[no-untyped-def]
    intel = detect(
        catalog,
        system="Darwin",
        run=commands(sysctl="17179869184\nIntel(R) Core(TM) i9-9980HK CPU @ 2.40GHz\nMacBookPro16,1\n"),
    )
    assert intel.entry_id is None and intel.machine.cpu.startswith("Intel") and intel.machine.ram_gb == 16.0
    broken = detect(catalog, system="Darwin", run=commands(sysctl=OSError("sandboxed")))
    assert broken.entry_id is None and broken.machine.problems == ("sysctl could not run: sandboxed",)


def test_nothing_found_is_normal(catalog) -> None:  # type: ignore[no-untyped-def]
    def unreadable(path: str) -> str:
        raise PermissionError(13, "Permission denied")

    d = detect(catalog, system="Linux", run=commands(), read=unreadable, cpu_count=lambda: None, total_ram=lambda: None)
    assert d.entry_id is None and d.confidence == "none"
    assert d.found == "no GPU found"
    assert "neither a GPU nor a CPU model could be read" in d.text()
    assert d.machine.problems == (
        "/proc/cpuinfo: Permission denied",
        "/proc/meminfo: Permission denied",
        "nvidia-smi not found",
    )
    assert detected_session(catalog, detection=d) is None


def test_unknown_cpu_and_small_ram(catalog) -> None:  # type: ignore[no-untyped-def]
    d = linux(catalog, read=files(cpuinfo="model name\t: AMD EPYC\n"))
    assert d.entry_id is None and "AMD EPYC" in d.reason
    small = linux(catalog, read=files(meminfo="MemTotal: 32000000 kB\n"))
    s = detected_session(catalog, detection=small)
    assert s is not None and s.scenario.hardware.memory_gb == 31.0  # the real RAM, not the entry's 64 GB


def test_detect_machine_defaults_run_here() -> None:
    m = detect_machine()  # the real machine: whatever it finds, it answers
    assert m.system and isinstance(m.problems, tuple)


def test_the_users_measured_copy_is_preferred(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    mine = catalog.hardware["rtx-4090"].model_copy(
        update={"id": "rtx-4090-mine", "name": "RTX 4090 (mine)", "measured_eta": 0.77}
    )
    save_entry("hardware", mine, tmp_path)
    cat = load_catalog(tmp_path)
    d = detect(cat, system="Linux", run=commands(nvidia_smi="NVIDIA GeForce RTX 4090, 24564 MiB"), read=files())
    assert d.entry_id == "rtx-4090"  # matching looks at the shipped entries only
    s = detected_session(cat, detection=d)
    assert isinstance(s, Session) and s.hardware_id == "rtx-4090-mine"
    assert s.scenario.workload.efficiency == 0.77
