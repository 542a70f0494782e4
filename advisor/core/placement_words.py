"""What lives where, in words and GB: the solver's placement outputs as a Result's Placement, the memory
line's tail and the notes. Only formatting: every byte is the solver's."""

from __future__ import annotations

from typing import get_args

from advisor.core.efficiency import Engine
from advisor.core.fmt import num
from advisor.core.inputs import host_threads
from advisor.core.result import Placement, PlacementName
from advisor.core.roofline import Inputs, Outputs
from advisor.core.scenario import Scenario
from advisor.core.units import GB
from advisor.core.worked import first

NAMES: tuple[PlacementName, ...] = get_args(PlacementName)  # in the solver's codes' order: 0, 1, 2
WORDS: dict[PlacementName, str] = {
    "layers": "whole layers with their KV cache (-ngl)",
    "experts": "MoE experts first (--n-cpu-moe)",
    "kv": "the KV cache in host RAM (-nkvo)",
}

# Short names for a plotted placement's curve.
LABELS: dict[PlacementName, str] = {
    "layers": "layers (-ngl)",
    "experts": "experts (--n-cpu-moe)",
    "kv": "KV in host RAM (-nkvo)",
}


def placement_of(s: Scenario, inp: Inputs, out: Outputs) -> Placement:
    weights = first(inp.dense_bytes) + first(inp.expert_bytes) + first(inp.draft_bytes)
    w_host, kv_host, disk = first(out.weights_host_stored), first(out.kv_host_stored), first(out.disk_stored)
    alt = int(first(out.alt_placement))
    alt_decode = first(out.alt_decode)
    return Placement(
        name=NAMES[int(first(out.placement))],
        auto=s.workload.offload == "auto",
        alternative=NAMES[alt] if alt >= 0 else None,
        alternative_decode_tok_s=alt_decode if alt >= 0 else None,
        weights_device_gb=max(0.0, weights - w_host) / GB,  # differences of near-equal sums round below 0
        weights_host_gb=max(0.0, w_host - disk) / GB,
        weights_disk_gb=disk / GB,
        kv_device_gb=max(0.0, first(out.kv_hold) - kv_host) / GB,
        kv_host_gb=kv_host / GB,
        expert_layers_on_host=round(first(out.expert_host_share) * first(inp.layers))
        if first(inp.expert_bytes) > 0
        else 0,
    )


def spill_text(inp: Inputs, out: Outputs, p: Placement) -> str:
    """The memory line's end when something is in host memory (or on disk)."""
    layers = int(first(inp.layers))
    on_device = int(first(out.layers_on_device))
    parts = []
    if p.name == "kv":
        parts.append(f"the KV cache ({num(p.kv_host_gb)} GB) is held in host RAM (-nkvo)")
        if p.weights_host_gb + p.weights_disk_gb > 0:
            parts.append(
                f"{layers - on_device} of {layers} layers' weights "
                f"({num(p.weights_host_gb + p.weights_disk_gb)} GB) go there too"
            )
    elif p.name == "experts" and first(out.dense_host_share) == 0:
        parts.append(
            f"the experts of {p.expert_layers_on_host} of {layers} layers "
            f"({num(p.weights_host_gb + p.weights_disk_gb)} GB) go to host memory; attention and the "
            f"KV cache stay on the GPU"
        )
    else:
        parts.append(
            f"{layers - on_device} of {layers} layers ({num(first(out.host_stored) / GB)} GB) go to host memory"
        )
    if p.weights_disk_gb > 0:
        parts.append(f"{num(p.weights_disk_gb)} GB of weights beyond host RAM are read from disk each token")
    return "; ".join(parts) + " — the offload cliff"


def placement_notes(s: Scenario, inp: Inputs, out: Outputs, p: Placement, runs: bool) -> list[str]:
    notes = []
    if p.auto and runs:
        chosen = f"Placement auto: {WORDS[p.name]}, the fastest that runs"
        if p.alternative is not None and p.alternative_decode_tok_s is not None:
            chosen += f"; next {WORDS[p.alternative]} at {num(p.alternative_decode_tok_s)} tok/s"
        notes.append(chosen + ".")
    if p.name == "kv" and runs and p.kv_host_gb > 0:
        threads = host_threads(s)
        notes.append(
            f"KV cache in host RAM (-nkvo): attention over it runs on the host CPU ({threads} "
            f"thread{'s' if threads != 1 else ''}), which is why this is much slower than weights there."
        )
    if runs and bool(first(out.streams_from_disk)):
        notes.append(
            f"Streams from disk: {num(p.weights_disk_gb)} GB of weights do not fit in host RAM, so llama.cpp "
            f"reads them from the SSD ({num(s.hardware.disk_read_gbps)} GB/s) each token through mmap; "
            f"expect this speed at best (the page cache can make it worse)."
        )
    if not runs and s.workload.engine is not Engine.LLAMA_CPP:
        notes.append(f"{s.workload.engine.value} cannot read weights beyond host RAM from disk (llama.cpp can).")
    return notes
