"""The command line over the same core the window uses: `main(argv)` and the parser it assembles.

    python -m advisor.cli estimate --hardware rtx-4090 --model llama-3.1-8b --quant q4_k_m
    python -m advisor.cli estimate --bandwidth 3350 --memory 200 --params 70 --bits 16 --json
    python -m advisor.cli recommend --hardware rtx-4090 --context 8192
    python -m advisor.cli sweep --axis context --hardware m3-max-40c-128gb --model qwen3-32b

Each command group is one module here with an add_commands(subparsers); shared argument handling
is advisor.cli.args, the one error type advisor.cli.errors.CliError. Nothing outside this package
imports it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from advisor.catalog.loader import load_catalog
from advisor.cli import buying, catalog, estimate, measure, plot, recommend, sweep, validate
from advisor.cli.errors import CliError
from advisor.paths import user_catalog_dir

# In the order `advisor --help` lists them.
COMMAND_GROUPS = (estimate, recommend, sweep, catalog, validate, measure, plot, buying)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # "--quant" must not silently mean "--quants"
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # one line, not the usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="advisor", description="LLM decode-speed advisor: will it fit, and how fast will it type?")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for group in COMMAND_GROUPS:
        group.add_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # argparse already printed its one line (or --help)
        return int(stop.code or 0)
    try:
        return int(args.run(args, load_catalog(user_catalog_dir())))
    except CliError as err:
        print(f"advisor: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
