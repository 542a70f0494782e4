"""The parameters the fit can free, and how their values write into a Calibration.

Which terms are free depends on the data: a class × engine group needs `MIN_ROWS` rows of a test
to get its own η (and t₀); class-wide terms (κ, d, η_batch, q, α) need rows that show them
(contexts that vary, quantized and 16-bit weights, batches); MoE and host terms are shared by all
groups. Everything else keeps the base calibration's value (the flat defaults).

Backends (llama.cpp's CUDA, ROCm, Vulkan, Metal, ...) get a factor on η and on η_c wherever training
rows run them, CUDA excepted (the reference, 1.0). Each factor is pulled toward 1 as if
BACKEND_PRIOR_ROWS more rows had measured exactly 1.0 (under the same robust loss): a backend seen
in a handful of rows moves only part of the way its rows point, one seen in dozens nearly all of it.

Build eras (terms.BuildEra, from a row's `build_date`): llama.cpp rows from builds of an era other
than the current one get a factor on t₀ (the fixed time per token: kernel launches and
synchronization, which older builds paid more of), with the weak pull toward 1 that t₀ itself has
(ERA_PRIOR_ROWS). t₀ is then the current era's, the one the app uses; rows whose source does not
date the build count as current.

Generations: each GPU architecture (hardware_keys.generation_key: Apple M1…M4, NVIDIA Ampere/Ada/Blackwell,
AMD RDNA 2/3/4, ...) with training decode rows gets a factor on η (GENERATION_PRIOR_ROWS pseudo-rows at
1.0 behind it), what the runs say about that architecture beyond its class and backend. A chip without runs
of its own then borrows it; cross-validation by configuration tests exactly that.

Machines: each catalog machine with training decode rows gets a factor on η (MACHINE_PRIOR_ROWS
pseudo-rows at 1.0 behind it), what published runs say about that one chip's memory system beyond its
class and backend. Held-out configurations on the same machine (another model, another quant) then
test whether it carries over, which is what a user asking about a new model on a machine with
published runs gets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import Calibration
from advisor.core.hardware import HardwareClass
from advisor.core.hardware_keys import generation_key, vulkan_generation_key, vulkan_vendor
from advisor.core.hardware_keys import machine_key as chip_key
from advisor.core.inputs import attention_unfused, backend_in_use
from advisor.core.matrix_units import int8_tops_in_use
from advisor.core.prefill import CPU_INT8_LANES
from advisor.core.roofline_inputs import quantized
from advisor.core.sycl_layout import plain_layout, weight_type
from advisor.core.sycl_prefill import attention_share, f32_matmul_share
from advisor.core.terms import CUDA_BATCHED_GRAPHS_SINCE, CURRENT_ERA, Backend, BuildEra, Engine
from advisor.validation.cases import Case
from advisor.validation.sources import source_of

MIN_ROWS = 8  # rows a group needs before it gets terms of its own
BACKEND_PRIOR_ROWS = 4.0  # pseudo-rows at factor 1.0 behind every backend factor (shrinkage)
# Build eras' factors on t₀ get only the weak pull every parameter gets (fit.PRIOR_WEIGHT), as t₀ itself
# does: t₀ is 10-30 % of a step, so a factor on it moves a row's prediction several times less than a
# backend's factor on η does, and BACKEND_PRIOR_ROWS pseudo-rows would hold it near 1 whatever its rows say.
ERA_PRIOR_ROWS = 0.0
# pseudo-rows at factor 1.0 behind every chip's own factor, the backend factors' pull: cross-validation by
# configuration (docs/accuracy.md) finds 2 and 4 about equally good and 8 worse, and with 4 one run moves
# a chip only a fifth of the way it points.
MACHINE_PRIOR_ROWS = 4.0
# pseudo-rows at 1.0 behind every architecture's factor, the backend and machine factors' pull
# (cross-validation by configuration finds 4 at least as good as 2 and 8; docs/accuracy.md).
GENERATION_PRIOR_ROWS = 4.0
REFERENCE_BACKEND = Backend.CUDA  # its factors stay 1.0: the class η is CUDA's

Group = tuple[HardwareClass, Engine]
Transform = Literal["share", "positive"]


@dataclass(frozen=True)
class Param:
    name: str
    term: str  # DecodeTerms / PrefillTerms attribute, or "host_eta" / "expert_spread"
    groups: tuple[Group, ...]  # where it applies; () = global
    transform: Transform
    default: float
    lo: float
    hi: float
    prior_rows: float = 0.0  # > 0: pulled toward `default` like this many rows measured there (same loss)
    backend: Backend | None = None  # for "backend.decode" / "backend.prefill"
    era: BuildEra | None = None  # for "era_token"
    # for "machine": the catalog hardware name; "generation": the architecture; "vulkan_prefill": the vendor
    machine: str | None = None

    def value(self, x: float) -> float:
        if self.transform == "share":
            return self.lo + (self.hi - self.lo) / (1.0 + np.exp(-x))
        return float(np.clip(self.default * np.exp(x), self.lo, self.hi))

    def start(self) -> float:
        if self.transform == "share":
            p = (self.default - self.lo) / (self.hi - self.lo)
            p = min(max(p, 1e-3), 1 - 1e-3)
            return float(np.log(p / (1 - p)))
        return 0.0


def group_of(c: Case) -> Group:
    return (c.hw_class, c.engine)


def backend_of(c: Case) -> Backend | None:
    """The llama.cpp backend a case runs (None for MLX and vLLM, which have no backend factor)."""
    return backend_in_use(c.scenario) if c.engine is Engine.LLAMA_CPP else None


def rows_of(cases: Sequence[Case], test: str, where: Callable[[Case], bool] = lambda c: True) -> list[Case]:
    return [c for c in cases if c.test == test and where(c)]


def decode_params(train: Sequence[Case], base: Calibration, min_rows: int = MIN_ROWS) -> list[Param]:
    tg = rows_of(train, "tg")
    fitted = sorted({group_of(c) for c in tg if sum(group_of(d) == group_of(c) for d in tg) >= min_rows})
    params: list[Param] = []
    for g in fitted:
        d = base.get(*g).decode
        label = f"{g[0].value}/{g[1].value}"
        params.append(Param(f"eta[{label}]", "decode.eta", (g,), "share", d.eta, 0.2, 1.0))
        params.append(Param(f"token_ms[{label}]", "decode.token_ms", (g,), "positive", 1.0, 0.0, 50.0))
    for kind in sorted({g[0] for g in fitted}):
        in_class = tuple(g for g in fitted if g[0] is kind)
        rows = [c for c in tg if group_of(c) in in_class]
        contexts = {c.scenario.workload.context for c in rows}
        # on a CPU the cost of depth is attention on the cores (cpu_attn_gbps); its KV bytes are bytes
        if len(contexts) >= 3 and kind is not HardwareClass.CPU:
            params.append(Param(f"kv_factor[{kind.value}]", "decode.kv_factor", in_class, "positive", 1.0, 0.2, 8.0))
        bits = {c.scenario.quant.bits_per_weight >= 15.9 for c in rows}
        if bits == {True, False}:
            params.append(
                Param(f"dequant_flop[{kind.value}]", "decode.dequant_flop", in_class, "positive", 2.0, 0.0, 200.0)
            )
        if sum(c.row.batch > 1 for c in rows) >= 4:
            params.append(
                Param(f"stream_cost[{kind.value}]", "decode.stream_cost", in_class, "positive", 2.0, 0.0, 50.0)
            )
    if sum(c.kind == "offload" for c in tg) >= min_rows:
        params.append(Param("host_eta", "host_eta", (), "share", base.host_eta, 0.1, 1.0))
    if sum(c.moe and c.row.batch > 1 for c in tg) >= 3:
        params.append(Param("expert_spread", "expert_spread", (), "share", 0.8, 0.2, 1.0))
    unfused = [c for c in tg if runs_unfused(c)]
    if len(unfused) >= min_rows and len({c.scenario.workload.context for c in unfused}) >= 3:
        params.append(Param("unfused_attn_eta", "unfused_attn_eta", (), "positive", 0.02, 1e-3, 1.0))
    fused = [c for c in tg if not runs_unfused(c) and c.scenario.hardware.kind is not HardwareClass.CPU]
    if len(fused) >= min_rows and len({c.scenario.workload.context for c in fused}) >= 3:
        params.append(Param("fused_attn_eta", "fused_attn_eta", (), "positive", 0.1, 0.01, 1.0))
    plain = [c for c in tg if plain_layout_case(c)]
    if len(plain) >= 3 and len({source_of(c.row.source_url) for c in plain}) >= MIN_FACTOR_SOURCES:
        params.append(Param("sycl_plain_eta", "sycl_plain_eta", (), "share", 0.6, 0.1, 1.0))
    if sum(attention_on_cores(c) for c in tg) >= 3:
        params.append(Param("cpu_attn_gbps", "cpu_attn_gbps", (), "positive", 1.0, 0.05, 50.0))
    params += backend_params([c for c in tg if group_of(c) in fitted], "decode")  # a flat group takes no factor
    params += era_params(tg)
    params += generation_params([c for c in tg if group_of(c) in fitted])
    params += machine_params([c for c in tg if group_of(c) in fitted])
    if sum(c.moe and c.engine is Engine.LLAMA_CPP for c in tg if group_of(c) in fitted) >= min_rows:
        params.append(Param("moe_token", "moe_token", (), "positive", 1.0, 0.2, 10.0))
    return params


@cache
def catalog_chips() -> frozenset[str]:
    """The machine keys of the shipped catalog's hardware: the chips a user can pick."""
    return frozenset(chip_key(to_hardware(e)) for e in shipped_catalog().hardware.values())


