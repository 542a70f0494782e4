"""What one evaluation produces, with the arithmetic that led to it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from advisor.core.base import Frozen
from advisor.core.feel import Feel

Bound = Literal["memory", "compute"]


class Step(Frozen):
    """One line of shown work: what was computed and the arithmetic, in units a person reads."""

    label: str
    text: str


class StepTimes(Frozen):
    """One realistic decode step, term by term, in milliseconds: the solver's own terms.

    memory = weights + kv + host + dequant + streams + attention; total = max(memory, compute) + fixed."""

    weights: float = Field(description="Weights read from fast memory at η")
    kv: float = Field(description="KV cache read from fast memory (κ × its bytes at the weights' rate)")
    host: float = Field(description="Weights and KV read from host memory")
    dequant: float = Field(description="Unpacking quantized weights")
    streams: float = Field(description="Per-sequence work of the streams beyond the first")
    attention: float = Field(description="Attention as separate kernels (flash attention off); 0 when fused")
    memory: float = Field(description="The memory side: the sum of the terms above")
    compute: float = Field(description="The compute side: streams × FLOP per token ÷ realized FLOP/s")
    fixed: float = Field(description="Fixed time per step: launches, synchronization, sampling")
    total: float = Field(description="max(memory, compute) + fixed")


PlacementName = Literal["layers", "experts", "kv"]


class Placement(Frozen):
    """What lives where, from the solver's placement: GB of weights and KV cache per pool."""

    name: PlacementName = Field(
        description="layers: whole layers with their KV to the host (-ngl); experts: MoE "
        "experts first (--n-cpu-moe); kv: the KV cache on the host (-nkvo)"
    )
    auto: bool = Field(False, description="Chosen by auto: the fastest placement that runs")
    alternative: PlacementName | None = Field(None, description="Under auto: the next fastest placement that runs")
    alternative_decode_tok_s: float | None = None
    weights_device_gb: float
    weights_host_gb: float = Field(description="Weights in host RAM")
    weights_disk_gb: float = Field(description="Weights beyond host RAM, read from disk each token (mmap)")
    kv_device_gb: float
    kv_host_gb: float
    expert_layers_on_host: int = Field(0, description="Layers whose MoE experts sit in host memory")


class Result(Frozen):
    runs: bool = Field(description="False when weights and KV exceed fast and host memory together")
    fits: bool | None = Field(description="Everything sits in fast memory; None when the memory size is not known")
    decode_tok_s: float | None = Field(description="Realistic per-stream decode, tok/s")
    decode_low_tok_s: float | None = Field(description="Low end of the realistic band, tok/s")
    decode_high_tok_s: float | None = Field(description="High end of the realistic band, tok/s")
    decode_ceiling_tok_s: float | None = Field(description="Bandwidth ceiling per stream (η = 1), tok/s")
    aggregate_tok_s: float | None
    prefill_tok_s: float | None
    ttft_s: float | None
    inter_token_ms: float | None
    response_s: float | None
    requests_per_hour: float | None
    weights_gb: float = Field(description="Weights stored (total params)")
    weights_read_gb: float = Field(
        description="Weight bytes read per token at batch 1 (active params, less an "
        "untied input embedding table, of which a token reads one row)"
    )
    kv_gb: float = Field(description="KV cache held across all streams")
    kv_known: bool = Field(
        description="False when the model has no shape: the KV cache and attention work are "
        "estimated from a typical shape for its size"
    )
    overhead_gb: float
    draft_gb: float
    total_gb: float
    fast_capacity_gb: float | None = Field(description="Fast memory usable, before overhead; None when not known")
    host_capacity_gb: float
    offloaded_fraction: float = Field(description="Share of the footprint placed in host memory")
    streams_from_disk: bool = Field(False, description="Weights beyond host RAM are read from disk each token")
    placement: Placement | None = Field(None, description="What lives where")
    layers: int
    layers_on_device: int
    eta: float
    compute_bound: bool = Field(description="The step waits on arithmetic rather than memory")
    bound: Bound | None = Field(None, description="Which side of the step is longer; None when it does not run")
    step_ms: StepTimes | None = Field(
        None, description="The realistic decode step, term by term; None when it does not run"
    )
    crossover_batch: float | None = Field(description="Batch where compute overtakes memory at the ceiling")
    speculative_tokens_per_pass: float
    exceeds_ceiling: bool = Field(description="Speculative decoding beats the one-read-per-token ceiling")
    interactive_class: Feel | None
    interactive: bool
    notes: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
