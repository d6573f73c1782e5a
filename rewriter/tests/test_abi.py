"""abi.py must mirror include/dyncall/abi.h (and the names of abi-asm.h it
uses): the headers are read by abi_header.py and compared value by value, so
a constant changed on one side only fails here."""

from __future__ import annotations

import re

import abi_header

from dyncall_rewrite import abi


def _struct(name: str) -> list[tuple[str, str]]:
    m = re.search(
        r"struct\s+" + name + r"\s*\{(.*?)\};", abi_header.header_text(abi_header.HEADERS[0]), flags=re.S
    )
    assert m, f"struct {name} not found in abi.h"
    return re.findall(r"(u?int\d+_t|void\s*\*)\s+(\w+)\s*;", m.group(1))


CTYPE = {"int32_t": "i", "uint32_t": "I", "uint8_t": "B", "uint16_t": "H", "int8_t": "b", "int16_t": "h"}


def test_defines_match() -> None:
    values = abi_header.defines()
    checked = 0
    for name in abi_header.raw_defines(abi_header.HEADERS[0]):
        assert hasattr(abi, name), f"abi.py lacks {name}"
        assert getattr(abi, name) == values[name], name
        checked += 1
    assert checked >= 15


def test_asm_names_match() -> None:
    # abi.py need not mirror the assembly text, but a name it has must agree.
    for name in abi_header.raw_defines(abi_header.HEADERS[1]):
        if hasattr(abi, name):
            assert getattr(abi, name) == abi_header.defines()[name], name


def test_enums_match() -> None:
    for enum in ("dyncall_entry_kind", "dyncall_site_flags", "dyncall_key_flags", "dyncall_fn_record_flags"):
        values = abi_header.enum(enum)
        assert values, enum
        for name, v in values.items():
            assert getattr(abi, name, None) == v, f"{enum}.{name}"
    # Every flag abi.py knows is in the header too (no Python-only flags).
    header_flags = set(abi_header.enum("dyncall_site_flags")) | set(abi_header.enum("dyncall_key_flags"))
    py_flags = {n for n in dir(abi) if n.startswith(("DYNCALL_SITE_", "DYNCALL_KEY_"))}
    py_flags -= {"DYNCALL_SITES_SECTION", "DYNCALL_KEYS_SECTION", "DYNCALL_KEYCELL_PREFIX"}
    py_flags -= {"DYNCALL_SITES_START", "DYNCALL_SITES_STOP", "DYNCALL_KEYS_START", "DYNCALL_KEYS_STOP"}
    assert py_flags == header_flags
    rec_flags = {n for n in dir(abi) if n.startswith("DYNCALL_FN_REC_")}
    rec_flags -= {n for n in rec_flags if n.endswith(("_SHIFT", "_MASK"))}
    assert rec_flags == set(abi_header.enum("dyncall_fn_record_flags"))


def test_struct_layouts_match() -> None:
    for cname, fields in (
        ("dyncall_site_entry", abi.SITE_ENTRY_FIELDS),
        ("dyncall_key_entry", abi.KEY_ENTRY_FIELDS),
    ):
        hdr = [(n, CTYPE[t]) for t, n in _struct(cname)]
        assert hdr == list(fields), cname
    assert abi.SITE_ENTRY_SIZE == 20 and abi.KEY_ENTRY_SIZE == 16
    assert re.search(r"sizeof\(struct dyncall_site_entry\) == 20", abi_header.HEADERS[0].read_text())


def test_flag_tables_complete() -> None:
    assert set(abi.SITE_FLAG_NAMES) == set(abi_header.enum("dyncall_site_flags").values())
    assert set(abi.KEY_FLAG_NAMES) == set(abi_header.enum("dyncall_key_flags").values())
    assert set(abi.KIND_NAMES) == set(abi_header.enum("dyncall_entry_kind").values())


