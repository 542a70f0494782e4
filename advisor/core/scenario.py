"""The four panels' inputs as one validated, frozen scenario."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from advisor.core.base import Frozen
from advisor.core.efficiency import Backend, Engine
from advisor.core.hardware import Hardware
from advisor.core.model import ModelArch
from advisor.core.quant import KVPrecision, Quant

# Interactivity thresholds in tok/s, from the seeds: below 3 a stream feels broken, 5 is painful,
# 10 is fine for chat, 20 snappy, 50 and up instant.
DEFAULT_FEEL_THRESHOLDS: tuple[float, float, float, float] = (3.0, 10.0, 20.0, 50.0)


class Speculative(Frozen):
    enabled: bool = Field(False, title="Speculative decoding")
    draft_params_b: float = Field(
        0.5,
        ge=1e-9,
        le=1000,
        title="Draft size",
        json_schema_extra={"unit": "B"},
        description="Draft model parameters, billions (same quant as the target)",
    )
    draft_length: int = Field(
        4, ge=1, le=32, title="Draft length", description="Tokens the draft proposes per target pass"
    )
    acceptance: float = Field(
        0.7,
        ge=0,
        le=0.99,
        title="Acceptance rate",
        description="Chance each drafted token is accepted (high for code/JSON, low at high temperature)",
    )


class Workload(Frozen):
    """What runs on the machine. Rates and shares have physical lower bounds (1% of bandwidth or compute,
    0.01 tok/s), so every derived time stays finite."""

    context: int = Field(
        4096,
        ge=0,
        le=100_000_000,
        title="Context",
        json_schema_extra={"unit": "tokens"},
        description="Tokens already in the KV cache when generation runs (prompt included)",
    )
    prompt_tokens: int = Field(
        512,
        ge=0,
        le=100_000_000,
        title="Prompt",
        json_schema_extra={"unit": "tokens"},
        description="New tokens to prefill before the first output token",
    )
    output_tokens: int = Field(
        256,
        ge=0,
        le=10_000_000,
        title="Output",
        json_schema_extra={"unit": "tokens"},
        description="Tokens generated per response",
    )
    streams: int = Field(
        1, ge=1, le=65_536, title="Concurrent streams", description="Requests decoded together in one batch"
    )
    kv_cache: KVPrecision = Field(
        KVPrecision.F16, title="KV cache", description="Precision of the cached keys and values"
    )
    interactive_tok_s: float = Field(
        10.0,
        ge=0.01,
        le=100_000,
        title="Interactive threshold",
        json_schema_extra={"unit": "tok/s"},
        description="Per-stream decode speed that still counts as interactive",
    )
    efficiency: float | None = Field(
        None,
        ge=0.01,
        le=1,
        title="η decode",
        description="Share of bandwidth realized. Empty uses the model fitted to "
        "published measurements for this class and engine (η plus fixed "
        "per-token costs); a value means exactly η × ceiling",
    )
    compute_efficiency: float | None = Field(
        None, ge=0.01, le=1, title="η prefill", description="Share of peak compute realized by prefill"
    )
    engine: Engine = Field(Engine.LLAMA_CPP, title="Engine")
    backend: Backend | None = Field(
        None,
        title="Backend",
        description="llama.cpp's compute backend (CUDA, ROCm, Vulkan, Metal, SYCL, CPU). "
        "Empty uses the usual one for the hardware: CUDA on NVIDIA, ROCm on "
        "AMD, Metal on Apple, SYCL on Intel, CPU without a GPU",
    )
    flash_attention: bool = Field(
        True,
        title="Flash attention",
        description="llama.cpp's fused attention (-fa). Current builds use it wherever the "
        "backend can (auto: llama-server and llama-cli since Aug 2025, "
        "llama-bench since mid-2026; before that llama-bench defaulted "
        "to off). Off, attention runs as separate kernels per query "
        "head and long contexts slow decode much more",
    )
    sycl_f16: bool = Field(
        False,
        title="SYCL FP16 build",
        description="llama.cpp built with GGML_SYCL_F16=ON: SYCL prefills on the XMX matrix engines in FP16. "
        "Off (the default build and the Windows release), prefill's matmuls run in FP32 on the vector "
        "engines, about half as fast on an Arc card",
    )
    offload: Literal["layers", "experts", "kv", "auto"] = Field(
        "layers",
        title="Offload",
        description="Where things go when fast memory is full: whole layers with their KV cache (llama.cpp "
        "-ngl), MoE experts first (--n-cpu-moe / -ot exps=CPU), the KV cache in host RAM with the "
        "weights on the GPU (-nkvo), or auto: the fastest of these that fits (what --fit picks)",
    )
    gpu_layers: int | None = Field(
        None,
        ge=0,
        le=1000,
        title="GPU layers",
        description="Force N layers on the GPU (llama.cpp -ngl); empty fits as many as possible",
    )
    cpu_moe_layers: int | None = Field(
        None,
        ge=0,
        le=1000,
        title="CPU MoE layers",
        description="Keep the MoE experts of the first N layers in host RAM "
        "(llama.cpp --n-cpu-moe); empty lets placement decide",
    )
    threads: int | None = Field(
        None,
        ge=1,
        le=1024,
        title="Threads",
        description="CPU threads for host-resident work (llama.cpp -t); empty: the host's physical cores",
    )
    prefill_rate: float | None = Field(
        None,
        ge=0.01,
        le=1e9,
        title="Measured prefill",
        json_schema_extra={"unit": "tok/s"},
        description="A measured prefill rate instead of the compute estimate",
    )
    overhead_gb: float = Field(
        1.0,
        ge=0,
        le=10_000,
        title="Runtime overhead",
        json_schema_extra={"unit": "GB"},
        description="Memory the runtime takes besides weights and KV (context, buffers); an estimate",
    )
    min_bits: float = Field(
        3.5,
        ge=0,
        le=32,
        title="Quality floor",
        json_schema_extra={"unit": "bpw"},
        description="The recommender skips quants below this many bits per weight "
        "(IQ1/IQ2 lose too much quality for most uses)",
    )
    speculative: Speculative = Speculative()
    feel_thresholds: tuple[float, float, float, float] = DEFAULT_FEEL_THRESHOLDS

    @model_validator(mode="after")
    def _thresholds_ascend(self) -> Workload:
        t = self.feel_thresholds
        if any(not 0.01 <= x <= 100_000 for x in t) or list(t) != sorted(set(t)):
            raise ValueError("feel_thresholds must be four ascending tok/s values from 0.01 to 100,000")
        return self


class Scenario(Frozen):
    hardware: Hardware = Hardware()
    model: ModelArch = ModelArch()
    quant: Quant = Quant()
    workload: Workload = Workload()
