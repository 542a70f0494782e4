"""evaluate(scenario) -> Result: the one entry point the window and the command line call."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from advisor.core.efficiency import default_eta
from advisor.core.feel import FEEL_TEXT, feel
from advisor.core.fmt import num, pct
from advisor.core.inputs import build_inputs, decode_eta
from advisor.core.result import Result, Step
from advisor.core.roofline import Inputs, Outputs, attention_flops, solve
from advisor.core.scenario import Scenario
from advisor.core.units import GB, MS_PER_S, S_PER_HOUR


def _f(x: np.ndarray) -> float:
    return float(np.asarray(x).reshape(-1)[0])


def crossover_batch(inp: Inputs) -> float | None:
    """Batch where the step's arithmetic time overtakes its memory time, at η = 1.

    Memory per step = W + B·kv bytes; compute = B·(2N + attention) FLOP, so
    B* = (W / BW) / ((2N + a) / F − kv / BW). At 16 bits with no KV this is F / BW (~295 on an H100).
    MoE routing spread is ignored here: W is the batch-1 active read."""
    weights = _f(inp.dense_bytes) + _f(inp.expert_bytes) * _f(inp.expert_share)
    kv = _f(inp.kv_full) * _f(inp.context) + _f(inp.kv_window) * min(_f(inp.context), _f(inp.window))
    flop_time = (2 * _f(inp.active_params) + _f(attention_flops(inp, inp.context))) / _f(inp.flops)
    denom = flop_time - kv / _f(inp.fast_bw)
    if denom <= 0:
        return None
    return (weights / _f(inp.fast_bw)) / denom


def _band(scenario: Scenario, inp: Inputs, eta: float) -> tuple[float, float]:
    """Decode at the low and high end of the class's realistic η range, scaled like the chosen η."""
    d = default_eta(scenario.hardware.kind, scenario.workload.engine)
    lo = solve(replace(inp, fast_eta=_f(inp.fast_eta) * d.low / eta))
    hi = solve(replace(inp, fast_eta=_f(inp.fast_eta) * d.high / eta))
    return _f(lo.decode), _f(hi.decode)


def evaluate(scenario: Scenario) -> Result:
    inp = build_inputs(scenario)
    out = solve(inp)
    return _result(scenario, inp, out)


