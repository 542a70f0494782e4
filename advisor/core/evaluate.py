"""evaluate(scenario) -> Result: the one entry point the window and the command line call."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from advisor.core.calibration import BACKEND_LABELS
from advisor.core.feel import FEEL_TEXT, feel
from advisor.core.fmt import num
from advisor.core.inputs import (
    backend_in_use,
    backend_terms,
    build_inputs,
    decode_band,
    decode_eta,
    hardware_factors,
    realistic_band,
)
from advisor.core.result import Result, Step
from advisor.core.roofline import Inputs, Outputs, attention_flops, solve
from advisor.core.scenario import Scenario
from advisor.core.terms import MachineTerms
from advisor.core.units import GB, MS_PER_S, S_PER_HOUR


def _f(x: float | np.ndarray) -> float:
    """The first element of a roofline field or output (a scenario solves one point)."""
    return float(np.asarray(x).reshape(-1)[0])


def weights_read_batch1(inp: Inputs) -> float:
    """Weight bytes one token reads at batch 1: the dense part less an untied input table, plus the
    active share of the experts."""
    return _f(inp.dense_bytes) - _f(inp.unread_bytes) + _f(inp.expert_bytes) * _f(inp.expert_share)


def crossover_batch(inp: Inputs) -> float | None:
    """Batch where the step's arithmetic time overtakes its memory time, at η = 1.

    Memory per step = W + B·kv bytes; compute = B·(2N + attention) FLOP, so
    B* = (W / BW) / ((2N + a) / F − kv / BW). At 16 bits with no KV this is F / BW (~295 on an H100).
    MoE routing spread is ignored here: W is the batch-1 active read."""
    weights = weights_read_batch1(inp)
    kv = (_f(inp.kv_full) * _f(inp.context) + _f(inp.kv_window) * min(_f(inp.context), _f(inp.window))
          + 2 * _f(inp.state_bytes))  # a hybrid's recurrent state: read and rewritten every step
    flop_time = (2 * _f(inp.active_params) + _f(attention_flops(inp, inp.context))) / _f(inp.flops)
    denom = flop_time - kv / _f(inp.fast_bw)
    if denom <= 0:
        return None
    return (weights / _f(inp.fast_bw)) / denom


def _backend_factor(s: Scenario, part: str) -> tuple[float, str] | None:
    """(factor, "× 0.95 Metal") when the fitted η in use carries a backend factor other than 1."""
    w = s.workload
    if (w.efficiency if part == "decode" else w.compute_efficiency) is not None:
        return None
    factor = getattr(backend_terms(s), part)
    if factor == 1.0:
        return None
    return factor, f" × {factor:.2f} {BACKEND_LABELS[backend_in_use(s)]}"


def _fitted_factor(s: Scenario, terms: MachineTerms, what: str) -> tuple[float, str] | None:
    """(factor, " × 0.965 <what> (fitted to 28 decode runs)") for a fitted hardware factor other than 1,
    unless an explicit η replaces the fitted one."""
    if s.workload.efficiency is not None or terms.decode == 1.0:
        return None
    runs = f"{terms.rows} decode run{'s' if terms.rows != 1 else ''}"
    return terms.decode, f" × {terms.decode:.3g} {what} (fitted to {runs})"


def _hardware_factors(s: Scenario) -> list[tuple[float, str]]:
    """The architecture's factor ("× 1.07 Apple M3 architecture (fitted to 10 decode runs)"), then the
    machine's own ("× 0.965 this machine's own (fitted to 28 decode runs)"). A chip's runs count every
    card count of it (2× RTX 3090 is the same chip), so they can exceed its record's."""
    found = [_fitted_factor(s, terms, f"{key} architecture" if key else "this machine's own")
             for key, terms in hardware_factors(s)]
    return [f for f in found if f is not None]


