"""The realistic-speed model: fitted efficiencies and overhead terms per hardware class and engine.

A ceiling is bytes ÷ bandwidth. What engines really deliver was fitted to 300-odd published
llama.cpp, MLX and vLLM measurements (benchmarks/data/measurements.csv; `advisor validate` reports
the errors, `benchmarks/validate.py --write` refits and regenerates advisor.core.fitted, the module
that holds the fitted values; advisor.core.terms holds the types). Every term is a plain number with
a physical reading:

Decode, one step (B streams):

    t_step = max( W ÷ (BW·η) + max(κ·KV ÷ (BW·η), B·A ÷ (F·η_f)) + H ÷ (BW_host·η_host) + N_q·d ÷ F
                  + (B−1)·t_s [+ B·A ÷ (F·η_a) without flash attention] ,  B·FLOP ÷ (F·η_c) ) + t₀·L ÷ 32

On CPU cores the same threads load and multiply, so the two sides add instead of overlapping, and
attention is B·KV ÷ (threads × r_attn) on the memory side.

- η (`eta`): share of datasheet bandwidth realized while streaming weights W from fast memory.
- t₀ (`token_ms`): fixed time per step of a 32-layer model — kernel launches and each kernel's ramp
  and tail, synchronization, sampling; every layer runs the same kernels, so a model of L layers pays
  t₀ × L ÷ 32 (`T0_LAYERS`). It is why a small model on a fast GPU realizes a smaller share of its
  ceiling than a large one, and a deep one less than a shallow one of the same bytes. It is the
  value for a current llama.cpp build (2025 onward, `CURRENT_ERA`), which is what the app predicts
  for; measurements from older builds paid more of it per token, and the fit gives each older build
  era a factor on t₀ per backend (`era_token`, llama.cpp only; see `BuildEra`). It follows how the
  backend launches a token's kernels, not the memory: llama.cpp's CUDA backend captures them as one CUDA
  graph on any NVIDIA GPU, so a unified-memory one under CUDA (DGX Spark) pays the discrete class's t₀.
- κ (`kv_factor`): the KV cache read costs κ times its bytes at the weights' rate. On unified memory
  κ > 1 (attention kernels stream the cache less efficiently than a matrix-vector product streams
  weights); on discrete GPUs the measured contexts (to 64K) slowed decode less than the cache's bytes
  say (κ < 1). κ is the fused attention kernel's read: without flash attention the cache's bytes count
  once and the separate kernels' time is η_a's term. Where κ is also below the η in use, the realistic
  figure extrapolated far past them would overtake the bandwidth ceiling; roofline.solve stops it there.
- η_f (`fused_attn_eta`): the fused attention kernel also does the attention's arithmetic A (QKᵀ and AV
  for every query head), at this share of the FP16 peak; the kernel takes the longer of its cache read
  and that. It binds where many query heads share each cached row: MLA's one latent for all heads
  (GLM-4.7-Flash on an M2 Ultra slows with depth at about 2 TFLOP/s, 60 GB/s of cache), not GQA's groups
  of 2-8 (their depth costs follow the cache's bytes).
- d (`dequant_flop`): FLOP-equivalents per quantized weight to unpack it (N_q weights read from fast
  memory), at the vector ALUs' FP32 rate, where decode's matrix-vector kernels run (not the tensor or
  matrix units the FP16 figure counts: advisor.core.vector_units). It is why a 4-bit model realizes less
  of its ceiling than the same model at 16 bits, and most on GPUs with little vector compute per byte of
  bandwidth: a datacenter card whose FP16 figure is sixteen times its vector rate, an Arc card's eight.
- s (`stream_cost`): each stream beyond the first adds its own weight matmuls to the step, at s times
  their time at the FP16 peak (2 × active params ÷ F): small-batch kernels re-read and unpack the weights
  per stream from cache and realize a small share of the peak, so per-stream speed sags as the batch
  grows long before the step turns compute-bound, and more on a GPU with little compute per byte
  (an M2 Ultra) than on one with much (a DGX Spark); 0 where no batched measurements exist.
- η_a (`unfused_attn_eta`, one value for all groups): llama.cpp with flash attention off runs
  attention as separate kernels per *query* head; each step then also pays its attention FLOP A
  (4 × heads × head dim × layers × context per token) at this small share of the FP16 peak F. It is
  why 2024 builds (FA off) slowed with context 2–17 times faster than their KV bytes say, twice as
  fast per KV byte for Llama 3 70B (8 query heads per KV head) as for 8B (4). The workload's
  `flash_attention` (default on, as in current llama.cpp) switches it; MLX and vLLM always fuse.
- r_attn (`cpu_attn_gbps`): attention on CPU cores (a CPU-only machine, a KV cache or whole layers in
  host RAM) works through the cache at r_attn GB/s per thread: B × KV ÷ (threads × r_attn) per step,
  added to the cores' other work. llama.cpp's CPU kernel takes one cached token at a time, for all the
  query heads that share its K and V, so the time follows the cache's bytes, not the query heads' FLOP
  (Qwen3-30B-A3B, 32 query heads on 4 KV heads, slows with depth less per token than Llama 3.1 8B, 32
  on 8). A prompt's attention on the cores is not this walk: its micro-batch's queries share each K/V row,
  so it is FLOP at the cores' matmul rate, × α (advisor.core.prefill).
- η_host (HOST_ETA): share of host-RAM bandwidth realized for offloaded weights (read by the CPU).
- γ (EXPERT_SPREAD): with B streams an MoE step reads the experts of B^γ independent tokens; γ < 1
  because tokens in one batch favour the same experts.
- backend (llama.cpp only): CUDA, ROCm, Vulkan, Metal, SYCL or CPU. Each multiplies η (decode) and
  η_c (prefill) by its own factor, fitted where measurements name the backend and pulled toward 1
  as if by a few extra rows at 1.0 (advisor.validation.fit_params.BACKEND_PRIOR_ROWS), so a backend seen
  in three rows moves only part of the way.
  CUDA is the reference (1.0). A scenario without a backend uses the usual one for its hardware
  (`default_backend`: NVIDIA → CUDA, AMD → ROCm, Apple → Metal, Intel → SYCL, CPU only → CPU).
- s_SYCL (`sycl_plain_eta`): SYCL decodes most weight types from a layout it rewrites them into at load;
  a type without such a kernel (the i-quants, MXFP4; every type in builds before spring 2025) streams at
  s_SYCL × η, its KV cache at η (advisor.core.sycl_layout says which, build by build).
- η_f32 (`sycl_f32_eta`): a SYCL build without GGML_SYCL_F16 prefills in FP32 on the vector engines; its
  matmuls realize η_f32 of that rate (an eighth of an Arc card's FP16 figure), after unpacking the weights
  into a dense FP32 copy each micro-batch (advisor.core.sycl_prefill).
- generation (`generations`, by `generation_key`: the GPU architecture the hardware's name says,
  "Apple M3", "NVIDIA Ada", "AMD RDNA 3", ...): a factor on η shared by every chip of one architecture,
  fitted where training rows ran on it and pulled toward 1 like the backend factors
  (advisor.validation.fit_params.GENERATION_PRIOR_ROWS). A chip without published runs of its own gets its
  architecture's (an M3 Pro borrows what the M3 Max and M3 runs say; an RTX 4070 Ti, the other Ada cards').
  CPU-only machines and names that say no architecture use 1.0.
- machine (`machines`, by `machine_key`: the hardware's name without its memory size, and its
  bandwidth): a chip with published runs among the training rows gets its own factor on η, the share
  of its class's and architecture's realized bandwidth this chip and its memory system deliver (the M1
  Max streams less of its 400 GB/s than the M3 Max does of the same figure). Memory sizes of one chip
  share it (the M2 Ultra 76-core with 128 or 192 GB). Each is pulled toward 1 as if by MACHINE_PRIOR_ROWS extra rows at
  1.0 (advisor.validation.fit_params), so a chip seen in one run moves a fifth of the way it points.
  Chips without published runs, custom hardware and a catalog entry whose bandwidth was edited use 1.0.

Prefill: prompt × (2·N + α·attention FLOP) ÷ (F · η_c · q · m), plus offloaded weights crossing
the host link once per 512-token micro-batch:

- η_c (`eta`): share of FP16 peak; q (`quant_factor`): quantized weights' rate against F16 (below 1 on a
  GPU, which unpacks them; up to 4 on CPU cores, whose int8 dot products also set decode's arithmetic there);
  α (`attn_factor`): attention FLOP cost α times their count; m (`moe_factor`): MoE experts see
  few tokens each, so their matmuls are less efficient.

An explicit efficiency from the user switches all of this off: the figure is then plain
η × ceiling (and plain compute η for prefill), as in the seeds' worked examples.

Classes and engines the data do not cover keep the flat defaults (`FLAT`, `fitted = False`).
`band` is the spread the validation found: the 10th and 90th percentile of measured ÷ predicted
decode over that group's rows; realistic figures are drawn and printed with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.core.fitted import (
    FITTED_BACKENDS,
    FITTED_CPU_ATTN_GBPS,
    FITTED_ERA_TOKEN,
    FITTED_EXPERT_SPREAD,
    FITTED_FUSED_ATTN_ETA,
    FITTED_GENERATIONS,
    FITTED_HOST_ETA,
    FITTED_MACHINES,
    FITTED_MOE_TOKEN,
    FITTED_NOTES,
    FITTED_SYCL_F32_ETA,
    FITTED_SYCL_PLAIN_ETA,
    FITTED_TERMS,
    FITTED_UNFUSED_ATTN_ETA,
    FITTED_VULKAN_PREFILL,
)
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.hardware_keys import generation_key, machine_key, vulkan_generation_key, vulkan_vendor
from advisor.core.terms import (
    NO_BACKEND_TERMS,
    NO_MACHINE_TERMS,
    Backend,
    BackendTerms,
    BuildEra,
    ClassTerms,
    DecodeTerms,
    Engine,
    MachineTerms,
    PrefillTerms,
)


@dataclass(frozen=True)
class Calibration:
    terms: dict[tuple[HardwareClass, Engine], ClassTerms]
    host_eta: float = 0.60
    expert_spread: float = 1.0
    name: str = "fitted"
    notes: tuple[str, ...] = field(default_factory=tuple)
    backends: dict[Backend, BackendTerms] = field(default_factory=dict)  # absent: 1.0
    unfused_attn_eta: float = 0.0  # η_a: attention without flash attention (llama.cpp); 0: not modelled
    fused_attn_eta: float = 0.0  # η_f: a fused attention kernel's arithmetic in decode; 0: its bytes only
    # GB/s of KV cache one CPU thread attends over (a CPU-only machine's cores, or a KV cache in host RAM):
    # llama.cpp's CPU attention walks the cache one cached token at a time (its K and V rows, an online
    # softmax step), for all the query heads sharing them, so its time goes with the cache's bytes and the
    # threads, not with the query heads' FLOP or the memory bus (inf: free).
    cpu_attn_gbps: float = math.inf
    # t₀ of a llama.cpp build of another era on a backend = era_token[(era, backend)] × t₀ (t₀ is the
    # current era's); absent: 1.0. Per backend, because what a year of builds changed differs by backend
    # (CUDA graphs on CUDA; each backend's own launch and synchronization work). Only the validation uses
    # it (it knows each measurement's build); the app predicts a current build.
    era_token: dict[tuple[BuildEra, Backend], float] = field(default_factory=dict)
    # t₀ of a mixture-of-experts model = moe_token × t₀: each layer also runs the router, its top-k and
    # the expert gather, kernels a dense layer does not have (llama.cpp; 1.0: not modelled).
    moe_token: float = 1.0
    # chips' own factors, by machine_key; absent: 1.0
    machines: dict[str, MachineTerms] = field(default_factory=dict)
    # GPU architectures' factors, by generation_key; absent: 1.0
    generations: dict[str, MachineTerms] = field(default_factory=dict)
    # prefill's factor under Vulkan by GPU vendor (vulkan_vendor): each vendor's driver gives its matmuls
    # another path to the matrix units (NVIDIA's cooperative matrix 2, AMD's and Intel's KHR one); absent: 1.0
    vulkan_prefill: dict[str, float] = field(default_factory=dict)
    # the weights' share of decode η where llama.cpp's SYCL backend reads their type from the plain block
    # layout, no reordered kernel for it (advisor.core.sycl_layout); 1.0: not modelled
    sycl_plain_eta: float = 1.0
    # the share of the FP32 vector rate SYCL's FP32 prefill matmuls realize (advisor.core.sycl_prefill)
    sycl_f32_eta: float = 1.0

    def get(self, kind: HardwareClass, engine: Engine) -> ClassTerms:
        return self.terms[(kind, engine)]

    def backend(self, engine: Engine, backend: Backend) -> BackendTerms:
        """The backend's factors; 1.0 for engines other than llama.cpp (MLX and vLLM bring their own)."""
        if engine is not Engine.LLAMA_CPP:
            return NO_BACKEND_TERMS
        return self.backends.get(backend, NO_BACKEND_TERMS)

    def token_factor(
        self, engine: Engine, era: BuildEra | None, backend: Backend | None, graphless: bool = False
    ) -> float:
        """Factor on t₀ for a llama.cpp build of `era` on `backend` (1.0 for the current era, an unknown
        build or backend, and other engines). `graphless`: a CUDA step that ran without CUDA graphs (a
        batched step before they covered batches) pays what builds before CUDA graphs paid."""
        if engine is not Engine.LLAMA_CPP or backend is None:
            return 1.0
        if graphless and backend is Backend.CUDA:
            era = BuildEra.BEFORE_2024_05
        return 1.0 if era is None else self.era_token.get((era, backend), 1.0)

    def machine(self, hw: Hardware) -> MachineTerms:
        """The machine's own factor (1.0 for chips without published runs and custom hardware)."""
        return self.machines.get(machine_key(hw), NO_MACHINE_TERMS)

    def generation(self, hw: Hardware) -> MachineTerms:
        """The hardware's GPU architecture's factor (1.0 where no runs of it were fitted, or no
        architecture is known)."""
        key = generation_key(hw)
        return self.generations.get(key, NO_MACHINE_TERMS) if key is not None else NO_MACHINE_TERMS

    def vulkan_generation(self, hw: Hardware, backend: Backend | None) -> MachineTerms:
        """The architecture's own factor under Vulkan (1.0 for other backends, and where none was fitted)."""
        key = vulkan_generation_key(hw) if backend is Backend.VULKAN else None
        return self.generations.get(key, NO_MACHINE_TERMS) if key is not None else NO_MACHINE_TERMS

    def vulkan_prefill_factor(self, hw: Hardware, backend: Backend | None) -> float:
        """Prefill's factor for the GPU's vendor under Vulkan (1.0 for other backends and unfitted vendors)."""
        vendor = vulkan_vendor(hw) if backend is Backend.VULKAN else None
        return self.vulkan_prefill.get(vendor, 1.0) if vendor is not None else 1.0

    def hardware_factor(self, hw: Hardware, backend: Backend | None = None) -> float:
        """The factor on η the hardware itself carries: its architecture's (and, under Vulkan, the
        architecture's Vulkan factor) times its chip's own."""
        return self.generation(hw).decode * self.vulkan_generation(hw, backend).decode * self.machine(hw).decode

    def decode_eta(
        self, kind: HardwareClass, engine: Engine, backend: Backend | None = None, hw: Hardware | None = None
    ) -> float:
        """The fitted decode η: the class's, times the backend's factor, the architecture's and the
        machine's own where given. No memory system delivers more than its datasheet bandwidth, so it
        stops at 1."""
        b = self.backend(engine, backend).decode if backend is not None else 1.0
        own = self.hardware_factor(hw, backend) if hw is not None else 1.0
        return min(self.get(kind, engine).decode.eta * b * own, 1.0)

    def token_ms(self, kind: HardwareClass, engine: Engine, backend: Backend | None) -> float:
        """t₀ for the hardware class, except that llama.cpp's CUDA backend launches a token's kernels as one
        CUDA graph on any NVIDIA GPU, unified memory (DGX Spark, Jetson) included: it takes the discrete
        class's t₀ there, not the Metal-measured unified one."""
        discrete = (HardwareClass.DISCRETE_GPU, engine)
        graphs = kind is HardwareClass.UNIFIED and engine is Engine.LLAMA_CPP and backend is Backend.CUDA
        return self.terms[discrete if graphs and discrete in self.terms else (kind, engine)].decode.token_ms

    def moe_factor(self, engine: Engine, moe: bool) -> float:
        """Factor on t₀ for a mixture-of-experts model under llama.cpp (1.0 for dense models and other
        engines)."""
        return self.moe_token if moe and engine is Engine.LLAMA_CPP else 1.0


