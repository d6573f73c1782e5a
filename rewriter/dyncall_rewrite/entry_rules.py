"""The rules of the table sections and of ``__dyncall_keys`` (DC002, the
key entries' DC001-DC005, DC040, DC041, DC043, DC044), on the engine of
rules.py.

The key table is small (one entry per key per unit) and always checked
entry by entry, before the site table: these rules have no vectorised
form.  The columnar proof of the site table starts only when they
reported nothing (columns.check_columns requires an empty diagnostics
list).
"""

from __future__ import annotations

from dataclasses import dataclass

from dyncall_rewrite import abi
from dyncall_rewrite.diagnostics import Diagnostic
from dyncall_rewrite.elf import Image
from dyncall_rewrite.rules import RuleSet
from dyncall_rewrite.tables import Key, Section, section_problems

RULES = RuleSet()
KEYS = abi.DYNCALL_KEYS_SECTION


@dataclass
class KeyCheck:
    """What the key rules learn about one key entry."""

    entry: abi.KeyEntry
    bad: bool = False  # version or kind wrong: its link-time value is not checked
    name: str | None = None


@dataclass
class EntryContext:
    image: Image
    keys: dict[int, Key]  # by cell, as registered so far
    diagnostics: list[Diagnostic]

    def report(self, code: str, addr: int | None, msg: str, index: int | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, addr, msg, index, KEYS if index is not None else None))


# -- the table sections -------------------------------------------------------


@RULES.rule("DC002", stage="table")
def table_section(ctx: EntryContext, t: Section) -> bool:
    """A table section the runtime can read: allocated, aligned, a whole
    number of entries, backed by a PT_LOAD's file contents."""
    problems = section_problems(t)
    for p in problems:
        ctx.diagnostics.append(Diagnostic("DC002", t.addr, f"section {t.name} {p}", table=t.name))
    return t.data is not None


# -- key entries --------------------------------------------------------------


@RULES.rule("DC001", stage="key-entry")
def key_version(ctx: EntryContext, k: KeyCheck) -> None:
    e = k.entry
    if e.version != abi.DYNCALL_ABI_VERSION:
        msg = f"key entry #{e.index} has version {e.version}, expected {abi.DYNCALL_ABI_VERSION}"
        ctx.report("DC001", e.addr, msg, e.index)
        k.bad = True


@RULES.rule("DC003", stage="key-entry")
def key_kind(ctx: EntryContext, k: KeyCheck) -> None:
    e = k.entry
    if e.kind != abi.DYNCALL_KIND_KEY:
        msg = f"key entry #{e.index} has kind {e.kind}, expected {abi.DYNCALL_KIND_KEY} (key)"
        ctx.report("DC003", e.addr, msg, e.index)
        k.bad = True


@RULES.rule("DC004", stage="key-entry")
def key_flags(ctx: EntryContext, k: KeyCheck) -> None:
    e = k.entry
    if e.flags & ~abi.KEY_FLAGS_ALL or e.reserved:
        msg = (
            f"key entry #{e.index} has unknown flags"
            f" 0x{e.flags & ~abi.KEY_FLAGS_ALL:x} or reserved field"
            f" 0x{e.reserved:x}"
        )
        ctx.report("DC004", e.addr, msg, e.index)


@RULES.rule("DC005", stage="key-entry")
def key_cell_mapped(ctx: EntryContext, k: KeyCheck) -> bool:
    e = k.entry
    if not e.keycell or ctx.image.mapped(e.keycell, 8) is None:
        ctx.report(
            "DC005", e.addr, f"key entry #{e.index}: key cell 0x{e.keycell:x} is outside the image", e.index
        )
        return False
    return True


@RULES.rule("DC040", stage="key-entry")
def key_cell_relocatable(ctx: EntryContext, k: KeyCheck) -> None:
    e = k.entry
    if not ctx.image.holds_key_cell(e.keycell):
        msg = (
            f"key cell of key entry #{e.index} is not an aligned pointer the loader can relocate"
            " (PIE/DSO: writable RELRO data; fixed-address executable: any data)"
        )
        ctx.report("DC040", e.keycell, msg, e.index)


@RULES.rule("DC043", stage="key-entry")
def key_name(ctx: EntryContext, k: KeyCheck) -> None:
    e = k.entry
    if e.name:
        k.name = ctx.image.read_cstring(e.name)
        if k.name is None:
            msg = f"key entry #{e.index}: name at 0x{e.name:x} is outside the image or not NUL-terminated"
            ctx.report("DC043", e.addr, msg, e.index)


@RULES.rule("DC044", stage="key-entry")
def key_flags_agree(ctx: EntryContext, k: KeyCheck) -> None:
    """Two entries for one cell (two units) must agree on the flags."""
    e = k.entry
    key = ctx.keys.get(e.keycell)
    if key is not None and key.entries and key.flags != e.flags:
        msg = (
            f"key entry #{e.index} and #{key.entries[0].index}"
            " describe the same key cell with different flags"
        )
        ctx.report("DC044", e.addr, msg, e.index)


@RULES.rule("DC041", stage="key-value")
def key_value_writable(ctx: EntryContext, k: KeyCheck) -> None:
    """A non-const key's link-time address is writable data."""
    e = k.entry
    key = ctx.keys[e.keycell]
    a = key.address
    if k.bad or not a.known:
        return
    img = ctx.image
    writable_needed = not e.flags & abi.DYNCALL_KEY_CONST
    if img.mapped(a.value, 8) is None or (writable_needed and not img.is_writable(a.value, 8)):
        what = "outside the image" if img.mapped(a.value, 8) is None else "in read-only memory"
        ctx.report(
            "DC041", e.addr, f"key {key.label!r} (0x{a.value:x}) is {what}, but it is not const", e.index
        )
