"""evaluate(scenario) -> Result: the one entry point the window and the command line call."""

from __future__ import annotations

import math
from collections.abc import Callable

from advisor.core.feel import FEEL_TEXT, feel
from advisor.core.fmt import num
from advisor.core.hardware_keys import BACKEND_LABELS
from advisor.core.inputs import backend_in_use, band_runs, build_inputs, decode_band, decode_eta, realistic_band
from advisor.core.placement_words import placement_notes, placement_of, spill_text
from advisor.core.result import Result, Step, StepTimes
from advisor.core.roofline import Inputs, Outputs, crossover_batch, solve, weights_read_batch1
from advisor.core.scenario import Scenario
from advisor.core.shape import shape_text
from advisor.core.units import GB, MS_PER_S, S_PER_HOUR
from advisor.core.worked import ceiling_text, compute_text, prefill_text, realistic_text, weights_text
from advisor.core.worked import first as _f


def step_times(out: Outputs) -> StepTimes:
    """The solver's step terms in milliseconds (the first point of `out`)."""

    def t(x: object) -> float:
        return _f(x) * MS_PER_S  # type: ignore[arg-type]

    return StepTimes(
        weights=t(out.t_weights),
        kv=t(out.t_kv),
        host=t(out.t_host),
        dequant=t(out.t_dequant),
        streams=t(out.t_streams),
        attention=t(out.t_attn),
        memory=t(out.t_memory),
        compute=t(out.t_compute),
        fixed=t(out.t_token),
        total=t(out.t_step),
    )


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
    weights_read = _f(weights_read_batch1(inp))
    draft = _f(inp.draft_bytes)
    kv = _f(out.kv_hold)
    overhead = w.overhead_gb * GB
    total = _f(out.footprint) + overhead
    layers = int(_f(inp.layers))
    on_device = int(_f(out.layers_on_device))
    kv_known = s.model.has_kv_shape
    notes: list[str] = []
    steps: list[Step] = []

    def step(label: str, text: Callable[[], str]) -> None:
        if explain:
            steps.append(Step(label=label, text=text()))

    if w.backend is not None and backend_in_use(s) is not w.backend:
        notes.append(
            f"{BACKEND_LABELS[w.backend]} does not run on {hw.name}: using "
            f"{BACKEND_LABELS[backend_in_use(s)]}, its usual backend."
        )

    step("Weights", lambda: weights_text(s, inp, weights, weights_read))
    per_tok = _f(inp.kv_full) + _f(inp.kv_window)
    capped = f" (sliding layers stop at {int(_f(inp.window)):,})" if _f(inp.kv_window) > 0 else ""
    state = _f(inp.state_bytes)
    held = (
        f"({per_tok:,.0f} bytes/token{capped} × {w.context + w.output_tokens:,} tokens + recurrent state "
        f"{num(state / 1e6)} MB)"
        if state > 0
        else f"{per_tok:,.0f} bytes/token{capped} × {w.context + w.output_tokens:,} tokens"
    )
    estimated = "" if kv_known else f"estimated from a typical shape ({shape_text(s.model)}): "
    step(
        "KV cache",
        lambda: (
            f"{estimated}{held} × {w.streams} stream{'s' if w.streams > 1 else ''} = "
            f"{num(kv / GB)} GB ({w.kv_cache.value})"
            + ("; the state is read and rewritten every token" if state > 0 else "")
        ),
    )
    if not kv_known:
        notes.append(
            f"No architecture given: the KV cache and attention work are estimated from a typical shape for "
            f"a {num(s.model.total_params_b)} B model ({shape_text(s.model)})."
        )
    if not hw.memory_known:
        notes.append("Memory size not given: whether it fits is not checked.")

    fast_cap = hw.fast_capacity_gb * GB
    memory_line = (
        f"{num(weights / GB)} weights + {num(kv / GB)} KV + {num(overhead / GB)} overhead"
        + (f" + {num(draft / GB)} draft" if draft else "")
        + (
            f" = {num(total / GB)} GB against {num(fast_cap / GB)} GB fast memory"
            if hw.memory_known
            else f" = {num(total / GB)} GB; memory size not given, so whether it fits is not checked"
        )
    )
    host_stored = _f(out.host_stored)
    fits = bool(_f(out.fits))
    placement = placement_of(s, inp, out)
    if not runs:
        memory_line += (
            f"; {num(host_stored / GB)} GB would go to the host, which has only "
            f"{num(hw.host_capacity_gb)} GB: does not run"
        )
        notes.append("Does not run: the model and its KV cache exceed fast and host memory together.")
    elif fits:
        if hw.memory_known:
            memory_line += f": fits, {num((fast_cap - total) / GB)} GB free"
    else:
        memory_line += ": " + spill_text(inp, out, placement)
        notes.append("Part of the model sits in host memory: every token waits on the slow pool.")
    notes += placement_notes(s, inp, out, placement, runs)
    step("Memory", lambda: memory_line)

    decode = _f(out.decode) if runs else None
    ceiling = _f(out.ceiling) if runs else None
    compute_bound = bool(_f(out.compute_bound))
    if runs:
        step("Decode ceiling", lambda: ceiling_text(s, inp, out))
        step("Decode realistic", lambda: realistic_text(s, inp, out, eta))
    if compute_bound and runs:
        notes.append("Compute-bound: the batch's arithmetic takes longer than reading the weights.")
        step(
            "Compute",
            lambda: (
                compute_text(s, inp, out) + f", longer than the memory side ({num(_f(out.t_memory) * MS_PER_S)} ms)"
            ),
        )

    tokens_per_pass = _f(out.spec_tokens_per_pass)
    exceeds = bool(runs and w.speculative.enabled and decode is not None and ceiling is not None and decode > ceiling)
    if w.speculative.enabled and runs:
        sp = w.speculative
        step(
            "Speculative",
            lambda: (
                f"draft {num(sp.draft_params_b)} B proposes {sp.draft_length}; accepted α = {sp.acceptance:.2f} → "
                f"(1 − α^{sp.draft_length + 1}) ÷ (1 − α) = {num(tokens_per_pass)} tokens per target pass "
                f"→ {num(decode or 0)} tok/s"
            ),
        )
        if exceeds:
            notes.append("Speculative decoding beats the one-read-per-token ceiling here.")

    prefill = _f(out.prefill) if runs else None
    if runs:
        if (rate := w.prefill_rate) is not None:
            step("Prefill", lambda: f"measured {num(rate)} tok/s")
        else:
            step("Prefill", lambda: prefill_text(s, inp, out))

    ttft = itl = response = rph = aggregate = None
    if runs and decode and prefill:
        ttft = w.prompt_tokens / prefill
        itl = MS_PER_S / decode
        response = ttft + w.output_tokens / decode
        aggregate = decode * w.streams
        rph = w.streams * S_PER_HOUR / response if response > 0 else None
        step(
            "Latency",
            lambda: (
                f"TTFT {w.prompt_tokens:,} ÷ {num(prefill)} = {num(ttft)} s; inter-token 1000 ÷ {num(decode)} = "
                f"{num(itl)} ms; response {num(ttft)} + {w.output_tokens:,} ÷ {num(decode)} = {num(response)} s"
            ),
        )
        if w.streams > 1 and rph is not None:
            step(
                "Throughput",
                lambda: (
                    f"{num(decode)} × {w.streams} streams = {num(aggregate)} tok/s aggregate; "
                    f"{w.streams} × 3,600 ÷ {num(response)} s = {num(rph, 4)} requests/hour"
                ),
            )

    low = high = None
    if runs and decode is not None:
        low, high = (float(v) for v in realistic_band(s, decode, ceiling or decode))
        lo, hi = decode_band(s)
        own_runs = band_runs(s)
        if own_runs:
            step(
                "Band",
                lambda: (
                    f"measured ÷ predicted {lo:.2f}–{hi:.2f} from your {own_runs} "
                    f"run{'s' if own_runs != 1 else ''} on this machine (narrower with more runs) "
                    f"→ {num(low)}–{num(high)} tok/s"
                ),
            )
        else:
            step(
                "Band",
                lambda: (
                    f"measured ÷ predicted ran {lo:.2f}–{hi:.2f} (10th–90th percentile) for "
                    f"{s.hardware.kind.value} with {w.engine.value} in the validation → {num(low)}–{num(high)} tok/s"
                ),
            )
    cls = feel(decode, w.feel_thresholds) if decode is not None else None
    if cls is not None:
        step("Feel", lambda: f"{num(decode or 0)} tok/s per stream: {FEEL_TEXT[cls]}")

    return Result(
        runs=runs,
        fits=fits if hw.memory_known else None,
        decode_tok_s=decode,
        decode_low_tok_s=low,
        decode_high_tok_s=high,
        decode_ceiling_tok_s=ceiling,
        aggregate_tok_s=aggregate,
        prefill_tok_s=prefill,
        ttft_s=ttft,
        inter_token_ms=itl,
        response_s=response,
        requests_per_hour=rph,
        weights_gb=weights / GB,
        weights_read_gb=weights_read / GB,
        kv_gb=kv / GB,
        kv_known=kv_known,
        overhead_gb=overhead / GB,
        draft_gb=draft / GB,
        total_gb=total / GB,
        fast_capacity_gb=fast_cap / GB if hw.memory_known else None,
        host_capacity_gb=hw.host_capacity_gb,
        offloaded_fraction=host_stored / _f(out.footprint) if _f(out.footprint) > 0 else 0.0,
        streams_from_disk=runs and bool(_f(out.streams_from_disk)),
        placement=placement,
        layers=layers,
        layers_on_device=on_device,
        eta=eta,
        compute_bound=compute_bound,
        bound=("compute" if compute_bound else "memory") if runs else None,
        step_ms=step_times(out) if runs else None,
        crossover_batch=cross if math.isfinite(cross := _f(crossover_batch(inp))) else None,
        speculative_tokens_per_pass=tokens_per_pass,
        exceeds_ceiling=exceeds,
        interactive_class=cls,
        interactive=bool(decode is not None and decode >= w.interactive_tok_s),
        notes=tuple(notes),
        steps=tuple(steps),
    )
