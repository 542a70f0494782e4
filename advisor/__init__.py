"""LLM speed advisor: will it fit, how fast will it type, and where does it fall off a cliff."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("llm-speed-advisor")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
