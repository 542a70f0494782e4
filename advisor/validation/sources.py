"""Which publication (or which author's result set) a measurement comes from.

Leave-one-source-out cross-validation holds out every row of one source at a time, so a source's
machine, build, method and habits are never on both sides of a fit. A source is:

- a llama.cpp pull request, issue or discussion thread (`llama.cpp#4167`): its author and the people
  who answered ran it, usually on one build;
- the benchmark notes ggerganov keeps in llama.cpp's `benches/` folder (one author);
- a contributor's pull request to a community results repository (`llmfit#778`);
- a thread of a mirrored issue tracker, as the original thread (`ik_llama.cpp#351`: one file of
  ThomasBaruzier's archive of ik_llama.cpp's pull requests, issues and discussions);
- otherwise one author's results: the GitHub owner (`XiongjieDai`, `lhl`, `geerlingguy`), or the site.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_THREAD = re.compile(r"^/([^/]+)/([^/]+)/(pull|issues|discussions)/(\d+)")
_LLAMA_BENCHES = re.compile(r"^/ggml-org/llama\.cpp/blob/[^/]+/benches/")
# Community result repositories whose pull requests each bring one contributor's machine.
_COMMUNITY = {("alexsjones", "llmfit")}
# Archives of another project's threads, one file per thread named by its number: repository -> project.
_ARCHIVES = {("thomasbaruzier", "ikawrakow-ik-llama.cpp-archive"): "ik_llama.cpp"}
_ARCHIVED_THREAD = re.compile(r"^/([^/]+)/([^/]+)/blob/[^/]+/(?:pull_requests|issues|discussions)/(\d+)[^/]*$")
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
    archived = _ARCHIVED_THREAD.match(path)
    if archived and (project := _ARCHIVES.get((archived.group(1).lower(), archived.group(2).lower()))):
        return f"{project}#{archived.group(3)}"
    if thread and thread.group(1).lower() == "ggml-org":
        return f"{thread.group(2)}#{thread.group(4)}"
    if thread and (thread.group(1).lower(), thread.group(2).lower()) in _COMMUNITY:
        return f"{thread.group(2)}#{thread.group(4)}"
    return owner or host
