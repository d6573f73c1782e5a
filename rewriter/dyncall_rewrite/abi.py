"""Python mirror of include/dyncall/abi.h (the normative ABI header).

tests/test_abi.py parses the header and fails when this module drifts from
it: every ``#define`` and enumerator listed here must match the header, and
the struct layouts must match the header's field lists.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

DYNCALL_ABI_VERSION = 1

DYNCALL_SITES_SECTION = "__dyncall_sites"
DYNCALL_KEYS_SECTION = "__dyncall_keys"
DYNCALL_FN_RECORDS_SECTION = "__dyncall_fn_records"
# struct dyncall_fn_record (16 bytes): fn (u64), flags (u32), reserved (u32)
DYNCALL_FN_REC_NO_VEC = 1 << 0
DYNCALL_FN_REC_VEC_COUNT = 1 << 1
DYNCALL_FN_REC_VARIADIC = 1 << 2
DYNCALL_FN_REC_VEC_YMM = 1 << 3
DYNCALL_FN_REC_VEC_ZMM = 1 << 4
DYNCALL_FN_REC_VEC2_COUNT = 1 << 7
DYNCALL_FN_REC_VEC_SHIFT = 8  # DYNCALL_FN_REC_VEC_COUNT's n: flags bits 8-11
DYNCALL_FN_REC_VEC_MASK = 15
DYNCALL_FN_REC_INT_COUNT = 1 << 5
DYNCALL_FN_REC_INT_X8 = 1 << 6
DYNCALL_FN_REC_INT_SHIFT = 12  # DYNCALL_FN_REC_INT_COUNT's n: flags bits 12-15
DYNCALL_FN_REC_INT_MASK = 15
DYNCALL_X86_64_INT_ARG_REGS = 6
DYNCALL_AARCH64_INT_ARG_REGS = 8
DYNCALL_PPC64LE_INT_ARG_REGS = 8  # r3-r10
DYNCALL_FN_REC_VEC2_SHIFT = 16  # DYNCALL_FN_REC_VEC2_COUNT's m (ppc64le v2..): flags bits 16-19
DYNCALL_FN_REC_VEC2_MASK = 15
DYNCALL_X86_64_VEC_ARG_REGS = 8
DYNCALL_AARCH64_VEC_ARG_REGS = 8
DYNCALL_PPC64LE_FPR_ARG_REGS = 13
DYNCALL_PPC64LE_VR_ARG_REGS = 12
FN_RECORD_SIZE = 16
DYNCALL_TRAMP_PREFIX = "__dyncall_tramp."
DYNCALL_KEYCELL_PREFIX = "__dyncall_keycell."
DYNCALL_TYPE_KEY_PREFIX = "__dyncall_tkey."
DYNCALL_RETPOLINE_THUNK = "__dyncall_retpoline_r10"
DYNCALL_REGISTER_FN = "__dyncall_register"
DYNCALL_UNREGISTER_FN = "__dyncall_unregister"
DYNCALL_STORE_FN = "__dyncall_store"
DYNCALL_NOTE_FN = "__dyncall_note"
DYNCALL_RESYNC_FN = "__dyncall_resync"
DYNCALL_CTOR_PRIORITY = 100
DYNCALL_ATTR_NAME = "dynamic_call"

# enum dyncall_entry_kind
DYNCALL_KIND_CALL = 1
DYNCALL_KIND_TAIL = 2
DYNCALL_KIND_KEY = 3
DYNCALL_KIND_PROLOGUE = 4
DYNCALL_KIND_POLY = 5
DYNCALL_KIND_COND = 6
DYNCALL_KIND_INLINE = 7

# enum dyncall_site_flags
DYNCALL_SITE_FRESH = 1 << 0
DYNCALL_SITE_TYPE_KEY = 1 << 1
DYNCALL_SITE_RETPOLINE = 1 << 2
DYNCALL_SITE_BTI = 1 << 3
DYNCALL_SITE_IBT = 1 << 4
DYNCALL_SITE_RESOLVED = 1 << 5

# enum dyncall_key_flags
DYNCALL_KEY_ESCAPES = 1 << 0
DYNCALL_KEY_TYPE = 1 << 1
DYNCALL_KEY_CONST = 1 << 2
DYNCALL_KEY_WHOLE_PROGRAM = 1 << 3
DYNCALL_WP_KEY_PREFIX = "__dyncall_wpkey."
DYNCALL_WP_KEY_NAME = "(indirect call)"
DYNCALL_HIT_PREFIX = "__dyncall_hit."
DYNCALL_LIT_PREFIX = "__dyncall_lit."

# a conditional (COND) site while its key is NULL: nopl 0x0(%rax,%rax,1)
DYNCALL_X86_64_NOP5 = "\x0f\x1f\x44\x00\x00"
X86_64_NOP5 = DYNCALL_X86_64_NOP5.encode("latin-1")
DYNCALL_X86_64_TRAMP_PAD = 3
DYNCALL_X86_64_TRAMP_ALIGN = 8

KIND_NAMES = {
    DYNCALL_KIND_CALL: "call",
    DYNCALL_KIND_TAIL: "tail",
    DYNCALL_KIND_KEY: "key",
    DYNCALL_KIND_PROLOGUE: "prologue",
    DYNCALL_KIND_POLY: "poly",
    DYNCALL_KIND_COND: "cond",
    DYNCALL_KIND_INLINE: "inline",
}
SITE_FLAG_NAMES = {
    DYNCALL_SITE_FRESH: "FRESH",
    DYNCALL_SITE_TYPE_KEY: "TYPE_KEY",
    DYNCALL_SITE_RETPOLINE: "RETPOLINE",
    DYNCALL_SITE_BTI: "BTI",
    DYNCALL_SITE_IBT: "IBT",
    DYNCALL_SITE_RESOLVED: "RESOLVED",
}
KEY_FLAG_NAMES = {
    DYNCALL_KEY_ESCAPES: "ESCAPES",
    DYNCALL_KEY_TYPE: "TYPE",
    DYNCALL_KEY_CONST: "CONST",
    DYNCALL_KEY_WHOLE_PROGRAM: "WHOLE_PROGRAM",
}
SITE_FLAGS_ALL = sum(SITE_FLAG_NAMES)
KEY_FLAGS_ALL = sum(KEY_FLAG_NAMES)

# struct dyncall_site_entry: (C field name, struct format char), in order.
SITE_ENTRY_FIELDS: tuple[tuple[str, str], ...] = (
    ("site", "i"),
    ("tramp", "i"),
    ("keycell", "i"),
    ("func", "i"),
    ("version", "B"),
    ("kind", "B"),
    ("flags", "H"),
)
# struct dyncall_key_entry
KEY_ENTRY_FIELDS: tuple[tuple[str, str], ...] = (
    ("keycell", "i"),
    ("name", "i"),
    ("version", "B"),
    ("kind", "B"),
    ("flags", "H"),
    ("reserved", "I"),
)
SITE_ENTRY = struct.Struct("<" + "".join(f for _, f in SITE_ENTRY_FIELDS))
KEY_ENTRY = struct.Struct("<" + "".join(f for _, f in KEY_ENTRY_FIELDS))
SITE_ENTRY_SIZE = SITE_ENTRY.size  # 20
KEY_ENTRY_SIZE = KEY_ENTRY.size  # 16
TABLE_ALIGN = 4
# Byte offsets of the self-relative fields (their own address is the base).
SITE_OFF_SITE = 0
SITE_OFF_TRAMP = 4
SITE_OFF_KEYCELL = 8
SITE_OFF_FUNC = 12
SITE_OFF_FLAGS = 18
KEY_OFF_KEYCELL = 0
KEY_OFF_NAME = 4


def flag_names(flags: int, names: dict[int, str]) -> list[str]:
    out = [n for bit, n in names.items() if flags & bit]
    unknown = flags & ~sum(names)
    if unknown:
        out.append(f"0x{unknown:x}")
    return out


@dataclass(slots=True)
class SiteEntry:
    """One decoded struct dyncall_site_entry with absolute addresses
    (0 where the field is 0)."""

    index: int
    addr: int  # address of the entry itself
    site: int
    tramp: int
    keycell: int
    func: int
    version: int
    kind: int
    flags: int


@dataclass(slots=True)
class KeyEntry:
    index: int
    addr: int
    keycell: int
    name: int  # absolute address of the name string, 0 if none
    version: int
    kind: int
    flags: int
    reserved: int


def decode_sites(data: bytes, base: int) -> list[SiteEntry]:
    """Decode a __dyncall_sites section whose first byte is at ``base``."""
    out = []
    for i, (site, tramp, keycell, func, version, kind, flags) in enumerate(SITE_ENTRY.iter_unpack(data)):
        a = base + i * SITE_ENTRY_SIZE
        out.append(
            SiteEntry(
                i,
                a,
                a + site if site else 0,
                a + 4 + tramp if tramp else 0,
                a + 8 + keycell if keycell else 0,
                a + 12 + func if func else 0,
                version,
                kind,
                flags,
            )
        )
    return out


def decode_keys(data: bytes, base: int) -> list[KeyEntry]:
    out = []
    for i, (keycell, name, version, kind, flags, reserved) in enumerate(KEY_ENTRY.iter_unpack(data)):
        a = base + i * KEY_ENTRY_SIZE
        out.append(
            KeyEntry(
                i,
                a,
                a + keycell if keycell else 0,
                a + 4 + name if name else 0,
                version,
                kind,
                flags,
                reserved,
            )
        )
    return out


# struct dyncall_site_entry as a numpy record type (columns.py).
SITE_ENTRY_DTYPE: Any = {  # a numpy dtype spec (names, formats, offsets, itemsize)
    "names": [n for n, _ in SITE_ENTRY_FIELDS],
    "formats": ["<" + {"i": "i4", "B": "u1", "H": "u2"}[f] for _, f in SITE_ENTRY_FIELDS],
    "offsets": [SITE_OFF_SITE, SITE_OFF_TRAMP, SITE_OFF_KEYCELL, SITE_OFF_FUNC, 16, 17, SITE_OFF_FLAGS],
    "itemsize": SITE_ENTRY_SIZE,
}