def _flat(decode: float, low: float, high: float, compute: float) -> ClassTerms:
    return ClassTerms(DecodeTerms(eta=decode, band=(low / decode, high / decode)), PrefillTerms(eta=compute))


D, U, C = HardwareClass.DISCRETE_GPU, HardwareClass.UNIFIED, HardwareClass.CPU
L, V, X = Engine.LLAMA_CPP, Engine.VLLM, Engine.MLX

# The flat η roofline: one η per class and engine, its band, no overhead terms. It is the baseline
# `advisor validate` compares against, and the terms of groups without measurements.
FLAT = Calibration(
    name="flat η",
    host_eta=0.60,
    expert_spread=1.0,
    terms={
        (D, L): _flat(0.70, 0.60, 0.75, 0.50),
        (D, V): _flat(0.80, 0.70, 0.85, 0.60),
        (D, X): _flat(0.70, 0.60, 0.75, 0.50),
        (U, L): _flat(0.65, 0.55, 0.75, 0.50),
        (U, V): _flat(0.65, 0.55, 0.75, 0.50),
        (U, X): _flat(0.72, 0.60, 0.80, 0.55),
        (C, L): _flat(0.60, 0.45, 0.70, 0.40),
        (C, V): _flat(0.55, 0.40, 0.65, 0.40),
        (C, X): _flat(0.60, 0.45, 0.70, 0.40),
    },
)

CALIBRATION = Calibration(
    terms={**FLAT.terms, **FITTED_TERMS},
    host_eta=FITTED_HOST_ETA,
    expert_spread=FITTED_EXPERT_SPREAD,
    name="fitted",
    notes=FITTED_NOTES,
    backends=FITTED_BACKENDS,
    unfused_attn_eta=FITTED_UNFUSED_ATTN_ETA,
    fused_attn_eta=FITTED_FUSED_ATTN_ETA,
    cpu_attn_gbps=FITTED_CPU_ATTN_GBPS,
    era_token=FITTED_ERA_TOKEN,
    moe_token=FITTED_MOE_TOKEN,
    machines=FITTED_MACHINES,
    generations=FITTED_GENERATIONS,
    vulkan_prefill=FITTED_VULKAN_PREFILL,
    sycl_plain_eta=FITTED_SYCL_PLAIN_ETA,
    sycl_f32_eta=FITTED_SYCL_F32_ETA,
)


def terms_for(kind: HardwareClass, engine: Engine, calibration: Calibration | None = None) -> ClassTerms:
    return (calibration or CALIBRATION).get(kind, engine)
