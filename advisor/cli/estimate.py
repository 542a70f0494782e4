"""`estimate`: one scenario's decode, prefill, latency and memory, as text or JSON; `estimate --many`
runs one scenario per input line in one process.

    python -m advisor.cli estimate --hardware rtx-4090 --model llama-3.1-8b --quant q4_k_m
    python -m advisor.cli estimate --bandwidth 3350 --memory 200 --params 70 --bits 16 --json

result_json is the one place the JSON fields of a result are chosen; --many prints the same objects."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO, NoReturn

from pydantic import ValidationError

from advisor.catalog.hardware_search import find_hardware
from advisor.catalog.loader import Catalog
from advisor.cli.args import add_scenario_flags, scenario_from_args
from advisor.cli.errors import CliError
from advisor.core.evaluate import evaluate
from advisor.core.fmt import num
from advisor.core.published import Published, PublishedView, Setup, published_view
from advisor.core.result import Result
from advisor.core.scenario import Scenario
from advisor.json_files import JSONProblem, parse_json, validation_message

JSON_KEYS = (
    "decode_tok_s",
    "decode_low_tok_s",
    "decode_high_tok_s",
    "decode_ceiling_tok_s",
    "aggregate_tok_s",
    "prefill_tok_s",
    "ttft_s",
    "inter_token_ms",
    "response_s",
    "requests_per_hour",
    "weights_gb",
    "weights_read_gb",
    "kv_gb",
    "kv_known",
    "overhead_gb",
    "total_gb",
    "fast_capacity_gb",
    "fits",
    "runs",
    "offloaded_fraction",
    "streams_from_disk",
    "layers_on_device",
    "layers",
    "eta",
    "compute_bound",
    "crossover_batch",
    "exceeds_ceiling",
    "interactive_class",
    "interactive",
)


# --- the result -------------------------------------------------------------------------------


def result_json(s: Scenario, r: Result) -> dict[str, Any]:
    out = {k: getattr(r, k) for k in JSON_KEYS}
    out["interactive_class"] = r.interactive_class.value if r.interactive_class else "does_not_run"
    out["bound"] = r.bound
    out["step_ms"] = r.step_ms.model_dump() if r.step_ms is not None else None
    out["scenario"] = {
        "hardware": s.hardware.name,
        "devices": s.hardware.devices,
        "split": s.hardware.split if s.hardware.devices > 1 else None,  # how a set shares the model
        "model": s.model.name,
        "quant": s.quant.name,
        "context": s.workload.context,
        "streams": s.workload.streams,
    }
    out["notes"] = list(r.notes)
    out["steps"] = [f"{st.label}: {st.text}" for st in r.steps]
    out["placement"] = placement_json(r)
    out["llama_bench"] = llama_bench_command(s, r)
    return out


def placement_json(r: Result) -> dict[str, Any] | None:
    """What lives where: the placement's name and GB of weights and KV cache per pool."""
    p = r.placement
    if p is None:
        return None
    return {
        "name": p.name,
        "auto": p.auto,
        "alternative": p.alternative,
        "alternative_decode_tok_s": p.alternative_decode_tok_s,
        "weights_device_gb": p.weights_device_gb,
        "weights_host_gb": p.weights_host_gb,
        "weights_disk_gb": p.weights_disk_gb,
        "kv_device_gb": p.kv_device_gb,
        "kv_host_gb": p.kv_host_gb,
        "expert_layers_on_host": p.expert_layers_on_host,
        "streams_from_disk": r.streams_from_disk,
    }


def result_text(s: Scenario, r: Result) -> str:
    w = s.workload
    head = f"{s.hardware.name} · {s.model.name} · {s.quant.name} · {w.context:,} tokens context"
    lines = [head, "=" * len(head)]
    if not r.runs:
        lines.append("Does not run: weights and KV exceed fast and host memory together.")
    else:
        feel = r.interactive_class.value if r.interactive_class else ""
        lines.append(
            f"Decode      {num(r.decode_tok_s or 0)} tok/s per stream "
            f"(band {num(r.decode_low_tok_s or 0)}–{num(r.decode_high_tok_s or 0)}; "
            f"ceiling {num(r.decode_ceiling_tok_s or 0)}) — {feel}"
        )
        if w.streams > 1:
            lines.append(
                f"Aggregate   {num(r.aggregate_tok_s or 0)} tok/s over {w.streams} streams, "
                f"{num(r.requests_per_hour or 0, 4)} requests/hour"
            )
        lines.append(
            f"Prefill     {num(r.prefill_tok_s or 0)} tok/s; TTFT {num(r.ttft_s or 0)} s; "
            f"inter-token {num(r.inter_token_ms or 0)} ms; response {num(r.response_s or 0)} s"
        )
    if r.fast_capacity_gb is None:
        lines.append(f"Memory      {num(r.total_gb)} GB needed; memory size not given, so the fit is not checked")
    else:
        lines.append(
            f"Memory      {num(r.total_gb)} GB needed of {num(r.fast_capacity_gb)} GB fast: "
            + ("fits" if r.fits else f"{r.offloaded_fraction:.0%} offloaded to host")
        )
    lines.append("")
    lines += [f"  {st.label:<17}{st.text}" for st in r.steps]
    if r.notes:
        lines.append("")
        lines += [f"  note: {n}" for n in r.notes]
    lines += ["", f"Check it:   {llama_bench_command(s, r)}"]
    return "\n".join(lines)


