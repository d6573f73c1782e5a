"""The package's modules import each other without cycles (counting
imports inside functions and under TYPE_CHECKING too) and import no
private name of another module: the layering docs/rewriter.md describes."""

from __future__ import annotations

import ast
import os

PKG = "dyncall_rewrite"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _modules() -> dict[str, str]:
    mods = {}
    for dp, _, fs in os.walk(os.path.join(ROOT, PKG)):
        for f in fs:
            if f.endswith(".py"):
                name = os.path.relpath(os.path.join(dp, f), ROOT)[:-3].replace(os.sep, ".")
                mods[name.removesuffix(".__init__")] = os.path.join(dp, f)
    return mods


def _imports(mods: dict[str, str]) -> dict[str, set[str]]:
    """Module -> the package modules it imports (anywhere in its text);
    ``from pkg.mod import name`` counts pkg.mod and, if it is a module,
    pkg.mod.name."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PKG):
                for t in [node.module] + [f"{node.module}.{a.name}" for a in node.names]:
                    if t in mods and t != m:
                        graph[m].add(t)
            elif isinstance(node, ast.Import):
                graph[m] |= {a.name for a in node.names if a.name in mods and a.name != m}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph = _imports(_modules())
    assert len(graph) > 20
    assert _cycles(graph) == []


def test_cycle_finder_finds_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_private_names_across_modules() -> None:
    bad = []
    for m, path in _modules().items():
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PKG):
                bad += [
                    f"{m}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert bad == []
