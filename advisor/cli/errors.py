"""Errors the command line reports as one line (exit 2), shared by every subcommand module.

Kept apart from advisor.cli so that subcommand modules can import it at the top without a cycle."""

from __future__ import annotations


class CliError(Exception):
    """A one-line message for the user; exit code 2."""
