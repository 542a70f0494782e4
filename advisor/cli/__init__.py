"""The command line over the same core the window uses.

    python -m advisor.cli estimate --hardware rtx-4090 --model llama-3.1-8b --quant q4_k_m
    python -m advisor.cli estimate --bandwidth 3350 --memory 200 --params 70 --bits 16 --json
    python -m advisor.cli recommend --hardware rtx-4090 --context 8192
    python -m advisor.cli sweep --axis context --hardware m3-max-40c-128gb --model qwen3-32b
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from pydantic import ValidationError

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import Catalog, load_catalog
from advisor.catalog.longtail import find_hardware, is_longtail
from advisor.core.curves import AXES, curve
from advisor.core.evaluate import evaluate
from advisor.core.fmt import num
from advisor.core.published import Published, PublishedView, Setup, published_view
from advisor.core.recommend import recommend
from advisor.core.result import Result
from advisor.core.scenario import Scenario
from advisor.cli.errors import CliError
from advisor.measure.entry import apply_measured
from advisor.paths import user_catalog_dir


@dataclass(frozen=True)
class Flag:
    name: str
    section: str  # hardware | model | quant | workload | speculative
    field: str
    type: Callable[[str], Any]
    help: str


FLAGS: tuple[Flag, ...] = (
    Flag("--bandwidth", "hardware", "bandwidth_gbps", float, "memory bandwidth per device, GB/s"),
    Flag("--memory", "hardware", "memory_gb", float, "fast memory per device (VRAM or unified), GB"),
    Flag("--host-memory", "hardware", "host_memory_gb", float, "system RAM beside the GPU, GB"),
    Flag("--host-bandwidth", "hardware", "host_bandwidth_gbps", float, "system RAM bandwidth, GB/s"),
    Flag("--host-link", "hardware", "host_link_gbps", float, "GPU-host link (PCIe) bandwidth, GB/s"),
    Flag("--tflops", "hardware", "fp16_tflops", float, "peak dense FP16 compute per device, TFLOPS"),
    Flag("--gpus", "hardware", "devices", int, "number of identical devices"),
    Flag("--split", "hardware", "split", str, "how devices share the model: tensor or layer"),
    Flag("--params", "model", "total_params_b", float, "total parameters, billions"),
    Flag("--active-params", "model", "active_params_b", float, "parameters read per token (MoE), billions"),
    Flag("--layers", "model", "layers", int, "transformer layers"),
    Flag("--kv-heads", "model", "kv_heads", int, "KV heads (grouped-query attention)"),
    Flag("--heads", "model", "heads", int, "attention heads"),
    Flag("--head-dim", "model", "head_dim", int, "dimension of each head"),
    Flag("--kv-bytes-per-token", "model", "kv_bytes_per_token_override", float,
         "KV cache bytes per token at f16, instead of the shape"),
    Flag("--max-context", "model", "max_context", int, "model's maximum context, tokens"),
    Flag("--bits", "quant", "bits_per_weight", float, "average bits per weight"),
    Flag("--dense-bits", "quant", "dense_bits_per_weight", float,
         "MoE models: bits per weight outside the experts (MXFP4 files: 8.5; default: as --bits)"),
    Flag("--context", "workload", "context", int, "tokens already in context during decode"),
    Flag("--prompt", "workload", "prompt_tokens", int, "prompt tokens to prefill"),
    Flag("--output", "workload", "output_tokens", int, "output tokens per response"),
    Flag("--batch", "workload", "streams", int, "concurrent streams"),
    Flag("--kv-cache", "workload", "kv_cache", str, "KV cache precision: f16, q8_0, q4_0, fp8"),
    Flag("--efficiency", "workload", "efficiency", float, "η: share of bandwidth realized (default per class)"),
    Flag("--compute-efficiency", "workload", "compute_efficiency", float, "η for prefill compute"),
    Flag("--engine", "workload", "engine", str, "llama.cpp, vllm or mlx"),
    Flag("--backend", "workload", "backend", str, "llama.cpp backend: cuda, rocm, vulkan, metal, sycl or cpu"),
    Flag("--flash-attention", "workload", "flash_attention", str,
         "llama.cpp flash attention: on (default) or off (slower decode at long context)"),
    Flag("--gpu-layers", "workload", "gpu_layers", int, "force N layers on the GPU (llama.cpp -ngl)"),
    Flag("--offload", "workload", "offload", str, "what leaves fast memory first: layers or experts"),
    Flag("--n-cpu-moe", "workload", "cpu_moe_layers", int,
         "keep the MoE experts of the first N layers in host RAM (llama.cpp --n-cpu-moe)"),
    Flag("--prefill-rate", "workload", "prefill_rate", float, "measured prefill tok/s instead of the estimate"),
    Flag("--overhead", "workload", "overhead_gb", float, "runtime memory besides weights and KV, GB"),
    Flag("--threshold", "workload", "interactive_tok_s", float, "interactive threshold, tok/s"),
    Flag("--draft-params", "speculative", "draft_params_b", float,
         "speculative decoding: draft model size, billions (turns it on)"),
    Flag("--draft-length", "speculative", "draft_length", int, "speculative decoding: tokens drafted per pass"),
    Flag("--acceptance", "speculative", "acceptance", float, "speculative decoding: acceptance rate 0-0.99"),
)
FLAG_BY_FIELD = {(f.section, f.field): f.name for f in FLAGS}


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # "--quant" must not silently mean "--quants"
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # one line, not the usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def _number(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        return value

    parse.__name__ = kind.__name__
    return parse


def add_scenario_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("catalog picks (ids from `catalog hardware|models|quants`)")
    g.add_argument("--hardware", help="hardware id")
    g.add_argument("--model", help="model id")
    g.add_argument("--quant", help="quant id")
    raw = p.add_argument_group("raw figures (override the picks, or stand alone)")
    for f in FLAGS:
        raw.add_argument(f.name, type=_number(f.type) if f.type in (int, float) else f.type, help=f.help,
                         dest=f.name[2:].replace("-", "_"))


def _pick(table: dict[str, Any] | Any, kind: str, key: str | None) -> Any:
    if key is None:
        return None
    if key not in table:
        close = [k for k in table if key.lower() in k][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else \
            f"; see `catalog {kind}{' --search TEXT --all' if kind == 'hardware' else ''}`"
        raise CliError(f"--{'model' if kind == 'models' else 'quant' if kind == 'quants' else kind}: "
                       f"unknown id '{key}'{hint}")
    return table[key]


def scenario_from_args(args: argparse.Namespace, catalog: Catalog) -> Scenario:
    base: dict[str, dict[str, Any]] = {"hardware": {}, "model": {}, "quant": {}, "workload": {}}
    # a catalog id, else a long-tail one (db-..., the uncurated GPUs of `catalog hardware --search TEXT --all`)
    hw = (find_hardware(catalog, args.hardware) if args.hardware else None) or \
        _pick(catalog.hardware, "hardware", args.hardware)
    if hw is not None and is_longtail(hw.id) and hw.id not in catalog.hardware:
        print(f"note: {hw.id}: {hw.notes}", file=sys.stderr)
    if hw is not None:
        base["hardware"] = to_hardware(hw).model_dump()
        # The user's own measured η (an entry saved by `measure fit --save`) applies; flags still override.
        base["workload"].update(apply_measured({}, None, hw))
    m = _pick(catalog.models, "models", args.model)
    if m is not None:
        base["model"] = to_model(m).model_dump()
    q = _pick(catalog.quants, "quants", args.quant)
    if q is not None:
        base["quant"] = to_quant(q).model_dump()
    spec: dict[str, Any] = {}
    for f in FLAGS:
        value = getattr(args, f.name[2:].replace("-", "_"))
        if value is None:
            continue
        if f.section == "speculative":
            spec[f.field] = value
        else:
            base[f.section][f.field] = value
    if spec:
        spec.setdefault("enabled", True)
        base["workload"]["speculative"] = spec
    if args.params is not None and args.model is None:
        base["model"].setdefault("name", f"{num(args.params)}B model")
    try:
        return Scenario.model_validate(base)
    except ValidationError as err:
        raise CliError(validation_message(err)) from None


def validation_message(err: ValidationError) -> str:
    first = err.errors()[0]
    loc = [str(p) for p in first["loc"]]
    flag = None
    if len(loc) >= 2:
        section, fieldname = loc[0], loc[-1]
        if loc[:2] == ["workload", "speculative"]:
            section = "speculative"
        flag = FLAG_BY_FIELD.get((section, fieldname))
    where = flag or ".".join(loc)
    return f"{where}: {first['msg']}"


# --- output ---------------------------------------------------------------------------------

JSON_KEYS = ("decode_tok_s", "decode_low_tok_s", "decode_high_tok_s", "decode_ceiling_tok_s", "aggregate_tok_s",
             "prefill_tok_s", "ttft_s", "inter_token_ms", "response_s", "requests_per_hour", "weights_gb",
             "weights_read_gb", "kv_gb", "kv_known", "overhead_gb", "total_gb", "fast_capacity_gb", "fits", "runs",
             "offloaded_fraction", "layers_on_device", "layers", "eta", "compute_bound", "crossover_batch",
             "exceeds_ceiling", "interactive_class", "interactive")


def _gguf_placeholder(s: Scenario) -> str:
    name = "-".join(part for part in (s.model.name, s.quant.name) if part)
    slug = "".join(ch if ch.isalnum() or ch in ".-_" else "-" for ch in name).strip("-") or "model"
    return f"<{slug}.gguf>"


def llama_bench_command(s: Scenario, r: Result) -> str:
    """The llama.cpp command that measures this scenario on the user's machine.

    One stream: llama-bench (-p prompt, -n output, -d context already in the cache, -ngl layers on
    the GPU, -b llama.cpp's logical batch). Several streams: llama-bench measures one stream only,
    so llama-batched-bench (-npp prompt, -ntg output, -npl streams) is the tool."""
    w = s.workload
    all_on_gpu = r.fits or r.layers_on_device >= r.layers
    layers = w.gpu_layers if w.gpu_layers is not None else (99 if all_on_gpu else r.layers_on_device)
    extra = ""
    if w.cpu_moe_layers is not None:
        extra += f" -ncmoe {w.cpu_moe_layers}"
    # Flash attention is always spelled out: llama-bench defaulted to off until mid-2026, so the same
    # line must measure the same thing on any build; a quantized V cache needs it on.
    quantized_kv = w.kv_cache.value in ("q8_0", "q4_0")
    if quantized_kv:
        extra += f" -ctk {w.kv_cache.value} -ctv {w.kv_cache.value}"
    flash = w.flash_attention or quantized_kv
    model = _gguf_placeholder(s)
    if w.streams > 1:
        ctx = w.streams * (w.context + w.prompt_tokens + w.output_tokens) + 256
        return (f"llama-batched-bench -m {model} -c {ctx} -npp {max(w.context, w.prompt_tokens)} "
                f"-ntg {w.output_tokens} -npl {w.streams} -ngl {layers}{extra} -fa {'on' if flash else 'off'}")
    return (f"llama-bench -m {model} -p {w.prompt_tokens} -n {w.output_tokens} -d {w.context} "
            f"-ngl {layers} -b 2048{extra} -fa {1 if flash else 0}")


def published_for(args: argparse.Namespace, s: Scenario, catalog: Catalog) -> PublishedView:
    """What was published on this machine, and of exactly this setup (ids from the flags)."""
    hw = find_hardware(catalog, args.hardware) if args.hardware else None
    setup = Setup(s, hw.id if hw is not None else None, args.model, args.quant)
    return published_view(catalog.published, setup)


def published_json(view: PublishedView) -> dict[str, Any]:
    m = view.machine
    machine = None if m is None else {"runs": m.runs, "models": m.models, "measured_over_model_median": m.median,
                                      "measured_over_model_low": m.low, "measured_over_model_high": m.high}
    def run(r: Published, **extra: Any) -> dict[str, Any]:
        return {"test": r.test_name(), "model": r.model, "measured_tok_s": r.tok_s,
                "model_for_that_run_tok_s": r.model_tok_s, "backend": r.backend.value if r.backend else None,
                "build": r.build or None, **extra, "source": r.source}

    return {"machine": machine, "runs": [run(r, flash_attention=r.flash_attention) for r in view.runs],
            "more": view.more, "prefill_runs": [run(r) for r in view.prefill]}


def result_json(s: Scenario, r: Result) -> dict[str, Any]:
    out = {k: getattr(r, k) for k in JSON_KEYS}
    out["interactive_class"] = r.interactive_class.value if r.interactive_class else "does_not_run"
    out["scenario"] = {"hardware": s.hardware.name, "model": s.model.name, "quant": s.quant.name,
                       "context": s.workload.context, "streams": s.workload.streams}
    out["notes"] = list(r.notes)
    out["steps"] = [f"{st.label}: {st.text}" for st in r.steps]
    out["llama_bench"] = llama_bench_command(s, r)
    return out


def result_text(s: Scenario, r: Result) -> str:
    w = s.workload
    head = f"{s.hardware.name} · {s.model.name} · {s.quant.name} · {w.context:,} tokens context"
    lines = [head, "=" * len(head)]
    if not r.runs:
        lines.append("Does not run: weights and KV exceed fast and host memory together.")
    else:
        feel = r.interactive_class.value if r.interactive_class else ""
        lines.append(f"Decode      {num(r.decode_tok_s or 0)} tok/s per stream "
                     f"(band {num(r.decode_low_tok_s or 0)}–{num(r.decode_high_tok_s or 0)}; "
                     f"ceiling {num(r.decode_ceiling_tok_s or 0)}) — {feel}")
        if w.streams > 1:
            lines.append(f"Aggregate   {num(r.aggregate_tok_s or 0)} tok/s over {w.streams} streams, "
                         f"{num(r.requests_per_hour or 0, 4)} requests/hour")
        lines.append(f"Prefill     {num(r.prefill_tok_s or 0)} tok/s; TTFT {num(r.ttft_s or 0)} s; "
                     f"inter-token {num(r.inter_token_ms or 0)} ms; response {num(r.response_s or 0)} s")
    lines.append(f"Memory      {num(r.total_gb)} GB needed of {num(r.fast_capacity_gb)} GB fast: "
                 + ("fits" if r.fits else f"{r.offloaded_fraction:.0%} offloaded to host"))
    lines.append("")
    lines += [f"  {st.label:<17}{st.text}" for st in r.steps]
    if r.notes:
        lines.append("")
        lines += [f"  note: {n}" for n in r.notes]
    lines += ["", f"Check it:   {llama_bench_command(s, r)}"]
    return "\n".join(lines)


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


def estimate_many(args: argparse.Namespace, catalog: Catalog) -> int:
    """One JSON object per input line in, one JSON result per line out, in one process. A bad line
    gives {"line": n, "error": ...} and the rest still run; the exit code is then 1."""
    path = args.many
    try:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as err:
        raise CliError(f"--many: cannot read {path}: {err.strerror or err}") from None
    parser = _line_parser()
    failed = 0
    with stream:
        for n, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            try:
                ns = _line_args(json.loads(text), parser, args)
                s = scenario_from_args(ns, catalog)
                out: dict[str, Any] = {"line": n, **result_json(s, evaluate(s)),
                                       "published": published_json(published_for(ns, s, catalog))}
            except json.JSONDecodeError as err:
                out, failed = {"line": n, "error": f"not JSON: {err.msg}"}, failed + 1
            except (_LineError, CliError) as err:
                out, failed = {"line": n, "error": str(err)}, failed + 1
            print(json.dumps(out))
    return 1 if failed else 0


def quant_pool(catalog: Catalog, which: str) -> list[tuple[str, Any]]:
    formats = {"gguf": {"gguf"}, "gpu": {"gpu", "exl"}, "all": {"gguf", "gpu", "exl"}}[which]
    return [(k, to_quant(q)) for k, q in catalog.quants.items() if q.format in formats]


def cmd_recommend(args: argparse.Namespace, catalog: Catalog) -> int:
    s = scenario_from_args(args, catalog)
    models = [(k, to_model(m)) for k, m in catalog.models.items()]
    rec = recommend(s, models, quant_pool(catalog, args.quants), runner_ups=args.runner_ups)
    if args.json:
        print(rec.model_dump_json(indent=2))
        return 0
    print(f"{s.hardware.name}, {s.workload.context:,} tokens context, {s.workload.streams} stream(s), "
          f"interactive at ≥ {num(rec.threshold_tok_s)} tok/s")
    if rec.pick is None:
        print("Nothing in the catalog fits and stays interactive here.")
    else:
        p = rec.pick
        print(f"Pick:        {p.model_name} at {p.quant_name} — {p.reason}")
        for c in rec.runner_ups:
            print(f"Runner-up:   {c.model_name} at {c.quant_name} — {c.reason}")
    for c in rec.rejected:
        print(f"Lost:        {c.model_name} at {c.quant_name} — {c.reason}")
    return 0


def cmd_sweep(args: argparse.Namespace, catalog: Catalog) -> int:
    s = scenario_from_args(args, catalog)
    c = curve(s, args.axis, n=args.points)
    rows = c.as_rows()
    writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="advisor", description="LLM decode-speed advisor: will it fit, and how fast will it type?")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    est = sub.add_parser("estimate", help="decode, prefill, latency and memory for one scenario")
    add_scenario_flags(est)
    est.add_argument("--json", action="store_true", help="print one JSON object")
    est.add_argument("--many", metavar="FILE",
                     help="one scenario per line (JSON object, keys = long flag names; - reads stdin); "
                          "prints one JSON result per line")
    est.set_defaults(run=cmd_estimate)

    rec = sub.add_parser("recommend", help="largest model and quant that fits and stays interactive")
    add_scenario_flags(rec)
    rec.add_argument("--quants", choices=("gguf", "gpu", "all"), default="gguf", help="which quant formats to consider")
    rec.add_argument("--runner-ups", type=int, default=4)
    rec.add_argument("--json", action="store_true")
    rec.set_defaults(run=cmd_recommend)

    sw = sub.add_parser("sweep", help="one curve as CSV")
    add_scenario_flags(sw)
    sw.add_argument("--axis", choices=AXES, required=True)
    sw.add_argument("--points", type=int, default=50)
    sw.set_defaults(run=cmd_sweep)

    for hook in extra_commands():
        hook(sub)
    return p


def extra_commands() -> list[Callable[[Any], None]]:
    """Subcommands other modules add (catalog listing and import, plotting)."""
    hooks: list[Callable[[Any], None]] = []
    try:
        from advisor.cli.catalog import add_commands
        hooks.append(add_commands)
    except ImportError:
        pass
    from advisor.cli.validate import add_commands as add_validation
    hooks.append(add_validation)
    from advisor.cli.measure import add_commands as add_measure_commands
    hooks.append(add_measure_commands)
    from advisor.cli.plot import add_commands as add_plot_command  # Qt loads only when it runs

    hooks.append(add_plot_command)
    from advisor.cli.buying import add_commands as add_buying_commands
    hooks.append(add_buying_commands)
    return hooks


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # argparse already printed its one line (or --help)
        return int(stop.code or 0)
    try:
        catalog = load_catalog(user_catalog_dir())
        return int(args.run(args, catalog))
    except CliError as err:
        print(f"advisor: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    # Run through the imported module, so CliError raised by other modules (which import
    # advisor.cli) is the same class main() catches, not a copy living in __main__.
    from advisor.cli import main as _main

    sys.exit(_main())
