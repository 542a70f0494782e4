"""Which publication (or which author's result set) a measurement comes from.

Leave-one-source-out cross-validation holds out every row of one source at a time, so a source's
machine, build, method and habits are never on both sides of a fit. A source is:

- a llama.cpp pull request, issue or discussion thread (`llama.cpp#4167`): its author and the people
  who answered ran it, usually on one build;
- the benchmark notes ggerganov keeps in llama.cpp's `benches/` folder (one author);
- a contributor's pull request to a community results repository (`llmfit#778`);
- otherwise one author's results: the GitHub owner (`XiongjieDai`, `lhl`, `geerlingguy`), or the site.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_THREAD = re.compile(r"^/([^/]+)/([^/]+)/(pull|issues|discussions)/(\d+)")
_LLAMA_BENCHES = re.compile(r"^/ggml-org/llama\.cpp/blob/[^/]+/benches/")
# Community result repositories whose pull requests each bring one contributor's machine.
_COMMUNITY = {("alexsjones", "llmfit")}
# Owners whose repositories and issue threads are all one author's own results.
_AUTHORS = {"geerlingguy"}


def source_of(url: str) -> str:
    """The source key of a measurement's URL (see the module text)."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path
    if host != "github.com":
        return host or url
    if _LLAMA_BENCHES.match(path):
        return "llama.cpp benches"
    owner = path.strip("/").split("/")[0].lower() if path.strip("/") else ""
    thread = _THREAD.match(path)
    if owner in _AUTHORS:
        return owner
    if thread and thread.group(1).lower() == "ggml-org":
        return f"{thread.group(2)}#{thread.group(4)}"
    if thread and (thread.group(1).lower(), thread.group(2).lower()) in _COMMUNITY:
        return f"{thread.group(2)}#{thread.group(4)}"
    return owner or host
