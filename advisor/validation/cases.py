"""Measurement rows turned into what the core can predict: a `Case` (a Scenario plus what was measured
and how to compare), a `Skip` with the reason a row cannot be predicted honestly, or an `Excluded`
for a row the file marks as not representative. Rows are split into training and held-out parts by
configuration (`held_out`)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from advisor.catalog.loader import Catalog
from advisor.core.hardware import HardwareClass
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import BuildEra, Engine, build_era
from advisor.validation.measurements import ALL_LAYERS, HardwareSpec, Measurement
from advisor.validation.resolve import row_bits, row_hardware, row_model, row_quant

Kind = Literal["depth 0", "depth sweep", "offload", "batch"]
KINDS: tuple[Kind, ...] = ("depth 0", "depth sweep", "offload", "batch")


@dataclass(frozen=True)
class Case:
    """A row the core can predict."""

    row: Measurement
    scenario: Scenario
    kind: Kind
    moe: bool
    hw_class: HardwareClass
    engine: Engine
    aggregate: bool  # tok_s counts all streams together
    held_out: bool
    caveats: tuple[str, ...] = ()

    @property
    def test(self) -> Literal["tg", "pp"]:
        return self.row.test

    @property
    def measured(self) -> float:
        return self.row.tok_s

    @property
    def era(self) -> BuildEra | None:
        """The build era of the row's build (None when the source does not date the build)."""
        return build_era(self.row.build_date)


@dataclass(frozen=True)
class Skip:
    row: Measurement
    reason: str


@dataclass(frozen=True)
class Excluded:
    """A row marked in the file as not representative (its `exclude_reason`); `case` is its scenario
    when one can be built (so `validate` can still show how far off it lands), else None."""

    row: Measurement
    reason: str
    case: Case | None


def config_key(row: Measurement) -> str:
    """A row's configuration (machine × GPU count × model × quant × bits × engine): the unit every
    split of the rows keeps whole (the held-out split here, the cross-validation folds in cv.py)."""
    return "|".join(
        (
            row.hardware_name,
            str(row.gpus),
            row.model_name,
            row.quant,
            "" if row.bits_per_weight is None else f"{row.bits_per_weight:g}",
            row.engine,
        )
    )


def held_out(row: Measurement) -> bool:
    """Deterministic split by configuration (machine × model × quant × engine), not by row: the tg512
    and tg1024 of one configuration land on the same side, so the held-out part is never a near copy
    of something the fit saw. About 30 % is held out."""
    return int(hashlib.sha256(config_key(row).encode()).hexdigest(), 16) % 10 < 3


_THREADS = re.compile(r"(?<![\w-])-t (\d{1,4})\b|\bthreads[ =:]+(\d{1,4})\b|\b(\d{1,4}) (?:physical )?cores\b", re.I)


def row_threads(row: Measurement) -> int | None:
    """The CPU threads a row's host-resident work ran on, where its notes say (-t N, threads N, N cores)."""
    m = _THREADS.search(row.notes)
    if m is None:
        return None
    return int(next(g for g in m.groups() if g is not None))


def row_kind(row: Measurement, offloaded: bool) -> Kind:
    """Exclusive kinds, most specific first: offload, batch, depth sweep, depth 0."""
    if offloaded:
        return "offload"
    if row.batch > 1:
        return "batch"
    if (row.depth or 0) > 0:
        return "depth sweep"
    return "depth 0"