def _realistic_text(s: Scenario, inp: Inputs, out: Outputs, eta: float) -> str:
    """The realistic decode step, term by term, adding up to the tok/s shown."""
    hw = s.hardware
    def ms(t: float) -> str:
        return f"{num(t * MS_PER_S)} ms"

    fast_eta = _f(inp.fast_eta)
    bw = _f(inp.fast_bw) / GB
    kv = _f(out.fast_kv)
    weights = _f(out.fast_read) - kv
    eta_text = f"η {eta:.2f}"
    backend = _backend_factor(s, "decode")
    factors = ([backend] if backend is not None else []) + _hardware_factors(s)
    if factors:  # the class's η × the backend's, the architecture's and the machine's factors
        class_eta = eta
        for value, _ in factors:
            class_eta /= value
        eta_text = f"η {class_eta:.2f}" + "".join(text for _, text in factors)
    if hw.scaling_efficiency < 1:
        eta_text += f" × {hw.scaling_efficiency:.2f} multi-device scaling"
    parts = []
    if weights > 0:
        t_w = weights / (bw * GB * fast_eta)
        parts.append(f"{num(weights / GB)} GB ÷ ({num(bw)} GB/s × {eta_text}) = {ms(t_w)}")
    if kv > 0:
        factor = _f(inp.kv_factor)
        kv_t = factor * kv / (bw * GB * fast_eta)
        scaled = f" × {factor:.2f}" if factor != 1 else ""
        parts.append(f"KV {num(kv / GB)} GB{scaled} at the same rate = {ms(kv_t)}")
    host = _f(out.host_read)
    if host > 0:
        hbw, heta = _f(inp.host_bw) / GB, _f(inp.host_eta)
        t_h = host / (hbw * GB * heta)
        parts.append(f"host {num(host / GB)} GB ÷ ({num(hbw)} GB/s × η {heta:.2f}) = {ms(t_h)}")
    dq = _f(out.t_dequant)
    if dq > 0:
        flop = _f(inp.dequant_flops) * hw.scaling_efficiency
        parts.append(f"unpacking {num(_f(out.unpacked_weights) / 1e9)} B quantized weights × "
                     f"{num(flop)} FLOP ÷ {num(hw.fp16_tflops)} TFLOPS = {ms(dq)}")
    t_streams = _f(out.t_streams)
    if t_streams > 0:
        parts.append(f"{s.workload.streams - 1} more streams × {ms(_f(inp.stream_time))} = {ms(t_streams)}")
    t_attn = _f(out.t_attn)
    if t_attn > 0:
        eta_a = _f(inp.unfused_attn_eta)
        gflop = t_attn * _f(inp.flops) * eta_a / 1e9
        parts.append(f"attention without flash attention {num(gflop)} GFLOP ÷ ({num(hw.compute_tflops)} TFLOPS × "
                     f"η {eta_a:.3g}) = {ms(t_attn)}")
    mem = _f(out.t_mem) + dq + t_streams + t_attn
    compute = _f(out.t_compute)
    if compute > mem:
        body = f"compute {ms(compute)} per step (longer than memory {ms(mem)})"
        parts = [body]
    else:
        body = " + ".join(parts) if parts else ms(mem)
    token = _f(out.t_token)
    if token > 0:
        body += f" + {ms(token)} fixed per step"
        moe = _f(inp.moe_token_factor) if _f(inp.expert_bytes) > 0 else 1.0
        if moe != 1.0:
            body += f" ({ms(token / moe)} × {moe:.3g} for a mixture of experts: router, top-k and gather kernels)"
    step = max(mem, compute) + token
    total = f" = {ms(step)} per step" if (len(parts) > 1 or token > 0) else " per step"
    plain = _f(out.decode_plain)
    if step > 0 and plain < 1 / step * (1 - 1e-9):
        return (f"{body}{total} → {num(1 / step)} tok/s, above the bandwidth ceiling (the KV factor, fitted on "
                f"shorter contexts, is below η): capped at the ceiling, {num(plain)} tok/s per stream")
    return f"{body}{total} → {num(plain)} tok/s per stream"


def _weights_text(s: Scenario, inp: Inputs, weights: float, weights_read: float) -> str:
    m, q = s.model, s.quant
    dense_bits = q.dense_bits_per_weight
    experts = _f(inp.expert_bytes) / _f(inp.bytes_per_weight)
    if m.is_moe and dense_bits is not None and dense_bits != q.bits_per_weight and experts > 0:
        dense = _f(inp.dense_bytes) / (dense_bits / 8)
        stored = (f"{num(experts / 1e9)} B expert params × {num(q.bits_per_weight)} bits + {num(dense / 1e9)} B "
                  f"outside the experts × {num(dense_bits)} bits, ÷ 8 = {num(weights / GB)} GB stored")
    else:
        stored = (f"{num(m.total_params_b)} B params × {num(q.bits_per_weight)} bits ÷ 8 = "
                  f"{num(weights / GB)} GB stored")
    unread = _f(inp.unread_bytes)
    skipped = (f" (less the input embedding table, {num(m.vocab or 0)} × {num(m.hidden or 0)} = "
               f"{num((m.vocab or 0) * (m.hidden or 0) / 1e9)} B params, {num(unread / GB)} GB: a token "
               "looks up one row of it)" if unread > 0 else "")
    if m.is_moe:
        return stored + f"; {num(m.active_b)} B active{skipped} → {num(weights_read / GB)} GB read per token"
    return stored + (f"; {num(weights_read / GB)} GB read per token{skipped}" if unread > 0 else "")


