"""The one error type of the command line: main() prints it as one line and exits 2."""

from __future__ import annotations


class CliError(Exception):
    """A one-line message for the user; exit code 2."""