def catalog_chip(c: Case) -> str | None:
    """The catalog chip a row ran on (hardware_keys.machine_key), None for a chip no catalog entry has
    (a hardware_specs.csv line of another chip): the app can only apply a factor to a chip a user can
    pick. A specs line of a catalog chip with another memory size counts for that chip."""
    key = chip_key(c.scenario.hardware)
    return key if key in catalog_chips() else None


# A chip's or an era's own factor is freed only where its rows come from at least this many independent
# sources (advisor.validation.sources): with one, the factor would learn that source's build and method,
# not the chip; the chip then takes its architecture's factor, and an era the current one's t₀.
MIN_FACTOR_SOURCES = 2


def _sources_by(rows: Sequence[Case], key: Callable[[Case], str | None]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for c in rows:
        if (k := key(c)) is not None:
            found.setdefault(k, set()).add(source_of(c.row.source_url))
    return found


def machine_params(rows: Sequence[Case]) -> list[Param]:
    """One factor on η per catalog machine the rows ran on, from at least MIN_FACTOR_SOURCES sources,
    shrunk toward 1."""
    seen = sorted(k for k, srcs in _sources_by(rows, catalog_chip).items() if len(srcs) >= MIN_FACTOR_SOURCES)
    return [
        Param(f"machine_eta[{k}]", "machine", (), "positive", 1.0, 0.3, 2.0, prior_rows=MACHINE_PRIOR_ROWS, machine=k)
        for k in seen
    ]


def vulkan_key_of(c: Case) -> str | None:
    """The key of the architecture's Vulkan factor a row carries (None off Vulkan or without an architecture)."""
    return vulkan_generation_key(c.scenario.hardware) if backend_of(c) is Backend.VULKAN else None


def generation_of(c: Case) -> list[str]:
    """The architecture factors a row carries: its architecture's, and under Vulkan its Vulkan one."""
    return [k for k in (generation_key(c.scenario.hardware), vulkan_key_of(c)) if k is not None]


def generation_params(rows: Sequence[Case]) -> list[Param]:
    """One factor on η per GPU architecture the rows ran on, shrunk toward 1; and one per architecture's
    Vulkan runs where they come from at least MIN_FACTOR_SOURCES sources."""
    native = {generation_key(c.scenario.hardware) for c in rows} - {None}
    vulkan = {k for k, srcs in _sources_by(rows, vulkan_key_of).items() if len(srcs) >= MIN_FACTOR_SOURCES}
    seen = sorted({g for g in native if g is not None} | vulkan)
    return [
        Param(
            f"generation_eta[{g}]",
            "generation",
            (),
            "positive",
            1.0,
            0.3,
            2.0,
            prior_rows=GENERATION_PRIOR_ROWS,
            machine=g,
        )
        for g in seen
    ]


def era_params(rows: Sequence[Case]) -> list[Param]:
    """One factor on t₀ per build era and backend the llama.cpp rows come from (the current era excepted),
    shrunk toward 1: a backend's older builds on one source alone would teach the factor that source's
    machine and build, not the era."""

    def era_of(c: Case) -> str | None:
        b = backend_of(c)
        if c.engine is not Engine.LLAMA_CPP or c.era is None or c.era is CURRENT_ERA or b is None:
            return None
        return f"{c.era.value}|{b.value}"

    keys = [k.split("|") for k, srcs in _sources_by(rows, era_of).items() if len(srcs) >= MIN_FACTOR_SOURCES]
    seen = sorted(((BuildEra(e), Backend(b)) for e, b in keys), key=era_order)
    return [
        Param(
            f"era_token[{e.value}, {b.value}]",
            "era_token",
            (),
            "positive",
            1.0,
            1.0,  # a later build does not add fixed time: rows faster than the current t₀ say it is the machine's
            5.0,
            prior_rows=ERA_PRIOR_ROWS,
            era=e,
            backend=b,
        )
        for e, b in seen
    ]


def era_order(key: tuple[BuildEra, Backend]) -> tuple[int, int]:
    return list(BuildEra).index(key[0]), list(Backend).index(key[1])


def attention_on_cores(c: Case) -> bool:
    """Attention over a real context on CPU cores: a CPU-only run at depth, or the KV cache in host RAM."""
    w = c.scenario.workload
    on_cpu = c.hw_class is HardwareClass.CPU and w.context > 0
    return c.engine is Engine.LLAMA_CPP and (on_cpu or w.offload == "kv")


def on_int8(c: Case) -> bool:
    """A quantized prefill row whose matmuls run on INT8 matrix units (advisor.core.inputs.int8_tops_in_use)."""
    return bool(quantized(c.scenario.quant.bytes_per_weight)) and int8_tops_in_use(c.scenario) > 0


def case_weight_type(c: Case) -> str | None:
    """The ggml weight type a row ran: its quant column's, else its model name's (a row that prints its
    file's quant, "IQ3_XS GGUF"), else the scenario quant's."""
    return weight_type(c.row.quant) or weight_type(c.row.model_name) or weight_type(c.scenario.quant.name)


def plain_layout_case(c: Case) -> bool:
    """A row whose SYCL build decoded its weights from the plain block layout (advisor.core.sycl_layout)."""
    return plain_layout(backend_of(c), c.engine, case_weight_type(c), c.moe, c.row.build_date)


def case_layouts(cases: Sequence[Case], cal: Calibration) -> NDArray[np.float64]:
    """Each row's weights' share of η for its own build (the solver's `layout_eta`)."""
    return np.array([cal.sycl_plain_eta if plain_layout_case(c) else 1.0 for c in cases], dtype=float)


def graphless(c: Case) -> bool:
    """A batched CUDA decode row from a build whose CUDA graphs covered one token per step only."""
    dated = bool(c.row.build_date) and c.row.build_date < CUDA_BATCHED_GRAPHS_SINCE
    return c.test == "tg" and c.row.batch > 1 and dated and backend_of(c) is Backend.CUDA


def case_token_factors(cases: Sequence[Case], cal: Calibration) -> NDArray[np.float64]:
    """Each row's factor on t₀ for its own build: its era's, or the graphless one for a batched CUDA step."""
    return np.array([cal.token_factor(c.engine, c.era, backend_of(c), graphless(c)) for c in cases], dtype=float)


def case_attn_shares(cases: Sequence[Case]) -> NDArray[np.float64]:
    """Each row's prefill attention share of the FP16 figure for its own build (the solver's `attn_flops_share`)."""
    return np.array([attention_share(c.scenario, c.row.build_date) for c in cases], dtype=float)


def runs_unfused(c: Case) -> bool:
    """llama.cpp run without flash attention (its attention then runs as separate kernels)."""
    return attention_unfused(c.scenario)


def backend_params(rows: Sequence[Case], part: Literal["decode", "prefill"]) -> list[Param]:
    """One factor per backend the rows run (the reference backend excepted), shrunk toward 1."""
    seen = sorted({b for c in rows if (b := backend_of(c)) is not None and b is not REFERENCE_BACKEND})
    label = "eta" if part == "decode" else "compute_eta"
    return [
        Param(
            f"backend_{label}[{b.value}]",
            f"backend.{part}",
            (),
            "positive",
            1.0,
            0.3,
            2.0,
            prior_rows=BACKEND_PRIOR_ROWS,
            backend=b,
        )
        for b in seen
    ]


def prefill_params(train: Sequence[Case], base: Calibration, min_rows: int = MIN_ROWS) -> list[Param]:
    pp = rows_of(train, "pp")
    fitted = sorted({group_of(c) for c in pp if sum(group_of(d) == group_of(c) for d in pp) >= min_rows})
    params: list[Param] = []
    for g in fitted:
        p = base.get(*g).prefill
        params.append(Param(f"compute_eta[{g[0].value}/{g[1].value}]", "prefill.eta", (g,), "share", p.eta, 0.02, 1.0))
    for kind in sorted({g[0] for g in fitted}):
        in_class = tuple(g for g in fitted if g[0] is kind)
        rows = [c for c in pp if group_of(c) in in_class]
        if {c.scenario.quant.bits_per_weight >= 15.9 for c in rows} == {True, False}:
            # a GPU unpacks quantized weights on its way to FP16 units (at most its F16 rate); CPU cores multiply
            # them on int8 dot products, up to CPU_INT8_LANES times the FP32 rate
            top = CPU_INT8_LANES if kind is HardwareClass.CPU else 1.0
            params.append(
                Param(f"quant_factor[{kind.value}]", "prefill.quant_factor", in_class, "share", 0.8, 0.1, top)
            )
        if sum(on_int8(c) for c in rows) >= min_rows:
            params.append(Param(f"int8_factor[{kind.value}]", "prefill.int8_factor", in_class, "share", 0.3, 0.02, 1.0))
        # on CPU cores α is prefill's cost of walking the cache per prompt token against decode's (r_attn)
        if len({(c.row.prompt_tokens, c.row.depth) for c in rows}) >= 3:
            params.append(
                Param(f"attn_factor[{kind.value}]", "prefill.attn_factor", in_class, "positive", 1.0, 0.1, 20.0)
            )
    fitted_all = tuple(fitted)
    if sum(c.moe for c in pp if group_of(c) in fitted_all) >= 3:
        params.append(Param("moe_factor", "prefill.moe_factor", fitted_all, "share", 0.5, 0.05, 1.0))
    f32 = [c for c in pp if group_of(c) in fitted_all and f32_matmul_share(c.scenario) > 0]
    if len(f32) >= 3 and len({source_of(c.row.source_url) for c in f32}) >= MIN_FACTOR_SOURCES:
        params.append(Param("sycl_f32_eta", "sycl_f32_eta", (), "share", 0.7, 0.1, 1.0))
    params += backend_params([c for c in pp if group_of(c) in fitted_all], "prefill")
    params += vulkan_prefill_params([c for c in pp if group_of(c) in fitted_all])
    return params


def vulkan_prefill_params(rows: Sequence[Case]) -> list[Param]:
    """One prefill factor per GPU vendor whose Vulkan runs come from at least MIN_FACTOR_SOURCES sources,
    shrunk toward 1 like the backends'."""

    def vendor_of(c: Case) -> str | None:
        return vulkan_vendor(c.scenario.hardware) if backend_of(c) is Backend.VULKAN else None

    seen = sorted(k for k, srcs in _sources_by(rows, vendor_of).items() if len(srcs) >= MIN_FACTOR_SOURCES)
    return [
        Param(f"vulkan_prefill[{v}]", "vulkan_prefill", (), "positive", 1.0, 0.1, 10.0, BACKEND_PRIOR_ROWS, machine=v)
        for v in seen
    ]
