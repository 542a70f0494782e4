"""The layering is a rule: every module under advisor/ is read with `ast` (imports at module level and
inside functions, relative imports resolved) and the import graph is checked.

- advisor.core, the physics, imports nothing else of advisor (no catalog, ui, cli, measure,
  validation, app, detect, settings, session, paths or file I/O) and no Qt;
- advisor.catalog imports no ui, no cli and no Qt;
- only advisor.cli imports advisor.cli;
- no import cycles among advisor modules."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph")


@dataclass(frozen=True)
class Source:
    text: str
    is_package: bool  # an __init__.py: its relative imports start from itself


@dataclass(frozen=True)
class Import:
    importer: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer} imports {self.target} (line {self.line})"


def read_sources(package: Path) -> dict[str, Source]:
    """Every module of `package` by dotted name: advisor/cli/__init__.py is advisor.cli."""
    out: dict[str, Source] = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        out[name] = Source(path.read_text(encoding="utf-8"), is_package)
    return out


def _absolute(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    parts = (importer if is_package else importer.rpartition(".")[0]).split(".")
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imports_of(name: str, source: Source, known: Iterable[str]) -> Iterator[Import]:
    """Each import statement anywhere in the module (ast.walk reaches into functions and branches).
    `from pkg import x` is an import of pkg.x when that is a module, else of pkg."""
    modules = set(known)
    for node in ast.walk(ast.parse(source.text, filename=name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, source.is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield Import(name, sub if sub in modules else base, node.lineno)


def import_graph(sources: Mapping[str, Source]) -> list[Import]:
    return [imp for name, src in sources.items() for imp in imports_of(name, src, sources)]


def within(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def violations(
    graph: Iterable[Import],
    importers: Iterable[str],
    banned: Iterable[str],
    *,
    allowed: Iterable[str] = (),
    exempt: Iterable[str] = (),
) -> list[str]:
    """Imports of a module under `banned` (and not under `allowed`) by a module under `importers`
    (and not under `exempt`)."""
    importers, banned, allowed, exempt = tuple(importers), tuple(banned), tuple(allowed), tuple(exempt)
    return list(
        dict.fromkeys(
            str(i)
            for i in graph
            if within(i.importer, importers)  # once per statement
            and not within(i.importer, exempt)
            and within(i.target, banned)
            and not within(i.target, allowed)
        )
    )


def cycles(graph: Iterable[Import], modules: Iterable[str]) -> list[list[Import]]:
    """One cycle for each group of modules that import each other (Tarjan's strongly connected
    components), as the chain of imports that closes it."""
    nodes = set(modules)
    edges: dict[str, dict[str, Import]] = {n: {} for n in nodes}
    for i in graph:
        if i.importer in nodes and i.target in nodes and i.importer != i.target:
            edges[i.importer].setdefault(i.target, i)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return [_cycle_in(group, edges) for group in groups]


def _cycle_in(group: set[str], edges: Mapping[str, Mapping[str, Import]]) -> list[Import]:
    """A shortest chain of imports from the group's first module back to itself (breadth first)."""
    start = min(group)
    came: dict[str, Import] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w, imp in sorted(edges[v].items()):
                if w not in group or w in came:
                    continue
                came[w] = imp
                if w == start:
                    chain = [imp]
                    while chain[0].importer != start:
                        chain.insert(0, came[chain[0].importer])
                    return chain
                nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle through {start}")  # a strongly connected group always has one


def cycle_text(chain: list[Import]) -> str:
    return " -> ".join([chain[0].importer, *(f"{i.target} (line {i.line} of {i.importer})" for i in chain)])


SOURCES = read_sources(ROOT / "advisor")
GRAPH = import_graph(SOURCES)


def test_core_imports_nothing_above_it() -> None:
    bad = violations(GRAPH, ["advisor.core"], ["advisor", *QT], allowed=["advisor.core"])
    assert not bad, (
        "advisor.core is the physics: it imports no other part of advisor (catalog, ui, cli, "
        "measure, validation, app, detect, settings, session, paths, file I/O) and no Qt:\n  " + "\n  ".join(bad)
    )


def test_catalog_imports_no_ui_cli_or_qt() -> None:
    bad = violations(GRAPH, ["advisor.catalog"], ["advisor.ui", "advisor.cli", *QT])
    assert not bad, "advisor.catalog imports no ui, cli or Qt:\n  " + "\n  ".join(bad)


def test_present_words_the_core_and_nothing_else() -> None:
    bad = violations(GRAPH, ["advisor.present"], ["advisor", *QT], allowed=["advisor.core", "advisor.present"])
    assert not bad, "advisor.present words the core's numbers: it imports only advisor.core, no Qt:\n  " + "\n  ".join(
        bad
    )


def test_only_the_cli_imports_the_cli() -> None:
    bad = violations(GRAPH, ["advisor"], ["advisor.cli"], exempt=["advisor.cli"])
    assert not bad, "nothing outside advisor.cli imports it:\n  " + "\n  ".join(bad)


def test_no_import_cycles() -> None:
    found = cycles(GRAPH, SOURCES)
    assert not found, "import cycles among advisor modules:\n  " + "\n  ".join(cycle_text(c) for c in found)


def test_the_checker_catches_violations() -> None:
    """A small package that breaks every rule, with the imports the checker must not miss: inside a
    function, relative, and `from package import submodule`."""
    fake = {
        "advisor": Source("", True),
        "advisor.core": Source("", True),
        "advisor.core.physics": Source("def f():\n    from ..ui import window\n", False),
        "advisor.catalog": Source("from PySide6 import QtCore\n", True),
        "advisor.ui": Source("", True),
        "advisor.ui.window": Source("from advisor.cli import args\n", False),
        "advisor.cli": Source("from . import args\n", True),
        "advisor.cli.args": Source("import advisor.core.physics\nfrom advisor.ui.window import W\n", False),
    }
    graph = import_graph(fake)
    assert Import("advisor.core.physics", "advisor.ui.window", 2) in graph  # relative, inside a function
    assert Import("advisor.cli", "advisor.cli.args", 1) in graph  # a submodule, not the package
    assert violations(graph, ["advisor.core"], ["advisor", *QT], allowed=["advisor.core"]) == [
        "advisor.core.physics imports advisor.ui.window (line 2)"
    ]
    assert violations(graph, ["advisor.catalog"], ["advisor.ui", "advisor.cli", *QT]) == [
        "advisor.catalog imports PySide6 (line 1)"
    ]
    assert violations(graph, ["advisor"], ["advisor.cli"], exempt=["advisor.cli"]) == [
        "advisor.ui.window imports advisor.cli.args (line 1)"
    ]
    found = cycles(graph, fake)
    assert len(found) == 1
    assert cycle_text(found[0]) == (
        "advisor.cli.args -> advisor.ui.window (line 2 of advisor.cli.args) -> "
        "advisor.cli.args (line 1 of advisor.ui.window)"
    )
    assert cycles([i for i in graph if i.importer != "advisor.ui.window"], fake) == []