def _prefill_text(s: Scenario, inp: Inputs, out: Outputs) -> str:
    """Prefill per token: weight matmuls at η_c (× the quantized and MoE factors) plus attention at η_c."""
    hw, w = s.hardware, s.workload
    eta = _f(inp.compute_eta)
    factors = ""
    backend = _backend_factor(s, "prefill")
    if backend is not None:  # shown as the class's η × the backend's factor
        eta /= backend[0]
        factors += backend[1]
    if _f(inp.bytes_per_weight) < 1.99 and _f(inp.prefill_quant_eta) != 1:
        factors += f" × {_f(inp.prefill_quant_eta):.2f} quantized"
    if _f(inp.expert_bytes) > 0 and _f(inp.prefill_moe_eta) != 1:
        factors += f" × {_f(inp.prefill_moe_eta):.2f} MoE"
    start = max(w.context - w.prompt_tokens, 0)
    attn = _f(attention_flops(inp, start + w.prompt_tokens / 2))
    alpha = _f(inp.prefill_attn_factor)
    text = (f"{num(2 * _f(inp.active_params) / 1e9)} GFLOP/token at η {eta:.2f}{factors}"
            + (f" + attention {num(attn / 1e9)} GFLOP/token" + (f" × {alpha:.2f}" if alpha != 1 else "")
               + f" at η {eta:.2f}{backend[1] if backend else ''}" if attn > 0 else "")
            + f", of {num(hw.compute_tflops)} TFLOPS = {num(_f(out.prefill))} tok/s")
    if _f(out.host_stored) > 0:
        text += " (host weights cross the link per 512-token batch)"
    return text


def evaluate(scenario: Scenario, explain: bool = True) -> Result:
    """Everything the window and the command line show for one scenario; `explain=False` leaves out
    the worked arithmetic (Result.steps), which is most of the cost."""
    inp = build_inputs(scenario)
    out = solve(inp)
    return _result(scenario, inp, out, explain)


