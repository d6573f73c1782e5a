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


MAX_FUNCTION_LINES = 80


def test_no_function_over_80_lines() -> None:
    long = []
    for m, path in _modules().items():
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{m}.{node.name}: {n} lines")
    assert long == []


def _code_literals() -> dict[str, set[str]]:
    """DC0xx codes written as string literals, by module."""
    out: dict[str, set[str]] = {}
    for m, path in _modules().items():
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if len(node.value) == 5 and node.value.startswith("DC0") and node.value[2:].isdigit():
                    out.setdefault(m, set()).add(node.value)
    return out


def test_every_code_has_a_rule() -> None:
    """Every DC0xx code a diagnostic may carry (the catalogue, and every
    literal in the package) is reported by a rule of the engine, and every
    rule's code is in the catalogue."""
    from dyncall_rewrite import entry_rules, prologues, site_rules
    from dyncall_rewrite.diagnostics import CODES

    ruled = entry_rules.RULES.codes() | site_rules.RULES.codes() | prologues.RULES.codes()
    literals = set().union(*_code_literals().values())
    assert set(CODES) - ruled == set()
    assert literals - ruled == set()
    assert ruled - set(CODES) == set()


def test_every_rule_has_both_forms() -> None:
    """Site rules have a vectorised form (the columnar proof); key, table
    and prologue rules are checked entry by entry only (entry_rules.py and
    prologues.py say why)."""
    from dyncall_rewrite import entry_rules, prologues, site_rules

    assert all(r.entry is not None and r.columns is not None for r in site_rules.RULES.rules())
    assert all(r.entry is not None for r in entry_rules.RULES.rules() + prologues.RULES.rules())


def test_every_code_documented() -> None:
    """docs/rewriter.md has a table row for every DC0xx code."""
    from dyncall_rewrite.diagnostics import CODES

    doc = os.path.join(os.environ.get("DYNCALL_SRC_ROOT", os.path.dirname(ROOT)), "docs", "rewriter.md")
    with open(doc) as f:
        text = f.read()
    assert [c for c in CODES if f"| {c} | {CODES[c][0]} |" not in text] == []
