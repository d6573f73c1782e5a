"""The values of include/dyncall/abi.h and abi-asm.h, read from the headers.

The test generators (dcgen.py) take the assembly text and the names they emit
from here, and test_abi.py checks dyncall_rewrite/abi.py against it, so the
headers stay the one copy.  Every macro of the two headers is a string
literal, a concatenation of string literals and other macros, or an integer;
enums are ``NAME = <integer expression>`` lists.
"""

from __future__ import annotations

import ast
import functools
import pathlib
import re

INCLUDE = pathlib.Path(__file__).resolve().parents[2] / "include" / "dyncall"
HEADERS = (INCLUDE / "abi.h", INCLUDE / "abi-asm.h")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def header_text(path: pathlib.Path) -> str:
    """The header without comments and with continuation lines joined."""
    return strip_comments(path.read_text()).replace("\\\n", " ")


def raw_defines(path: pathlib.Path) -> dict[str, str]:
    """#define NAME <replacement> of one header (guards excluded)."""
    found = re.findall(r"^\s*#define\s+(DYNCALL_\w+)[ \t]+(.+?)\s*$", header_text(path), flags=re.M)
    return dict(found)


_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(\w+))')


def _evaluate(expr: str, raw: dict[str, str], depth: int = 0) -> str | int:
    assert depth < 16, f"macro recursion: {expr}"
    expr = expr.strip()
    if re.fullmatch(r"\d+u?", expr):
        return int(expr.rstrip("u"))
    parts: list[str] = []
    pos = 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        assert m and m.end() > pos, f"cannot read {expr[pos:]!r}"
        if m.group(1):
            parts.append(ast.literal_eval(m.group(1)))
        else:
            assert m.group(2) in raw, f"unknown macro {m.group(2)} in {expr!r}"
            value = _evaluate(raw[m.group(2)], raw, depth + 1)
            assert isinstance(value, str), f"{m.group(2)} is not a string"
            parts.append(value)
        pos = m.end()
    return "".join(parts)


@functools.cache
def defines() -> dict[str, str | int]:
    """Every DYNCALL_* macro of abi.h and abi-asm.h, evaluated."""
    raw: dict[str, str] = {}
    for h in HEADERS:
        raw.update(raw_defines(h))
    guards = {"DYNCALL_ABI_H", "DYNCALL_ABI_ASM_H"}
    return {n: _evaluate(v, raw) for n, v in raw.items() if n not in guards}


def string(name: str) -> str:
    value = defines()[name]
    assert isinstance(value, str), name
    return value


def integer(name: str) -> int:
    value = defines()[name]
    assert isinstance(value, int), name
    return value


def enum(name: str, path: pathlib.Path = HEADERS[0]) -> dict[str, int]:
    m = re.search(r"enum\s+" + name + r"\s*\{(.*?)\};", header_text(path), flags=re.S)
    assert m, f"enum {name} not found in {path.name}"
    out = {}
    for ident, expr in re.findall(r"(DYNCALL_\w+)\s*=\s*([^,]+),?", m.group(1)):
        expr = re.sub(r"(\d+)u\b", r"\1", expr.strip())
        assert re.fullmatch(r"[\d\s<>()x]+", expr), expr
        out[ident] = eval(expr)
    return out