def test_header_reader() -> None:
    # The reader evaluates concatenations of literals and macros.
    assert abi_header.string("DYNCALL_SITES_START") == "__start___dyncall_sites"
    assert abi_header.string("DYNCALL_ASM_X86_64_TRAMP_SLOW_RETPOLINE").endswith(
        "__dyncall_retpoline_r10 - . - 4\n"
    )
    assert abi_header.integer("DYNCALL_ABI_VERSION") == abi.DYNCALL_ABI_VERSION


RUNTIME_ASM = abi_header.INCLUDE.parents[1] / "test" / "runtime" / "Inputs" / "dyncall_asm.inc"


def _lines(text: str) -> list[str]:
    """Assembly lines without comments, blank lines and spacing differences."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _macro(name: str) -> list[str]:
    m = re.search(r"^\.macro " + name + r"\b[^\n]*\n(.*?)^\.endm", RUNTIME_ASM.read_text(), flags=re.S | re.M)
    assert m, f"no .macro {name} in {RUNTIME_ASM.name}"
    return _lines(m.group(1))


def test_runtime_test_asm_matches() -> None:
    # The runtime tests' hand-written x86_64 sites (test/runtime/Inputs/
    # dyncall_asm.inc, also used by bench/) are the text of abi-asm.h.
    s = abi_header.string
    tramp = _lines(
        s("DYNCALL_ASM_TRAMP_PUSHSECTION")
        + s("DYNCALL_ASM_X86_64_TRAMP_ALIGN")
        + "\t.type \\name, @function\n\\name:\n"
        + s("DYNCALL_ASM_X86_64_TRAMP_ENTRY")
        + "\t.if \\retp\n"
        + s("DYNCALL_ASM_X86_64_TRAMP_SLOW_RETPOLINE")
        + "\t.else\n"
        + s("DYNCALL_ASM_X86_64_TRAMP_SLOW")
        + "\t.endif\n\t.size \\name, . - \\name\n\t.popsection\n"
    )
    assert _macro("DC_TRAMP") == tramp
    thunk = s("DYNCALL_RETPOLINE_THUNK")
    assert _macro("DC_RETPOLINE_THUNK") == _lines(
        f'\t.pushsection .text.{thunk},"axG",@progbits,{thunk},comdat\n'
        + s("DYNCALL_ASM_X86_64_RETPOLINE_ALIGN")
        + f"\t.globl {thunk}\n\t.hidden {thunk}\n\t.type {thunk}, @function\n{thunk}:\n"
        + s("DYNCALL_ASM_X86_64_RETPOLINE_BODY")
        + "\t.popsection\n"
    )
    text = RUNTIME_ASM.read_text()
    for section in ("DYNCALL_SITES_SECTION", "DYNCALL_KEYS_SECTION", "DYNCALL_KEYCELL_SECTION"):
        assert f".pushsection {s(section)}," in text, section
    site, key, kind = (
        abi_header.enum(e) for e in ("dyncall_site_flags", "dyncall_key_flags", "dyncall_entry_kind")
    )
    sets = dict(re.findall(r"^\s*\.set (DC_\w+), (\d+)$", text, flags=re.M))
    assert {n: int(v) for n, v in sets.items()} == {
        "DC_CALL": kind["DYNCALL_KIND_CALL"],
        "DC_TAIL": kind["DYNCALL_KIND_TAIL"],
        "DC_FRESH": site["DYNCALL_SITE_FRESH"],
        "DC_TYPEKEY": site["DYNCALL_SITE_TYPE_KEY"],
        "DC_RETP": site["DYNCALL_SITE_RETPOLINE"],
        "DC_ESCAPES": key["DYNCALL_KEY_ESCAPES"],
        "DC_KTYPE": key["DYNCALL_KEY_TYPE"],
    }
    version = abi_header.integer("DYNCALL_ABI_VERSION")
    assert f".byte {version}, \\kind" in text and f".byte {version}, {kind['DYNCALL_KIND_KEY']}" in text