def build_case(row: Measurement, catalog: Catalog, specs: Mapping[str, HardwareSpec]) -> Case | Skip:
    hw = row_hardware(row, catalog, specs)
    if isinstance(hw, str):
        return Skip(row, hw)
    hardware, host_known = hw
    model = row_model(row, catalog)
    if isinstance(model, str):
        return Skip(row, model)
    arch, caveats = model
    bits = row_bits(row, catalog)
    if isinstance(bits, str):
        return Skip(row, bits)
    bpw, bits_note = bits
    if bits_note:
        caveats.append(bits_note)
    try:
        engine = Engine(row.engine)
    except ValueError:
        return Skip(row, f"engine '{row.engine}' not modelled")
    if "Output token throughput" in row.notes:
        return Skip(row, "serving-benchmark throughput (includes prefill and queueing), not decode speed")
    if "-sm tensor (experimental" in row.notes:
        return Skip(row, "llama.cpp's experimental tensor split: not the modelled engine behaviour")
    if row.depth is None:
        return Skip(row, "context depth not stated")
    if row.test == "pp" and not row.prompt_tokens:
        return Skip(row, "prompt size of the pp test not stated")
    if row.depth > 0 and not arch.has_kv_shape:
        # the core would give it a typical shape; a fit must not learn the KV terms from a guessed cache
        # (a hybrid's few attention layers would read as a KV factor near zero)
        return Skip(row, "model shape unknown at depth > 0: its KV cache would be a guess")

    if row.gpus > 1:
        split = "tensor" if ("-sm tensor" in row.notes or "tensor parallel" in row.notes.lower()) else "layer"
        hardware = hardware.model_copy(update={"devices": row.gpus, "split": split})
    if row.gpus == 0 and hardware.kind is not HardwareClass.CPU:
        return Skip(row, "CPU-only run on a GPU machine entry")

    layers = arch.layers
    ngl = row.gpu_layers
    kv_host = "nkvo 1" in row.notes  # llama.cpp -nkvo 1: the KV cache in host RAM, attended by the host CPU
    # -ot exps=CPU and --cpu-moe put every layer's experts in host RAM (--n-cpu-moe N: the first N layers')
    all_experts = row.n_cpu_moe == 0 and ("exps=CPU" in row.notes or "--cpu-moe" in row.notes)
    # a CPU-only machine's RAM is its one pool: -ngl 0 there places nothing on a host
    weights_on_host = hardware.kind is not HardwareClass.CPU and (
        (ngl is not None and ngl < ALL_LAYERS and (layers is None or ngl < layers)) or row.n_cpu_moe > 0 or all_experts
    )
    on_host = weights_on_host or kv_host
    if weights_on_host and not host_known:
        return Skip(row, "weights in host RAM, but the host's memory is not stated")
    if kv_host and not host_known:
        caveats.append("KV cache in host RAM of an unstated host: the default host's bandwidth")
    if all_experts and (layers is None or not arch.is_moe):
        return Skip(row, "every expert in host RAM (-ot exps=CPU / --cpu-moe), but the model's MoE layers are unknown")
    if ngl is not None and 0 < ngl < ALL_LAYERS and layers is None:
        return Skip(row, "-ngl given but the model's layer count is unknown")
    if row.n_cpu_moe > 0 and layers is None:
        return Skip(row, "--n-cpu-moe given but the model's layer count is unknown")
    if row.n_cpu_moe > 0 and not arch.is_moe:
        return Skip(row, "--n-cpu-moe on a dense model")

    # Context: llama-bench's tgN is the mean over N tokens generated after `depth`, so the cache holds
    # depth + N/2 tokens on average; ppN at depth d prefills N tokens after d.
    gen = row.gen_tokens or 0
    if row.test == "tg":
        work: dict[str, Any] = dict(context=row.depth + gen // 2, output_tokens=gen - gen // 2, prompt_tokens=0)
    else:
        work = dict(context=row.depth + (row.prompt_tokens or 0), output_tokens=0, prompt_tokens=row.prompt_tokens)
    work.update(streams=row.batch, engine=engine)
    if row.backend is not None:
        work["backend"] = row.backend
    if row.flash_attn is False and engine is Engine.LLAMA_CPP:
        work["flash_attention"] = False
    if row.sycl_f16:
        work["sycl_f16"] = True
    if ngl is not None and hardware.kind is not HardwareClass.CPU:
        # -ngl 99 means every layer on the GPU: force it, so the capacity model never spills a run
        # that demonstrably fitted.
        work["gpu_layers"] = min(ngl, layers or 1000) if ngl < ALL_LAYERS else (layers or 1000)
    if row.n_cpu_moe > 0:
        work["cpu_moe_layers"] = min(row.n_cpu_moe, layers or 1000)
    elif all_experts:
        work["cpu_moe_layers"] = layers
    if kv_host:
        work["offload"] = "kv"
    if (threads := row_threads(row)) is not None:
        work["threads"] = threads
    quant, quant_note = row_quant(row, catalog, arch, bpw)
    if quant_note:
        caveats.append(quant_note)
    try:
        scenario = Scenario(hardware=hardware, model=arch, quant=quant, workload=Workload(**work))
    except ValidationError as err:
        return Skip(row, f"scenario: {err.errors()[0]['msg']}")
    return Case(
        row=row,
        scenario=scenario,
        kind=row_kind(row, on_host),
        moe=arch.is_moe,
        hw_class=hardware.kind,
        engine=engine,
        aggregate=row.batch > 1,
        held_out=held_out(row),
        caveats=tuple(caveats),
    )


def build_cases(
    rows: Iterable[Measurement], catalog: Catalog, specs: Mapping[str, HardwareSpec]
) -> tuple[list[Case], list[Skip], list[Excluded]]:
    cases: list[Case] = []
    skipped: list[Skip] = []
    excluded: list[Excluded] = []
    for row in rows:
        out = build_case(row, catalog, specs)
        if row.exclude_reason:
            excluded.append(Excluded(row, row.exclude_reason, out if isinstance(out, Case) else None))
        elif isinstance(out, Case):
            cases.append(out)
        else:
            skipped.append(out)
    return cases, skipped, excluded
