"""Published measurements beside the estimate: which rows of the validation set match the scenario on
screen, where the decode runs sit on each plot, and how the estimate compares with each run.

The rows are the validation set's decode and prefill measurements on catalog hardware with every layer
on the GPU
(catalogs/published/runs.json, written by `benchmarks/validate.py --write` from
benchmarks/data/measurements.csv). Pure: the catalog loader reads the file."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from advisor.core.base import Frozen
from advisor.core.curves import Axis
from advisor.core.fmt import num
from advisor.core.hardware_keys import BACKEND_LABELS
from advisor.core.scenario import Scenario
from advisor.core.terms import Backend, Engine

# Two rows describe the same weights when the quant ids agree or, without ids, their bits per weight do.
BITS_TOLERANCE = 0.05
# A row without a catalog model id is the scenario's model when its parameter count agrees this closely.
PARAMS_TOLERANCE = 0.005
MAX_COMPARED = 4  # rows the worked comparison lists (the nearest contexts first)
MINE_SUFFIX = "-mine"  # the user's measured copy of a catalog entry (advisor.measure.entry)


def machine_id(hardware_id: str | None) -> str | None:
    """The catalog machine an entry is: `<id>-mine` is `<id>` measured by the user."""
    if hardware_id and hardware_id.endswith(MINE_SUFFIX):
        return hardware_id[: -len(MINE_SUFFIX)]
    return hardware_id


class Published(Frozen):
    """One published measurement: decode (llama-bench tgN, batched-bench, MLX; tok/s per stream) or
    prefill (ppN; prompt tokens per second)."""

    hardware_id: str = Field(min_length=1, max_length=200)
    devices: int = Field(1, ge=1, le=64)  # identical GPUs working together
    split: Literal["layer", "tensor"] = "layer"  # how several devices shared the model (llama-bench's default)
    model: str = Field(min_length=1, max_length=200)  # as the source names it
    model_id: str | None = Field(None, max_length=200)  # the catalog model it is, or has the shape of
    params_b: float = Field(ge=0.001, le=100_000)  # a million parameters at least, as a model's
    quant_id: str | None = Field(None, max_length=100)
    bits: float = Field(ge=1, le=64)
    engine: Engine
    test: Literal["tg", "pp"] = "tg"
    prompt: int = Field(0, ge=0, le=100_000_000)  # prompt tokens of a pp test (ppN)
    backend: Backend | None = None
    flash_attention: bool | None = None  # None: the source does not say
    sycl_f16: bool = False  # a SYCL build with GGML_SYCL_F16=ON (FP16 prefill on the matrix engines)
    depth: int = Field(ge=0, le=100_000_000)  # tokens in the cache before the measured phase (-d)
    tokens: int = Field(ge=0, le=100_000_000)  # tokens generated in the test (tgN); 0 for pp
    context: int = Field(ge=0, le=100_000_000)  # tg: mean tokens in the cache, depth + N/2; pp: depth + N
    streams: int = Field(1, ge=1, le=65_536)
    tok_s: float = Field(ge=0.001, le=1e7)  # per stream
    model_tok_s: float = Field(ge=0, le=1e7)  # `validate`'s prediction for this run (build, backend, FA), per stream
    build: str = Field("", max_length=7)  # YYYY-MM of the llama.cpp build, "" when not dated
    source: str = Field(min_length=1, max_length=2000)

    def describe(self) -> str:
        """ "Meta Llama 3 8B Q4_K_M tg512: 130.58 tok/s (CUDA, build 2024-05, flash attention off)"."""
        quant = self.quant_id.upper() if self.quant_id else f"{self.bits:.2f} bits per weight"
        cond = _conditions(self)
        per = " per stream" if self.streams > 1 else ""
        return f"{self.model} {quant} {self.test_name()}: {self.tok_s:,g} tok/s{per}{f' ({cond})' if cond else ''}"

    def versus_model(self) -> str:
        """ "Meta Llama 3 8B tg512: measured 130.58 tok/s (CUDA, build 2024-05, flash attention off); the
        model for that run 129 (-1%)": the measurement as printed, the model rounded."""
        cond = _conditions(self)
        out = f"{self.model} {self.test_name()}: measured {self.tok_s:,g} tok/s{f' ({cond})' if cond else ''}"
        if self.model_tok_s > 0:
            pct = round((self.model_tok_s / self.tok_s - 1) * 100)
            out += f"; the model for that run {num(self.model_tok_s)} ({f'{pct:+d}' if pct else '±0'}%)"  # not "-0%"
        return out

    def test_name(self) -> str:
        """llama-bench's name for the test: tg128, pp512, tg32 @ d4096; a batch adds ", 8 streams"."""
        if self.test == "pp":
            name = f"pp{self.prompt}"
        else:
            name = f"tg{self.tokens}" if self.tokens else "tg"
        if self.depth:
            name += f" @ d{self.depth}"
        if self.streams > 1:
            name += f", {self.streams} streams"
        return name


