"""abi.py must mirror include/dyncall/abi.h: parse the header and compare."""

from __future__ import annotations

import pathlib
import re

from dyncall_rewrite import abi

HEADER = pathlib.Path(__file__).resolve().parents[2] / "include" / "dyncall" / "abi.h"


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _header() -> str:
    return _strip_comments(HEADER.read_text())


def _defines() -> dict[str, str]:
    return dict(re.findall(r"^\s*#define\s+(DYNCALL_\w+)\s+(.+?)\s*$", _header(), flags=re.M))


def _enum(name: str) -> dict[str, int]:
    m = re.search(r"enum\s+" + name + r"\s*\{(.*?)\};", _header(), flags=re.S)
    assert m, f"enum {name} not found in abi.h"
    out = {}
    for ident, expr in re.findall(r"(DYNCALL_\w+)\s*=\s*([^,]+),?", m.group(1)):
        expr = re.sub(r"(\d+)u\b", r"\1", expr.strip())
        assert re.fullmatch(r"[\d\s<>()x]+", expr), expr
        out[ident] = eval(expr)
    return out


def _struct(name: str) -> list[tuple[str, str]]:
    m = re.search(r"struct\s+" + name + r"\s*\{(.*?)\};", _header(), flags=re.S)
    assert m, f"struct {name} not found in abi.h"
    return re.findall(r"(u?int\d+_t|void\s*\*)\s+(\w+)\s*;", m.group(1))


CTYPE = {"int32_t": "i", "uint32_t": "I", "uint8_t": "B", "uint16_t": "H", "int8_t": "b", "int16_t": "h"}


def test_defines_match() -> None:
    defs = _defines()
    checked = 0
    for name, raw in defs.items():
        if name == "DYNCALL_ABI_H":
            continue
        assert hasattr(abi, name), f"abi.py lacks {name}"
        value = eval(raw) if raw.startswith('"') else int(raw)
        assert getattr(abi, name) == value, name
        checked += 1
    assert checked >= 15


def test_enums_match() -> None:
    for enum in ("dyncall_entry_kind", "dyncall_site_flags", "dyncall_key_flags"):
        values = _enum(enum)
        assert values, enum
        for name, v in values.items():
            assert getattr(abi, name, None) == v, f"{enum}.{name}"
    # Every flag abi.py knows is in the header too (no Python-only flags).
    header_flags = set(_enum("dyncall_site_flags")) | set(_enum("dyncall_key_flags"))
    py_flags = {n for n in dir(abi) if n.startswith(("DYNCALL_SITE_", "DYNCALL_KEY_"))}
    py_flags -= {"DYNCALL_SITES_SECTION", "DYNCALL_KEYS_SECTION", "DYNCALL_KEYCELL_PREFIX"}
    assert py_flags == header_flags


def test_struct_layouts_match() -> None:
    for cname, fields in (
        ("dyncall_site_entry", abi.SITE_ENTRY_FIELDS),
        ("dyncall_key_entry", abi.KEY_ENTRY_FIELDS),
    ):
        hdr = [(n, CTYPE[t]) for t, n in _struct(cname)]
        assert hdr == list(fields), cname
    assert abi.SITE_ENTRY_SIZE == 20 and abi.KEY_ENTRY_SIZE == 16
    assert re.search(r"sizeof\(struct dyncall_site_entry\) == 20", HEADER.read_text())


def test_flag_tables_complete() -> None:
    assert set(abi.SITE_FLAG_NAMES) == set(_enum("dyncall_site_flags").values())
    assert set(abi.KEY_FLAG_NAMES) == set(_enum("dyncall_key_flags").values())
    assert set(abi.KIND_NAMES) == set(_enum("dyncall_entry_kind").values())