def _result(s: Scenario, inp: Inputs, out: Outputs) -> Result:
    hw, m, q, w = s.hardware, s.model, s.quant, s.workload
    eta = decode_eta(s)
    runs = bool(_f(out.runs))
    weights = _f(inp.dense_bytes) + _f(inp.expert_bytes)
    weights_read = _f(inp.dense_bytes) + _f(inp.expert_bytes) * _f(inp.expert_share)
    draft = _f(inp.draft_bytes)
    kv = _f(out.kv_hold)
    overhead = w.overhead_gb * GB
    total = _f(out.footprint) + overhead
    layers = int(_f(inp.layers))
    on_device = int(_f(out.layers_on_device))
    kv_known = bool(_f(inp.kv_full) + _f(inp.kv_window) > 0)
    notes: list[str] = []
    steps: list[Step] = []

    steps.append(Step(label="Weights", text=(
        f"{num(m.total_params_b)} B params × {num(q.bits_per_weight)} bits ÷ 8 = {num(weights / GB)} GB stored"
        + (f"; {num(m.active_b)} B active → {num(weights_read / GB)} GB read per token" if m.is_moe else "")
    )))
    if kv_known:
        per_tok = _f(inp.kv_full) + _f(inp.kv_window)
        capped = f" (sliding layers stop at {int(_f(inp.window)):,})" if _f(inp.kv_window) > 0 else ""
        steps.append(Step(label="KV cache", text=(
            f"{per_tok:,.0f} bytes/token{capped} × {w.context + w.output_tokens:,} tokens × {w.streams} "
            f"stream{'s' if w.streams > 1 else ''} = {num(kv / GB)} GB ({w.kv_cache.value})"
        )))
    else:
        notes.append("No architecture given: the KV cache counts as zero, so long contexts look faster than they are.")
        steps.append(Step(label="KV cache", text="no layer/head shape given, so KV counts as zero"))

    fast_cap = hw.fast_capacity_gb * GB
    memory_line = (f"{num(weights / GB)} weights + {num(kv / GB)} KV + {num(overhead / GB)} overhead"
                   + (f" + {num(draft / GB)} draft" if draft else "")
                   + f" = {num(total / GB)} GB against {num(fast_cap / GB)} GB fast memory")
    host_stored = _f(out.host_stored)
    fits = bool(_f(out.fits))
    if not runs:
        memory_line += (f"; {num(host_stored / GB)} GB would go to the host, which has only "
                        f"{num(hw.host_capacity_gb)} GB: does not run")
        notes.append("Does not run: the model and its KV cache exceed fast and host memory together.")
    elif fits:
        memory_line += f": fits, {num((fast_cap - total) / GB)} GB free"
    else:
        memory_line += (f": {layers - on_device} of {layers} layers ({num(host_stored / GB)} GB) "
                        f"go to host memory — the offload cliff")
        notes.append("Part of the model sits in host memory: every token waits on the slow pool.")
    steps.append(Step(label="Memory", text=memory_line))

    decode = _f(out.decode) if runs else None
    ceiling = _f(out.ceiling) if runs else None
    fast_read, host_read = _f(out.fast_read), _f(out.host_read)
    fast_bw = _f(inp.fast_bw)
    if runs:
        if host_read > 0:
            steps.append(Step(label="Decode ceiling", text=(
                f"{num(fast_read / GB)} GB ÷ {num(fast_bw / GB)} GB/s + {num(host_read / GB)} GB ÷ "
                f"{num(_f(inp.host_bw) / GB)} GB/s host = {num(_f(out.t_mem_ceiling) * MS_PER_S)} ms per step "
                f"→ {num(_f(out.ceiling))} tok/s ceiling"
            )))
        else:
            steps.append(Step(label="Decode ceiling", text=(
                f"{num(fast_bw / GB)} GB/s ÷ {num(fast_read / GB)} GB read per step = {num(_f(out.ceiling))} tok/s ceiling"
            )))
        realistic = f"× η {eta:.2f}" + (f" × {hw.scaling_efficiency:.2f} multi-device scaling" if hw.scaling_efficiency < 1 else "")
        if host_read > 0:
            realistic += f" (host pool at η {_f(inp.host_eta):.2f})"
        steps.append(Step(label="Decode realistic", text=f"{realistic} → {num(_f(out.decode_plain))} tok/s per stream"))
    compute_bound = bool(_f(out.t_compute) > _f(out.t_mem))
    if compute_bound and runs:
        notes.append("Compute-bound: the batch's arithmetic takes longer than reading the weights.")
        steps.append(Step(label="Compute", text=(
            f"{w.streams} streams × {num((2 * _f(inp.active_params) + _f(attention_flops(inp, inp.context))) / 1e9)} "
            f"GFLOP/token ÷ {num(hw.compute_tflops * _f(inp.compute_eta))} TFLOPS realized = "
            f"{num(_f(out.t_compute) * MS_PER_S)} ms per step, longer than the memory time"
        )))

    tokens_per_pass = _f(out.spec_tokens_per_pass)
    exceeds = bool(runs and w.speculative.enabled and decode is not None and ceiling is not None and decode > ceiling)
    if w.speculative.enabled and runs:
        sp = w.speculative
        steps.append(Step(label="Speculative", text=(
            f"draft {num(sp.draft_params_b)} B proposes {sp.draft_length}; accepted α = {sp.acceptance:.2f} → "
            f"(1 − α^{sp.draft_length + 1}) ÷ (1 − α) = {num(tokens_per_pass)} tokens per target pass → {num(decode or 0)} tok/s"
        )))
        if exceeds:
            notes.append("Speculative decoding beats the one-read-per-token ceiling here.")

    prefill = _f(out.prefill) if runs else None
    if runs:
        if w.prefill_rate is not None:
            steps.append(Step(label="Prefill", text=f"measured {num(w.prefill_rate)} tok/s"))
        else:
            steps.append(Step(label="Prefill", text=(
                f"η {_f(inp.compute_eta):.2f} × {num(hw.compute_tflops)} TFLOPS ÷ "
                f"{num(2 * _f(inp.active_params) / 1e9)} GFLOP/token (+ attention) = {num(prefill or 0)} tok/s"
                + (" (host weights cross the link per 512-token batch)" if host_stored > 0 else "")
            )))

    ttft = itl = response = rph = aggregate = None
    if runs and decode and prefill:
        ttft = w.prompt_tokens / prefill
        itl = MS_PER_S / decode
        response = ttft + w.output_tokens / decode
        aggregate = decode * w.streams
        rph = w.streams * S_PER_HOUR / response if response > 0 else None
        steps.append(Step(label="Latency", text=(
            f"TTFT {w.prompt_tokens:,} ÷ {num(prefill)} = {num(ttft)} s; inter-token 1000 ÷ {num(decode)} = "
            f"{num(itl)} ms; response {num(ttft)} + {w.output_tokens:,} ÷ {num(decode)} = {num(response)} s"
        )))
        if w.streams > 1 and rph is not None:
            steps.append(Step(label="Throughput", text=(
                f"{num(decode)} × {w.streams} streams = {num(aggregate)} tok/s aggregate; "
                f"{w.streams} × 3,600 ÷ {num(response)} s = {num(rph, 4)} requests/hour"
            )))

    low = high = None
    if runs:
        low, high = _band(s, inp, eta)
    cls = feel(decode, w.feel_thresholds) if decode is not None else None
    if cls is not None:
        steps.append(Step(label="Feel", text=f"{num(decode or 0)} tok/s per stream: {FEEL_TEXT[cls]}"))

    return Result(
        runs=runs, fits=fits, decode_tok_s=decode, decode_low_tok_s=low, decode_high_tok_s=high,
        decode_ceiling_tok_s=ceiling, aggregate_tok_s=aggregate, prefill_tok_s=prefill, ttft_s=ttft,
        inter_token_ms=itl, response_s=response, requests_per_hour=rph,
        weights_gb=weights / GB, weights_read_gb=weights_read / GB, kv_gb=kv / GB, kv_known=kv_known,
        overhead_gb=overhead / GB, draft_gb=draft / GB, total_gb=total / GB,
        fast_capacity_gb=fast_cap / GB, host_capacity_gb=hw.host_capacity_gb,
        offloaded_fraction=host_stored / _f(out.footprint) if _f(out.footprint) > 0 else 0.0,
        layers=layers, layers_on_device=on_device, eta=eta, compute_bound=compute_bound,
        crossover_batch=crossover_batch(inp), speculative_tokens_per_pass=tokens_per_pass,
        exceeds_ceiling=exceeds, interactive_class=cls,
        interactive=bool(decode is not None and decode >= w.interactive_tok_s),
        notes=tuple(notes), steps=tuple(steps),
    )