def _gguf_placeholder(s: Scenario) -> str:
    name = "-".join(part for part in (s.model.name, s.quant.name) if part)
    slug = "".join(ch if ch.isalnum() or ch in ".-_" else "-" for ch in name).strip("-") or "model"
    return f"<{slug}.gguf>"


def placement_flags(s: Scenario, r: Result) -> str:
    """The flags that make llama.cpp place things as the estimate did: --n-cpu-moe N (or -ot exps=CPU
    for every layer's experts) for experts first, -nkvo for the KV cache in host RAM, -t for threads."""
    w, p = s.workload, r.placement
    extra = ""
    if w.cpu_moe_layers is not None:
        extra += f" --n-cpu-moe {w.cpu_moe_layers}"  # one spelling, given or derived
    elif p is not None and p.name == "experts" and p.expert_layers_on_host > 0:
        extra += " -ot exps=CPU" if p.expert_layers_on_host >= r.layers else f" --n-cpu-moe {p.expert_layers_on_host}"
    if p is not None and p.name == "kv":
        extra += " -nkvo" if w.streams > 1 else " -nkvo 1"  # a switch in llama-batched-bench, 0|1 in llama-bench
    if w.threads is not None:
        extra += f" -t {w.threads}"
    return extra


def llama_bench_command(s: Scenario, r: Result) -> str:
    """The llama.cpp command that measures this scenario on the user's machine.

    One stream: llama-bench (-p prompt, -n output, -d context already in the cache, -ngl layers on
    the GPU, -b llama.cpp's logical batch). Several streams: llama-bench measures one stream only,
    so llama-batched-bench (-npp prompt, -ntg output, -npl streams) is the tool. The placement's
    flags (placement_flags) follow -ngl."""
    w = s.workload
    all_on_gpu = r.fits or r.layers_on_device >= r.layers
    layers = w.gpu_layers if w.gpu_layers is not None else (99 if all_on_gpu else r.layers_on_device)
    extra = placement_flags(s, r)
    # Flash attention is always spelled out: llama-bench defaulted to off until mid-2026, so the same
    # line must measure the same thing on any build; a quantized V cache needs it on.
    quantized_kv = w.kv_cache.value in ("q8_0", "q4_0")
    if quantized_kv:
        extra += f" -ctk {w.kv_cache.value} -ctv {w.kv_cache.value}"
    flash = w.flash_attention or quantized_kv
    model = _gguf_placeholder(s)
    if w.streams > 1:
        ctx = w.streams * (w.context + w.prompt_tokens + w.output_tokens) + 256
        return (
            f"llama-batched-bench -m {model} -c {ctx} -npp {max(w.context, w.prompt_tokens)} "
            f"-ntg {w.output_tokens} -npl {w.streams} -ngl {layers}{extra} -fa {'on' if flash else 'off'}"
        )
    return (
        f"llama-bench -m {model} -p {w.prompt_tokens} -n {w.output_tokens} -d {w.context} "
        f"-ngl {layers} -b 2048{extra} -fa {1 if flash else 0}"
    )


# --- published runs beside it -----------------------------------------------------------------


def published_for(args: argparse.Namespace, s: Scenario, catalog: Catalog) -> PublishedView:
    """What was published on this machine, and of exactly this setup (ids from the flags)."""
    hw = find_hardware(catalog, args.hardware) if args.hardware else None
    setup = Setup(s, hw.id if hw is not None else None, args.model, args.quant)
    return published_view(catalog.published, setup)


def published_json(view: PublishedView) -> dict[str, Any]:
    m = view.machine
    machine = (
        None
        if m is None
        else {
            "runs": m.runs,
            "models": m.models,
            "measured_over_model_median": m.median,
            "measured_over_model_low": m.low,
            "measured_over_model_high": m.high,
        }
    )

    def run(r: Published, **extra: Any) -> dict[str, Any]:
        return {
            "test": r.test_name(),
            "model": r.model,
            "measured_tok_s": r.tok_s,
            "model_for_that_run_tok_s": r.model_tok_s,
            "backend": r.backend.value if r.backend else None,
            "build": r.build or None,
            **extra,
            "source": r.source,
        }

    return {
        "machine": machine,
        "runs": [run(r, flash_attention=r.flash_attention) for r in view.runs],
        "more": view.more,
        "prefill_runs": [run(r) for r in view.prefill],
    }


