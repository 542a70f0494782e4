"""`detect --replay DIR` on captured probe outputs in the real formats: laptops, APUs, Macs, desktops,
servers and machines without a GPU, each written to a folder as a person would attach it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.catalog.loader import load_catalog
from advisor.cli import main
from advisor.detect import detect, detected_session
from advisor.probe_replay import replay_sources

GIB = 2**30


def cpuinfo(name: str, threads: int = 4) -> str:
    block = "processor\t: {i}\nvendor_id\t: X\ncpu family\t: 25\nmodel name\t: {name}\nflags\t\t: fpu vme\n\n"
    return "".join(block.format(i=i, name=name) for i in range(threads))


def meminfo(kib: int) -> str:
    return f"MemTotal:       {kib} kB\nMemFree:         1234567 kB\nMemAvailable:    2345678 kB\n"


def drm(vendor: str, device: str, vram: int | None = None, gtt: int | None = None) -> dict[str, str]:
    files = {"vendor": f"0x{vendor}\n", "device": f"0x{device}\n"}
    if vram is not None:
        files["mem_info_vram_total"] = f"{vram}\n"
    if gtt is not None:
        files["mem_info_gtt_total"] = f"{gtt}\n"
    return files


LSPCI_INTEL_IGPU = (
    "00:02.0 VGA compatible controller [0300]: Intel Corporation Raptor Lake-P [Iris Xe Graphics] "
    "[8086:a7a0] (rev 04)\n"
)
LSPCI_ASPEED = (
    "03:00.0 VGA compatible controller [0300]: ASPEED Technology, Inc. ASPEED Graphics Family [1a03:2000] (rev 52)\n"
)

FIXTURES: dict[str, dict[str, object]] = {
    "rtx-4060-laptop-linux": {
        "system": "Linux",
        "cpuinfo": cpuinfo("13th Gen Intel(R) Core(TM) i7-13700H", 20),
        "meminfo": meminfo(16071200),
        "nvidia-smi.txt": "NVIDIA GeForce RTX 4060 Laptop GPU, 8188 MiB\n",
        "lspci.txt": LSPCI_INTEL_IGPU + "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD107M "
        "[GeForce RTX 4060 Max-Q / Mobile] [10de:28a0] (rev a1)\n",
        "drm": {"card0": drm("8086", "a7a0"), "card1": drm("10de", "28a0")},
    },
    "rtx-5070-laptop-windows": {
        "system": "Windows",
        "cpu.txt": "Intel(R) Core(TM) Ultra 9 275HX\n",
        "ram.txt": str(32 * GIB - 2**28),
        "nproc.txt": "24",
        "nvidia-smi.txt": "NVIDIA GeForce RTX 5070 Laptop GPU, 8151 MiB\n",
        "video.txt": "Intel(R) Graphics\nNVIDIA GeForce RTX 5070 Laptop GPU\n",
    },
    "rtx-3080-ti-laptop-linux": {
        "system": "Linux",
        "cpuinfo": cpuinfo("12th Gen Intel(R) Core(TM) i9-12900H"),
        "meminfo": meminfo(32582000),
        "nvidia-smi.txt": "NVIDIA GeForce RTX 3080 Ti Laptop GPU, 16384 MiB\n",
    },
    "rtx-4050-laptop-no-driver": {  # nouveau: no nvidia-smi, the name from lspci
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD Ryzen 7 7840HS w/ Radeon 780M Graphics"),
        "meminfo": meminfo(15600000),
        "lspci.txt": "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD107M [GeForce RTX 4050 Max-Q / "
        "Mobile] [10de:28a1] (rev a1)\n65:00.0 VGA compatible controller [0300]: Advanced Micro Devices, "
        "Inc. [AMD/ATI] Phoenix1 [1002:15bf] (rev c4)\n",
    },
    "strix-halo-128gb-carveout": {  # 96 GB given to the GPU in firmware: MemTotal shows the rest
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", 32),
        "meminfo": meminfo(32212000),
        "lspci.txt": "c5:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Strix Halo [Radeon "
        "Graphics / Radeon 8050S / Radeon 8060S Graphics] [1002:1586] (rev c1)\n",
        "drm": {"card1": drm("1002", "1586", vram=96 * GIB, gtt=16 * GIB)},
    },
    "strix-halo-64gb": {
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", 32),
        "meminfo": meminfo(65300000),
        "drm": {"card0": drm("1002", "1586", vram=GIB // 2, gtt=31 * GIB)},
    },
    "m3-max-128gb": {"system": "Darwin", "sysctl.txt": f"{128 * GIB}\nApple M3 Max\nMac15,9\n0\n"},
    "m4-pro-48gb-wired": {"system": "Darwin", "sysctl.txt": f"{48 * GIB}\nApple M4 Pro\nMac16,8\n40960\n"},
    "rx-7900-xtx-desktop": {
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD Ryzen 9 7950X 16-Core Processor", 32),
        "meminfo": meminfo(65000000),
        "lspci.txt": "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
        "[Radeon RX 7900 XT/7900 XTX/7900M] [1002:744c] (rev c8)\n",
        "drm": {"card0": drm("1002", "744c", vram=24 * GIB, gtt=31 * GIB)},
    },
    "rx-7900-xt-desktop": {
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD Ryzen 7 7700X 8-Core Processor"),
        "meminfo": meminfo(32000000),
        "drm": {"card0": drm("1002", "744c", vram=20 * GIB, gtt=15 * GIB)},
    },
    "arc-b580-desktop": {
        "system": "Linux",
        "cpuinfo": cpuinfo("Intel(R) Core(TM) i5-14600K"),
        "meminfo": meminfo(32000000),
        "lspci.txt": "03:00.0 VGA compatible controller [0300]: Intel Corporation Battlemage G21 [Arc B580] "
        "[8086:e20b]\n",
        "drm": {"card0": drm("8086", "e20b")},
    },
    "lunar-lake-laptop": {
        "system": "Linux",
        "cpuinfo": cpuinfo("Intel(R) Core(TM) Ultra 7 258V", 8),
        "meminfo": meminfo(32200000),
        "lspci.txt": "00:02.0 VGA compatible controller [0300]: Intel Corporation Lunar Lake [Intel Arc Graphics 130V "
        "/ 140V] [8086:64a0] (rev 04)\n",
        "drm": {"card0": drm("8086", "64a0")},
    },
    "ryzen-ai-hx370-laptop": {
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD Ryzen AI 9 HX 370 w/ Radeon 890M", 24),
        "meminfo": meminfo(32000000),
        "drm": {"card0": drm("1002", "150e", vram=GIB // 2, gtt=15 * GIB)},
    },
    "rtx-4090-desktop-windows": {
        "system": "Windows",
        "cpu.txt": "AMD Ryzen 9 7950X3D 16-Core Processor",
        "ram.txt": str(64 * GIB),
        "nvidia-smi.txt": "NVIDIA GeForce RTX 4090, 24564 MiB\n",
    },
    "h100-sxm-server": {
        "system": "Linux",
        "cpuinfo": cpuinfo("Intel(R) Xeon(R) Platinum 8480+", 8),
        "meminfo": meminfo(2113000000),
        "nvidia-smi.txt": "".join("NVIDIA H100 80GB HBM3, 81559 MiB\n" for _ in range(8)),
        "lspci.txt": LSPCI_ASPEED,
    },
    "epyc-server-no-gpu": {
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD EPYC 9654 96-Core Processor", 8),
        "meminfo": meminfo(395000000),
        "lspci.txt": LSPCI_ASPEED,
    },
    "unknown-cpu-no-gpu": {
        "system": "Linux",
        "cpuinfo": cpuinfo("Mystery Semiconductor X1"),
        "meminfo": meminfo(8000000),
    },
    "desktop-9950x-no-gpu": {
        "system": "Linux",
        "cpuinfo": cpuinfo("AMD Ryzen 9 9950X 16-Core Processor", 32),
        "meminfo": meminfo(65536000),
    },
    "intel-mac": {
        "system": "Darwin",
        "sysctl.txt": f"{16 * GIB}\nIntel(R) Core(TM) i9-9880H CPU @ 2.30GHz\nMacBookPro16,1\n",
    },
    "dgx-spark": {
        "system": "Linux",
        "cpuinfo": cpuinfo("Cortex-X925"),
        "meminfo": meminfo(125000000),
        "nvidia-smi.txt": "NVIDIA GB10, [N/A]\n",
    },
}

EXPECTED = {
    "rtx-4060-laptop-linux": "rtx-4060-laptop",
    "rtx-5070-laptop-windows": "rtx-5070-laptop",
    "rtx-3080-ti-laptop-linux": "rtx-3080-ti-laptop",
    "rtx-4050-laptop-no-driver": "rtx-4050-laptop",
    "strix-halo-128gb-carveout": "strix-halo-395-128gb",
    "strix-halo-64gb": "strix-halo-395-64gb",
    "m3-max-128gb": "m3-max-40c-128gb",
    "m4-pro-48gb-wired": "m4-pro-20c-48gb",
    "rx-7900-xtx-desktop": "rx-7900-xtx",
    "rx-7900-xt-desktop": "rx-7900-xt",
    "arc-b580-desktop": "arc-b580",
    "lunar-lake-laptop": "laptop-lunar-lake-258v-32gb",
    "ryzen-ai-hx370-laptop": "laptop-ryzen-ai-9-hx370-32gb",
    "rtx-4090-desktop-windows": "rtx-4090",
    "h100-sxm-server": "h100-sxm",
    "epyc-server-no-gpu": "epyc-9654-genoa-12ch-384gb",
    "unknown-cpu-no-gpu": None,
    "desktop-9950x-no-gpu": "desktop-ddr5-5600-2ch-64gb",
    "intel-mac": None,
    "dgx-spark": "dgx-spark",
}


def write_fixture(folder: Path, files: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if isinstance(content, dict):
            for card, device_files in content.items():
                d = folder / name / card / "device"
                d.mkdir(parents=True, exist_ok=True)
                for fname, text in device_files.items():
                    (d / fname).write_text(text)
        else:
            (folder / name).write_text(str(content))
    return folder


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog(None)


def replay_json(folder: Path, capsys) -> dict[str, object]:  # type: ignore[no-untyped-def]
    assert main(["detect", "--json", "--replay", str(folder)]) == 0
    return json.loads(capsys.readouterr().out)


def test_there_are_enough_fixtures() -> None:
    assert len(FIXTURES) >= 15 and set(FIXTURES) == set(EXPECTED)
    kinds = {"laptop", "strix", "m3", "desktop", "server", "no-gpu"}
    assert all(any(k in name for name in FIXTURES) for k in kinds)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_replay_matches_the_expected_entry(name: str, tmp_path: Path, catalog, capsys) -> None:  # type: ignore[no-untyped-def]
    out = replay_json(write_fixture(tmp_path / name, FIXTURES[name]), capsys)
    entry = out["entry"]
    want = EXPECTED[name]
    if want is None:
        assert entry is None and out["confidence"] == "none"
        return
    assert isinstance(entry, dict) and entry["id"] == want, out["reason"]
    hw = catalog.hardware[want]
    assert (entry["name"], entry["bandwidth_gbps"], entry["memory_gb"]) == (hw.name, hw.bandwidth_gbps, hw.memory_gb)
    assert out["confidence"] in ("high", "medium")


def test_laptop_gpus_get_laptop_bandwidth(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    e4060 = replay_json(write_fixture(tmp_path / "a", FIXTURES["rtx-4060-laptop-linux"]), capsys)["entry"]
    e5070 = replay_json(write_fixture(tmp_path / "b", FIXTURES["rtx-5070-laptop-windows"]), capsys)["entry"]
    assert isinstance(e4060, dict) and e4060["bandwidth_gbps"] <= 272
    assert isinstance(e5070, dict) and e5070["bandwidth_gbps"] <= 400


def test_what_the_probe_reads(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    halo = detect(catalog, **replay_sources(write_fixture(tmp_path / "h", FIXTURES["strix-halo-128gb-carveout"])))
    gpu = halo.machine.gpus[0]
    assert gpu.vendor == "AMD" and gpu.integrated and gpu.memory_gb == pytest.approx(96)
    assert gpu.shared_gb == pytest.approx(16)
    win = detect(catalog, **replay_sources(write_fixture(tmp_path / "w", FIXTURES["rtx-5070-laptop-windows"])))
    assert win.machine.cpu == "Intel(R) Core(TM) Ultra 9 275HX" and win.machine.cores == 24
    assert win.machine.ram_gb == pytest.approx(31.75)  # RAM on Windows, from psutil's figure
    assert [g.integrated for g in win.machine.gpus] == [False, True]
    server = detect(catalog, **replay_sources(write_fixture(tmp_path / "s", FIXTURES["h100-sxm-server"])))
    s = detected_session(catalog, detection=server)
    assert s is not None and s.scenario.hardware.devices == 8
    mac = detect(catalog, **replay_sources(write_fixture(tmp_path / "m", FIXTURES["m4-pro-48gb-wired"])))
    assert mac.machine.gpu_wired_gb == pytest.approx(40)
    s = detected_session(catalog, detection=mac)
    assert s is not None and s.scenario.hardware.gpu_memory_fraction == pytest.approx(40 / 48)


def test_a_desktop_card_for_a_laptop_part_is_low_confidence(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    files = {"system": "Linux", "nvidia-smi.txt": "NVIDIA GeForce RTX 2080 Laptop GPU, 8192 MiB\n"}
    d = detect(catalog, **replay_sources(write_fixture(tmp_path / "x", files)))
    assert d.entry_id is None or d.confidence == "low"


@pytest.mark.parametrize(
    "files, message",
    [
        ({}, "must say Linux, Darwin, Windows"),
        ({"system": "BeOS"}, "must say Linux, Darwin, Windows"),
    ],
)
def test_a_bad_replay_folder_is_one_clear_message(files, message, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["detect", "--replay", str(write_fixture(tmp_path / "bad", files))]) == 2
    assert message in capsys.readouterr().err
    assert main(["detect", "--replay", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err
