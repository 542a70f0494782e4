"""What the machine offers: memory pools, their bandwidths, compute, and how devices combine."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from advisor.core.base import Frozen
from advisor.core.measured import MeasuredTerms


class HardwareClass(StrEnum):
    DISCRETE_GPU = "discrete_gpu"
    UNIFIED = "unified"
    CPU = "cpu"


HARDWARE_CLASS_LABELS: dict[HardwareClass, str] = {
    HardwareClass.DISCRETE_GPU: "Discrete GPU",
    HardwareClass.UNIFIED: "Unified memory",
    HardwareClass.CPU: "CPU only",
}

# Dual-channel DDR5 desktop beside a GPU: the usual host when a catalog GPU names none.
DEFAULT_HOST_MEMORY_GB = 64.0
DEFAULT_HOST_BANDWIDTH_GBPS = 80.0
DEFAULT_HOST_LINK_GBPS = 32.0  # PCIe 4.0 x16, one direction
# The host CPU that computes whatever sits in host RAM: a desktop's 8 physical cores. Per thread, an
# estimate for llama.cpp's AVX2 kernels: two 256-bit FMA ports × 8 FP32 lanes × 2 FLOP = 32 FLOP/cycle
# at about 4 GHz is 128 GFLOPS peak per core, of which quantized dot products and attention realize
# about a quarter: 30 GFLOPS per thread.
DEFAULT_HOST_THREADS = 8
DEFAULT_HOST_GFLOPS_PER_THREAD = 30.0
# What one core's loads pull from DRAM: a core keeps only so many cache-line misses in flight, so a
# CPU-only run on few threads cannot reach the memory's bandwidth. 12.1 GB/s is one core of the
# project's own Ice Lake-SP VM (benchmarks/data/own-cpu.md, 23.6 GB/s with both); desktop cores read
# somewhat faster, so it is an estimate that binds only when few threads share wide memory.
CORE_READ_GBPS = 12.1
# A PCIe 4.0 NVMe SSD's sequential read (most read 3-7 GB/s): where llama.cpp's mmap reads weights
# that do not fit in RAM from, each token.
DEFAULT_DISK_READ_GBPS = 3.5
# Tensor split: each device reads its share of every layer, and each layer ends in two all-reduces of the
# activations (after attention and after the MLP). At one stream an all-reduce moves a few kB, so its time
# is a synchronisation: published batch-1 runs on 2-4 PCIe cards (vLLM and llama.cpp, 1B-70B models) lose
# 31-46 µs per all-reduce beyond the split bandwidth (benchmarks/data/pending/tensor-split.md), about
# NCCL's small-message latency over PCIe. Over a dedicated device link (NVLink) it is shorter; 15 µs
# there is an estimate (no batch-1 runs found).
ALLREDUCE_PCIE_S = 40e-6
ALLREDUCE_DEVICE_LINK_S = 15e-6
# Layer split: each hand-off to the next device adds this share of one device's fixed per-token time
# (published llama-bench runs of 1-8 RTX 3090/4090 on Llama 3 8B lose about 0.1-0.3 ms per device).
LAYER_HOP_SHARE = 0.1


class Hardware(Frozen):
    """One machine: a fast pool (VRAM, the GPU's share of unified memory, or RAM for CPU-only)
    and, for discrete GPUs and the rest of unified memory, a slower host pool. Lower bounds are physical
    (the slowest device anyone runs a model on has about 5 GB/s and 10 GFLOPS, the smallest 128 MB), so
    no time or rate the solver derives from them can overflow."""

    name: str = Field("Custom hardware", title="Name", max_length=200)
    kind: HardwareClass = Field(
        HardwareClass.DISCRETE_GPU,
        title="Class",
        description="Discrete GPU, unified memory (Apple, Strix Halo) or CPU only",
    )
    memory_gb: float | None = Field(
        24.0,
        ge=0.01,
        le=100_000,
        title="Memory",
        json_schema_extra={"unit": "GB"},
        description="Fast memory per device: VRAM, total unified memory, "
        "or system RAM for CPU only; empty when not known (whether "
        "a model fits is then not checked)",
    )
    bandwidth_gbps: float = Field(
        1008.0,
        ge=0.1,
        le=100_000,
        title="Bandwidth",
        json_schema_extra={"unit": "GB/s"},
        description="Peak memory bandwidth of one device, from its datasheet",
    )
    fp16_tflops: float = Field(
        165.0,
        ge=0.001,
        le=100_000,
        title="FP16 compute",
        json_schema_extra={"unit": "TFLOPS"},
        description="Peak dense FP16/BF16 throughput of one device (no sparsity)",
    )
    fp32_tflops: float | None = Field(
        None,
        ge=0.001,
        le=100_000,
        title="FP32 vector compute",
        json_schema_extra={"unit": "TFLOPS"},
        description="Peak FP32 throughput of one device's shader/CUDA cores, not its tensor or matrix "
        "units: decode's matrix-vector kernels unpack quantized weights there; empty: the FP16 figure "
        "over its architecture's ratio (advisor.core.vector_units)",
    )
    core_read_gbps: float | None = Field(
        None,
        ge=0.1,
        le=1000,
        title="Read per core",
        json_schema_extra={"unit": "GB/s"},
        description="CPU only: the DRAM read bandwidth one core sustains (its cache-line misses in "
        "flight over the memory latency), so few threads cannot reach the memory's bandwidth; "
        "empty: 12.1 GB/s, one server core measured",
    )
    fp16_acc_speedup: float = Field(
        1.0,
        ge=1,
        le=4,
        title="FP16-accumulate speedup",
        json_schema_extra={"unit": "×"},
        description="How many times the FP16 compute figure (FP32 accumulate) the matrix units run with "
        "FP16 accumulation: 2 on GeForce cards, 1 where both run at full rate. llama.cpp's prefill "
        "accumulates in FP16 for F16 weights under CUDA and for F16 and quantized weights under Vulkan",
    )
    int8_tops: float | None = Field(
        None,
        ge=0.001,
        le=1_000_000,
        title="INT8 compute",
        json_schema_extra={"unit": "TOPS"},
        description="Peak dense INT8 throughput of one device (tensor/matrix cores, or DP4A "
        "without them; no sparsity): llama.cpp's quantized matmul kernels (MMQ) prefill "
        "on it under CUDA and ROCm; empty: quantized prefill at the FP16 figure",
    )
    gpu_memory_fraction: float = Field(
        1.0,
        ge=0.01,
        le=1,
        title="GPU-usable share",
        description="Unified memory only: share of RAM the GPU may use (macOS wires about 2/3 to 3/4 by default)",
    )
    host_memory_gb: float = Field(
        DEFAULT_HOST_MEMORY_GB,
        ge=0,
        le=100_000,
        title="Host RAM",
        json_schema_extra={"unit": "GB"},
        description="System RAM beside a discrete GPU, where offloaded layers go",
    )
    host_bandwidth_gbps: float = Field(
        DEFAULT_HOST_BANDWIDTH_GBPS,
        ge=0.1,
        le=100_000,
        title="Host bandwidth",
        json_schema_extra={"unit": "GB/s"},
        description="System RAM bandwidth (dual-channel DDR5 is about 80 GB/s)",
    )
    host_link_gbps: float = Field(
        DEFAULT_HOST_LINK_GBPS,
        ge=0.1,
        le=10_000,
        title="Host link",
        json_schema_extra={"unit": "GB/s"},
        description="GPU to host link (PCIe 4.0 x16 is about 32 GB/s)",
    )
    host_threads: int = Field(
        DEFAULT_HOST_THREADS,
        ge=1,
        le=1024,
        title="Host threads",
        description="Physical CPU cores of the host: the threads llama.cpp computes "
        "host-resident weights and KV with by default",
    )
    host_gflops_per_thread: float = Field(
        DEFAULT_HOST_GFLOPS_PER_THREAD,
        ge=0.1,
        le=10_000,
        title="Host compute per thread",
        json_schema_extra={"unit": "GFLOPS"},
        description="What one CPU thread realizes on llama.cpp's kernels "
        "(an estimate: about a quarter of an AVX2 core's FP32 FMA "
        "peak, 128 GFLOPS at 4 GHz)",
    )
    disk_read_gbps: float = Field(
        DEFAULT_DISK_READ_GBPS,
        ge=0.01,
        le=1000,
        title="Disk read",
        json_schema_extra={"unit": "GB/s"},
        description="SSD read bandwidth: llama.cpp memory-maps the model, so weights "
        "beyond RAM are read from disk each token (PCIe 4.0 NVMe is "
        "about 3.5-7 GB/s, SATA 0.5)",
    )
    devices: int = Field(1, ge=1, le=64, title="Devices", description="How many identical devices")
    split: Literal["tensor", "layer"] = Field(
        "layer",
        title="Split",
        description="tensor: devices share every layer "
        "(adds speed and capacity); "
        "layer: each device holds whole layers (adds capacity only)",
    )
    tp_scaling: float | None = Field(
        None,
        ge=0,
        le=1,
        title="Tensor-parallel scaling",
        description="Extra single-stream speed each added device gives under tensor "
        "split (0.6 makes two cards 1.6x one); empty: from the physics, the "
        "split bandwidth and each layer's two all-reduces over the device link",
    )
    peer_link_gbps: float | None = Field(
        None,
        ge=0.1,
        le=10_000,
        title="Device link",
        json_schema_extra={"unit": "GB/s"},
        description="Device-to-device bandwidth, one direction: PCIe 3.0 x16 or "
        "4.0 x8 about 16, PCIe 4.0 x16 about 32, PCIe 5.0 x16 about 63, "
        "an RTX 3090 NVLink bridge 56, H100 NVLink 450; empty: "
        "over PCIe at the host link",
    )
    measured: MeasuredTerms | None = Field(
        None,
        title="Your calibration",
        description="Factors your own runs fitted on top of the fitted model for this machine "
        "(Tools → Measure your own); empty: the fitted model alone",
    )

    @model_validator(mode="after")
    def _pools_make_sense(self) -> Hardware:
        if self.kind is not HardwareClass.UNIFIED and self.gpu_memory_fraction != 1.0:
            raise ValueError("gpu_memory_fraction applies to unified memory only")
        return self

    # --- derived pools -------------------------------------------------------------------
    @property
    def memory_known(self) -> bool:
        return self.memory_gb is not None

    @property
    def fast_capacity_gb(self) -> float:
        """Fast memory across all devices, before runtime overhead (infinite when the size is not known:
        nothing is then placed in host memory, and the result says the fit was not checked)."""
        if self.memory_gb is None:
            return math.inf
        return self.memory_gb * self.gpu_memory_fraction * self.devices

    @property
    def host_capacity_gb(self) -> float:
        """The slower pool. Unified memory counts only what the GPU may not use, so no byte is counted twice;
        a CPU-only machine has no second pool."""
        if self.kind is HardwareClass.CPU:
            return 0.0
        if self.kind is HardwareClass.UNIFIED:
            if self.memory_gb is None:
                return 0.0
            return self.memory_gb * (1.0 - self.gpu_memory_fraction) * self.devices
        return self.host_memory_gb

    @property
    def device_link_gbps(self) -> float:
        """What the devices exchange activations over: the device link, else PCIe at the host link."""
        return self.peer_link_gbps if self.peer_link_gbps is not None else self.host_link_gbps

    @property
    def tensor_parallel(self) -> bool:
        """Tensor split over several devices, computed from its physics (no tp_scaling given)."""
        return self.devices > 1 and self.split == "tensor" and self.tp_scaling is None

    @property
    def allreduce_latency_s(self) -> float:
        """One all-reduce's synchronisation under tensor split: PCIe's, or a dedicated device link's."""
        return ALLREDUCE_PCIE_S if self.peer_link_gbps is None else ALLREDUCE_DEVICE_LINK_S

    @property
    def speedup(self) -> float:
        """What the fixed per-token times are divided by. Tensor split with a tp_scaling given: the
        single-stream multiple over one device, 1 + tp_scaling per added device (computed from its
        physics instead, each device keeps its fixed time and the all-reduces add theirs: 1). Layer
        split: a token passes every device in turn and each hand-off (a synchronisation and the
        activations' copy) adds LAYER_HOP_SHARE of one device's fixed time, so this falls below 1 while
        the bandwidth term stays one device's."""
        if self.devices == 1:
            return 1.0
        if self.split == "layer":
            return 1.0 / (1.0 + (self.devices - 1) * LAYER_HOP_SHARE)
        return 1.0 if self.tp_scaling is None else 1.0 + (self.devices - 1) * self.tp_scaling

    @property
    def _summed(self) -> int:
        """How many devices' rates add up: all of them under tensor split, one at a time under layer split."""
        return self.devices if self.split == "tensor" else 1

    @property
    def fast_bandwidth_gbps(self) -> float:
        """Datasheet bandwidth the weights stream from; tensor split adds the devices' bandwidth."""
        return self.bandwidth_gbps * self._summed

    @property
    def scaling_efficiency(self) -> float:
        """Realized share of the summed bandwidth under tensor split (1.0 for one device or layer split:
        there one device at a time reads its layers at its full bandwidth)."""
        if self.split == "layer" or self.devices == 1 or self.tp_scaling is None:
            return 1.0
        return self.speedup / self.devices

    @property
    def compute_tflops(self) -> float:
        return self.fp16_tflops * self._summed

    @property
    def compute_fp32_tflops(self) -> float | None:
        """The stated FP32 vector figure, summed like compute_tflops; None when not stated."""
        return None if self.fp32_tflops is None else self.fp32_tflops * self._summed

    @property
    def compute_int8_tops(self) -> float | None:
        """The INT8 figure the kernels reach, summed like compute_tflops; None when not known."""
        return None if self.int8_tops is None else self.int8_tops * self._summed