def published_text(view: PublishedView) -> list[str]:
    if view.machine is None:
        return []
    lines = ["", f"Published:  {view.machine.text()}"]
    if view.runs:
        lines.append("  runs of this model and quant, beside the model for that run:")
    lines += [f"  {r.versus_model()}\n    {r.source}" for r in view.runs]
    if view.more:
        lines.append(f"  … and {view.more} more")
    if view.prefill:
        lines.append("  prefill runs of this model and quant, the prompt size nearest yours first:")
    return lines + [f"  {r.versus_model()}\n    {r.source}" for r in view.prefill]


# --- the commands -----------------------------------------------------------------------------


def cmd_estimate(args: argparse.Namespace, catalog: Catalog) -> int:
    if args.many is not None:
        return estimate_many(args, catalog)
    s = scenario_from_args(args, catalog)
    r = evaluate(s)
    view = published_for(args, s, catalog)
    if args.json:
        print(json.dumps({**result_json(s, r), "published": published_json(view)}, indent=2))
    else:
        print("\n".join([result_text(s, r), *published_text(view)]))
    return 0


class _LineError(Exception):
    pass


class _LineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _LineError(message)


def _line_parser() -> argparse.ArgumentParser:
    p = _LineParser(prog="estimate --many", add_help=False)
    add_scenario_flags(p)
    return p


def _line_args(obj: Any, parser: argparse.ArgumentParser, defaults: argparse.Namespace) -> argparse.Namespace:
    """One JSON object (keys = long flag names, with - or _) as parsed flags; the command line's
    own flags fill in whatever the line leaves out."""
    if not isinstance(obj, dict):
        raise _LineError("expected a JSON object whose keys are long flag names")
    argv: list[str] = []
    for key, value in obj.items():
        flag = "--" + str(key).lstrip("-").replace("_", "-")
        if value is None:
            continue
        if isinstance(value, (bool, list, dict)):
            raise _LineError(f"{flag}: expected a number or a string")
        argv += [flag, str(value)]
    ns = parser.parse_args(argv)
    for k, v in vars(defaults).items():
        if k in vars(ns) and getattr(ns, k) is None:
            setattr(ns, k, v)
    return ns


MAX_LINE_BYTES = 1 << 20  # one scenario is a few hundred bytes


def _lines(stream: BinaryIO) -> Iterator[tuple[int, str, str | None]]:
    """(line number, text, problem) per line: a line longer than MAX_LINE_BYTES (skipped to its end
    without being held) or not UTF-8 has a problem instead of text, so it costs the rest nothing."""
    n = 0
    while chunk := stream.readline(MAX_LINE_BYTES + 1):
        n += 1
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(b"\n"):
            while (more := stream.readline(MAX_LINE_BYTES)) and not more.endswith(b"\n"):
                pass
            yield n, "", f"longer than {MAX_LINE_BYTES >> 20} MiB: not one scenario"
            continue
        try:
            yield n, chunk.decode("utf-8"), None
        except UnicodeDecodeError:
            yield n, "", "not UTF-8 text"


def _line_result(
    text: str, parser: argparse.ArgumentParser, args: argparse.Namespace, catalog: Catalog
) -> dict[str, Any]:
    ns = _line_args(parse_json(text), parser, args)
    s = scenario_from_args(ns, catalog)
    return {**result_json(s, evaluate(s)), "published": published_json(published_for(ns, s, catalog))}


def estimate_many(args: argparse.Namespace, catalog: Catalog) -> int:
    """One JSON object per input line in, one JSON result per line out, in one process. A bad line
    gives {"line": n, "error": ...} and the rest still run; the exit code is then 1."""
    path = args.many
    try:
        # a pipe is fine here (`--many <(generate)`): lines are read as they come, never all at once
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except (OSError, ValueError) as err:
        raise CliError(f"--many: cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    parser = _line_parser()
    failed = 0
    with stream:
        for n, text, problem in _lines(stream):
            if problem is None and not text.strip():
                continue
            try:
                if problem is not None:
                    raise _LineError(problem)
                line = json.dumps({"line": n, **_line_result(text, parser, args, catalog)}, allow_nan=False)
            except JSONProblem as err:
                line, failed = json.dumps({"line": n, "error": f"not JSON: {err}"}), failed + 1
            except (_LineError, CliError) as err:
                line, failed = json.dumps({"line": n, "error": str(err)}), failed + 1
            except ValidationError as err:
                line, failed = json.dumps({"line": n, "error": validation_message(err)}), failed + 1
            except (ValueError, ArithmeticError, RecursionError) as err:  # the core refused this scenario
                line, failed = json.dumps({"line": n, "error": f"cannot compute: {err}"}), failed + 1
            print(line, flush=False)
    return 1 if failed else 0


def add_commands(sub: Any) -> None:
    est = sub.add_parser("estimate", help="decode, prefill, latency and memory for one scenario")
    add_scenario_flags(est)
    est.add_argument("--json", action="store_true", help="print one JSON object")
    est.add_argument(
        "--many",
        metavar="FILE",
        help="one scenario per line (JSON object, keys = long flag names; - reads stdin); "
        "prints one JSON result per line",
    )
    est.set_defaults(run=cmd_estimate)