class HeldOutFigure(Frozen):
    """One line of the validation on the rows the fit never saw (`advisor validate`), as shipped."""

    test: str = Field(max_length=20)  # "decode" or "prefill"
    group: str = Field(max_length=60)  # "depth 0", "all", ...
    n: int = Field(ge=0)
    median_pct: float = Field(ge=0)
    p90_pct: float = Field(ge=0)
    target_median_pct: float | None = None
    target_p90_pct: float | None = None
    # decode rows only: the share that measured inside the band the app draws (which claims 80 %)
    inside_band_pct: float | None = Field(None, ge=0, le=100)

    def met(self) -> bool | None:
        """Whether the accuracy target holds (None: no target for this group)."""
        if self.target_median_pct is None:
            return None
        return self.median_pct <= self.target_median_pct and (
            self.target_p90_pct is None or self.p90_pct <= self.target_p90_pct
        )


@dataclass(frozen=True)
class Setup:
    """What the scenario on screen runs: the catalog ids it came from plus its scenario. A user's
    measured copy (`<id>-mine`) stands for its catalog machine."""

    scenario: Scenario
    hardware_id: str | None
    model_id: str | None
    quant_id: str | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "hardware_id", machine_id(self.hardware_id))


def runs_text(n: int, what: str = "run") -> str:
    """ "1 run", "12 runs"."""
    return f"{n} {what}{'s' if n != 1 else ''}"


def _same_quant(row: Published, setup: Setup) -> bool:
    if row.quant_id and setup.quant_id:
        return row.quant_id == setup.quant_id
    return abs(row.bits - setup.scenario.quant.bits_per_weight) <= BITS_TOLERANCE


def _same_model(row: Published, setup: Setup) -> bool:
    if row.model_id and setup.model_id:
        return row.model_id == setup.model_id
    total = setup.scenario.model.total_params_b
    return abs(row.params_b - total) <= PARAMS_TOLERANCE * total


def machine_rows(rows: Iterable[Published], setup: Setup, test: str = "tg") -> list[Published]:
    """Rows of one test (decode by default) measured on the scenario's catalog hardware (as many
    devices, split the same way) with its engine."""
    if not setup.hardware_id:
        return []
    hw, engine = setup.scenario.hardware, setup.scenario.workload.engine
    return [
        r
        for r in rows
        if r.hardware_id == setup.hardware_id
        and r.devices == hw.devices
        and r.engine is engine
        and (hw.devices == 1 or r.split == hw.split)
        and r.test == test
    ]


def on_hardware(rows: Iterable[Published], setup: Setup, test: str = "tg") -> list[Published]:
    """`machine_rows`, but none when the scenario keeps layers or experts in host RAM on purpose: every
    published row ran all on the GPU, so none is that setup."""
    w, layers = setup.scenario.workload, setup.scenario.model.layers
    partial = w.gpu_layers is not None and (layers is None or w.gpu_layers < layers)
    return [] if partial or w.cpu_moe_layers else machine_rows(rows, setup, test)


Candidates = list[tuple[float, tuple[Published, ...]]]


def _grouped(rows: Iterable[Published], x: Callable[[Published], float]) -> Candidates:
    groups: dict[float, list[Published]] = {}
    for r in rows:
        groups.setdefault(x(r), []).append(r)
    return [(k, tuple(groups[k])) for k in sorted(groups)]


def candidates(rows: Sequence[Published], setup: Setup, axis: Axis) -> Candidates:
    """The runs that can stand at each x of one plot, whatever the context: on the context plot the same
    model and quant at the scenario's stream count, one x per run; on the model-size plot any model at
    the same quant and stream count with nothing prefilled, grouped by model size; on the batch plot the
    same model and quant, grouped by stream count."""
    w = setup.scenario.workload
    here = on_hardware(rows, setup)
    if axis == "context":
        return [
            (float(r.context), (r,))
            for r in here
            if r.streams == w.streams and _same_quant(r, setup) and _same_model(r, setup)
        ]
    if axis == "params":
        return _grouped(
            (r for r in here if r.streams == w.streams and r.depth == 0 and _same_quant(r, setup)), lambda r: r.params_b
        )
    return _grouped((r for r in here if _same_quant(r, setup) and _same_model(r, setup)), lambda r: float(r.streams))


def pick(found: Candidates, context: int) -> list[tuple[float, Published]]:
    """One run per x: the one measured nearest the context (a tg512 and a tg8192 of one model would
    otherwise stack at one model size)."""
    return [(x, min(runs, key=lambda r: abs(r.context - context))) for x, runs in found]


def placed(rows: Sequence[Published], setup: Setup, axis: Axis) -> list[tuple[float, Published]]:
    """(x, run) for the runs on one plot at the scenario's context (`candidates`, then `pick`)."""
    return pick(candidates(rows, setup, axis), setup.scenario.workload.context)


