"""What the machine offers: memory pools, their bandwidths, compute, and how devices combine."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from advisor.core.base import Frozen


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


class Hardware(Frozen):
    """One machine: a fast pool (VRAM, the GPU's share of unified memory, or RAM for CPU-only)
    and, for discrete GPUs and the rest of unified memory, a slower host pool."""

    name: str = Field("Custom hardware", title="Name", max_length=200)
    kind: HardwareClass = Field(HardwareClass.DISCRETE_GPU, title="Class",
                                description="Discrete GPU, unified memory (Apple, Strix Halo) or CPU only")
    memory_gb: float | None = Field(24.0, gt=0, le=100_000, title="Memory", json_schema_extra={"unit": "GB"},
                                    description="Fast memory per device: VRAM, total unified memory, "
                                                "or system RAM for CPU only; empty when not known (whether "
                                                "a model fits is then not checked)")
    bandwidth_gbps: float = Field(1008.0, gt=0, le=100_000, title="Bandwidth", json_schema_extra={"unit": "GB/s"},
                                  description="Peak memory bandwidth of one device, from its datasheet")
    fp16_tflops: float = Field(165.0, gt=0, le=100_000, title="FP16 compute", json_schema_extra={"unit": "TFLOPS"},
                               description="Peak dense FP16/BF16 throughput of one device (no sparsity)")
    gpu_memory_fraction: float = Field(1.0, gt=0, le=1, title="GPU-usable share",
                                       description="Unified memory only: share of RAM the GPU may use "
                                                   "(macOS wires about 2/3 to 3/4 by default)")
    host_memory_gb: float = Field(DEFAULT_HOST_MEMORY_GB, ge=0, le=100_000, title="Host RAM",
                                  json_schema_extra={"unit": "GB"},
                                  description="System RAM beside a discrete GPU, where offloaded layers go")
    host_bandwidth_gbps: float = Field(DEFAULT_HOST_BANDWIDTH_GBPS, gt=0, le=100_000, title="Host bandwidth",
                                       json_schema_extra={"unit": "GB/s"},
                                       description="System RAM bandwidth (dual-channel DDR5 is about 80 GB/s)")
    host_link_gbps: float = Field(DEFAULT_HOST_LINK_GBPS, gt=0, le=10_000, title="Host link",
                                  json_schema_extra={"unit": "GB/s"},
                                  description="GPU to host link (PCIe 4.0 x16 is about 32 GB/s)")
    devices: int = Field(1, ge=1, le=64, title="Devices", description="How many identical devices")
    split: Literal["tensor", "layer"] = Field("layer", title="Split",
                                              description="tensor: devices share every layer "
                                                          "(adds speed and capacity); "
                                                          "layer: each device holds whole layers (adds capacity only)")
    tp_scaling: float = Field(0.4, ge=0, le=1, title="Tensor-parallel scaling",
                              description="Extra single-stream speed each added device gives under tensor split "
                                          "(0.4 makes two cards 1.4x one)")

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
    def speedup(self) -> float:
        """Single-stream speed multiple over one device: layer split adds none, tensor split adds tp_scaling each."""
        if self.split == "layer" or self.devices == 1:
            return 1.0
        return 1.0 + (self.devices - 1) * self.tp_scaling

    @property
    def fast_bandwidth_gbps(self) -> float:
        """Datasheet bandwidth the weights stream from; tensor split adds the devices' bandwidth."""
        return self.bandwidth_gbps * (self.devices if self.split == "tensor" else 1)

    @property
    def scaling_efficiency(self) -> float:
        """Realized share of the summed bandwidth under tensor split (1.0 for one device or layer split)."""
        n = self.devices if self.split == "tensor" else 1
        return self.speedup / n

    @property
    def compute_tflops(self) -> float:
        return self.fp16_tflops * (self.devices if self.split == "tensor" else 1)