def _result(s: Scenario, inp: Inputs, out: Outputs, explain: bool = True) -> Result:
    """The numbers, and with `explain` the arithmetic behind each as Steps (the window skips the
    text while a slider drags and asks for it once edits pause)."""
    hw, w = s.hardware, s.workload
    eta = decode_eta(s)
    runs = bool(_f(out.runs))
    weights = _f(inp.dense_bytes) + _f(inp.expert_bytes)
    weights_read = weights_read_batch1(inp)
    draft = _f(inp.draft_bytes)
    kv = _f(out.kv_hold)
    overhead = w.overhead_gb * GB
    total = _f(out.footprint) + overhead
    layers = int(_f(inp.layers))
    on_device = int(_f(out.layers_on_device))
    kv_known = bool(_f(inp.kv_full) + _f(inp.kv_window) > 0)
    notes: list[str] = []
    steps: list[Step] = []

    def step(label: str, text: Callable[[], str]) -> None:
        if explain:
            steps.append(Step(label=label, text=text()))
    if w.backend is not None and backend_in_use(s) is not w.backend:
        notes.append(f"{BACKEND_LABELS[w.backend]} does not run on {hw.name}: using "
                     f"{BACKEND_LABELS[backend_in_use(s)]}, its usual backend.")

    step("Weights", lambda: _weights_text(s, inp, weights, weights_read))
    if kv_known:
        per_tok = _f(inp.kv_full) + _f(inp.kv_window)
        capped = f" (sliding layers stop at {int(_f(inp.window)):,})" if _f(inp.kv_window) > 0 else ""
        state = _f(inp.state_bytes)
        held = (f"({per_tok:,.0f} bytes/token{capped} × {w.context + w.output_tokens:,} tokens + recurrent state "
                f"{num(state / 1e6)} MB)" if state > 0 else
                f"{per_tok:,.0f} bytes/token{capped} × {w.context + w.output_tokens:,} tokens")
        step("KV cache", lambda: (
            f"{held} × {w.streams} stream{'s' if w.streams > 1 else ''} = {num(kv / GB)} GB ({w.kv_cache.value})"
            + ("; the state is read and rewritten every token" if state > 0 else "")
        ))
    else:
        notes.append("No architecture given: the KV cache counts as zero, so long contexts look faster than they are.")
        step("KV cache", lambda: "no layer/head shape given, so KV counts as zero")

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
    step("Memory", lambda: memory_line)

    decode = _f(out.decode) if runs else None
    ceiling = _f(out.ceiling) if runs else None
    fast_read, host_read = _f(out.fast_read), _f(out.host_read)
    fast_bw = _f(inp.fast_bw)
    if runs:
        if host_read > 0:
            step("Decode ceiling", lambda: (
                f"{num(fast_read / GB)} GB ÷ {num(fast_bw / GB)} GB/s + {num(host_read / GB)} GB ÷ "
                f"{num(_f(inp.host_bw) / GB)} GB/s host = {num(_f(out.t_mem_ceiling) * MS_PER_S)} ms per step "
                f"→ {num(_f(out.ceiling))} tok/s ceiling"
            ))
        else:
            step("Decode ceiling", lambda: (
                f"{num(fast_bw / GB)} GB/s ÷ {num(fast_read / GB)} GB read per step = "
                f"{num(_f(out.ceiling))} tok/s ceiling"
            ))
        step("Decode realistic", lambda: _realistic_text(s, inp, out, eta))
    compute_bound = bool(_f(out.t_compute) > _f(out.t_mem))
    if compute_bound and runs:
        notes.append("Compute-bound: the batch's arithmetic takes longer than reading the weights.")
        step("Compute", lambda: (
            f"{w.streams} streams × {num((2 * _f(inp.active_params) + _f(attention_flops(inp, inp.context))) / 1e9)} "
            f"GFLOP/token ÷ {num(hw.compute_tflops * _f(inp.compute_eta))} TFLOPS realized = "
            f"{num(_f(out.t_compute) * MS_PER_S)} ms per step, longer than the memory time"
        ))

    tokens_per_pass = _f(out.spec_tokens_per_pass)
    exceeds = bool(runs and w.speculative.enabled and decode is not None and ceiling is not None and decode > ceiling)
    if w.speculative.enabled and runs:
        sp = w.speculative
        step("Speculative", lambda: (
            f"draft {num(sp.draft_params_b)} B proposes {sp.draft_length}; accepted α = {sp.acceptance:.2f} → "
            f"(1 − α^{sp.draft_length + 1}) ÷ (1 − α) = {num(tokens_per_pass)} tokens per target pass "
            f"→ {num(decode or 0)} tok/s"
        ))
        if exceeds:
            notes.append("Speculative decoding beats the one-read-per-token ceiling here.")

    prefill = _f(out.prefill) if runs else None
    if runs:
        if (rate := w.prefill_rate) is not None:
            step("Prefill", lambda: f"measured {num(rate)} tok/s")
        else:
            step("Prefill", lambda: _prefill_text(s, inp, out))

    ttft = itl = response = rph = aggregate = None
    if runs and decode and prefill:
        ttft = w.prompt_tokens / prefill
        itl = MS_PER_S / decode
        response = ttft + w.output_tokens / decode
        aggregate = decode * w.streams
        rph = w.streams * S_PER_HOUR / response if response > 0 else None
        step("Latency", lambda: (
            f"TTFT {w.prompt_tokens:,} ÷ {num(prefill)} = {num(ttft)} s; inter-token 1000 ÷ {num(decode)} = "
            f"{num(itl)} ms; response {num(ttft)} + {w.output_tokens:,} ÷ {num(decode)} = {num(response)} s"
        ))
        if w.streams > 1 and rph is not None:
            step("Throughput", lambda: (
                f"{num(decode)} × {w.streams} streams = {num(aggregate)} tok/s aggregate; "
                f"{w.streams} × 3,600 ÷ {num(response)} s = {num(rph, 4)} requests/hour"
            ))

    low = high = None
    if runs and decode is not None:
        low, high = (float(v) for v in realistic_band(s, decode, ceiling or decode))
        lo, hi = decode_band(s)
        step("Band", lambda: (
            f"measured ÷ predicted ran {lo:.2f}–{hi:.2f} (10th–90th percentile) for "
            f"{s.hardware.kind.value} with {w.engine.value} in the validation → {num(low)}–{num(high)} tok/s"))
    cls = feel(decode, w.feel_thresholds) if decode is not None else None
    if cls is not None:
        step("Feel", lambda: f"{num(decode or 0)} tok/s per stream: {FEEL_TEXT[cls]}")

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