def points(rows: Sequence[Published], setup: Setup, axis: Axis) -> tuple[list[float], list[float]]:
    """(x, tok/s per stream) of `placed`."""
    found = placed(rows, setup, axis)
    return [x for x, _ in found], [r.tok_s for _, r in found]


def same_setup(rows: Sequence[Published], setup: Setup) -> list[Published]:
    """Rows of exactly the scenario's setup (hardware, model, quant, engine, streams), nearest context
    first."""
    streams = setup.scenario.workload.streams
    context = setup.scenario.workload.context
    keep = [
        r for r in on_hardware(rows, setup) if r.streams == streams and _same_quant(r, setup) and _same_model(r, setup)
    ]
    return sorted(keep, key=lambda r: (abs(r.context - context), r.context, r.source))


def same_prefill(rows: Sequence[Published], setup: Setup) -> list[Published]:
    """Prefill runs of the scenario's machine, model, quant and engine, the prompt size nearest the
    scenario's first (the prefill estimate is for its prompt after its context)."""
    w = setup.scenario.workload
    keep = [r for r in on_hardware(rows, setup, "pp") if _same_quant(r, setup) and _same_model(r, setup)]
    return sorted(keep, key=lambda r: (abs(r.prompt - w.prompt_tokens), r.depth, r.prompt, r.source))


def _conditions(r: Published) -> str:
    parts = []
    if r.backend is not None:
        parts.append(BACKEND_LABELS[r.backend])
    if r.build:
        parts.append(f"build {r.build}")
    if r.sycl_f16:
        parts.append("GGML_SYCL_F16 build")
    if r.flash_attention is not None:
        parts.append("flash attention " + ("on" if r.flash_attention else "off"))
    return ", ".join(parts)


def comparison(rows: Sequence[Published], setup: Setup, limit: int = MAX_COMPARED) -> tuple[list[Published], int]:
    """The rows of exactly this setup (at most `limit`, nearest context first) and how many more match."""
    found = same_setup(rows, setup)
    return found[:limit], max(len(found) - limit, 0)


@dataclass(frozen=True)
class MachineRecord:
    """How the model did on every published run on one machine: measured ÷ model, per run."""

    runs: int
    models: int  # distinct models among them
    median: float
    low: float
    high: float

    def text(self) -> str:
        spread = f"{self.low:.2f}–{self.high:.2f}, median {self.median:.2f}" if self.runs > 1 else f"{self.median:.2f}"
        return (
            f"{runs_text(self.runs, 'published run')} on this machine ({runs_text(self.models, 'model')}): "
            f"measured ÷ model {spread}"
        )


def machine_record(rows: Sequence[Published], setup: Setup) -> MachineRecord | None:
    """Measured ÷ model over every published decode run on the scenario's machine and engine (any model,
    quant or context): how far to trust the estimate there. None when nothing was published."""
    here = [r for r in machine_rows(rows, setup) if r.model_tok_s > 0]
    if not here:
        return None
    return _record(here)


def _record(runs: Sequence[Published]) -> MachineRecord:
    ratios = [r.tok_s / r.model_tok_s for r in runs]
    return MachineRecord(
        runs=len(runs),
        models=len({r.model_id or r.model for r in runs}),
        median=statistics.median(ratios),
        low=min(ratios),
        high=max(ratios),
    )


@dataclass(frozen=True)
class MachineEntry:
    """One machine's record in the list of all of them."""

    hardware_id: str
    devices: int
    engine: Engine
    record: MachineRecord


def all_records(rows: Sequence[Published]) -> list[MachineEntry]:
    """Every machine with published runs (catalog id × device count × engine), most runs first."""
    groups: dict[tuple[str, int, Engine], list[Published]] = {}
    for r in rows:
        if r.model_tok_s > 0 and r.test == "tg":
            groups.setdefault((r.hardware_id, r.devices, r.engine), []).append(r)
    out = [MachineEntry(hid, devices, engine, _record(runs)) for (hid, devices, engine), runs in groups.items()]
    return sorted(out, key=lambda e: (-e.record.runs, e.hardware_id, e.devices, e.engine.value))


@dataclass(frozen=True)
class PublishedView:
    """All the worked arithmetic says about published runs for one scenario."""

    machine: MachineRecord | None  # every decode run on the machine
    runs: list[Published]  # decode runs of exactly this setup, nearest context first
    more: int  # decode runs of this setup past `runs`
    prefill: list[Published]  # prefill runs of this setup, nearest prompt size first (at most `limit`)


def published_view(rows: Sequence[Published], setup: Setup, limit: int = MAX_COMPARED) -> PublishedView:
    mine = [r for r in rows if r.hardware_id == setup.hardware_id]  # one pass over the file, not three
    runs, more = comparison(mine, setup, limit)
    return PublishedView(machine_record(mine, setup), runs, more, same_prefill(mine, setup)[:limit])
