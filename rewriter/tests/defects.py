#!/usr/bin/env python3
"""Defect injectors for dyncall binaries: each corrupts one thing (through
the table layout of abi.py and the addresses check() reports for the
pristine file) so that ``check`` must report one diagnostic code.

Used by tests/test_defects.py and by the lit tests (test/rewriter/):

    defects.py NAME IN OUT     copy IN to OUT and inject defect NAME
    defects.py --list          NAME CODE VARIANT per line
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dyncall_rewrite import abi
from dyncall_rewrite.check import check
from dyncall_rewrite.elf import Image, section


@dataclass
class Mutable:
    """A copy of a binary with helpers to poke table fields."""

    path: str
    img: Image

    @classmethod
    def copy(cls, src: str, dst: str) -> Mutable:
        shutil.copy(src, dst)
        return cls(dst, Image.load(dst))

    def site_entry_addr(self, i: int) -> int:
        sec = section(self.img, abi.DYNCALL_SITES_SECTION)
        assert sec is not None
        return sec.addr + i * abi.SITE_ENTRY_SIZE

    def key_entry_addr(self, i: int) -> int:
        sec = section(self.img, abi.DYNCALL_KEYS_SECTION)
        assert sec is not None
        return sec.addr + i * abi.KEY_ENTRY_SIZE

    def write(self, vaddr: int, data: bytes) -> None:
        off = self.img.offset(vaddr, len(data))
        assert off is not None
        with open(self.path, "r+b") as f:
            f.seek(off)
            f.write(data)

    def read(self, vaddr: int, n: int) -> bytes:
        b = self.img.read(vaddr, n)
        assert b is not None
        return b

    def set_rel(self, field_addr: int, target: int) -> None:
        """Point a self-relative int32 field at an absolute address."""
        self.write(field_addr, struct.pack("<i", target - field_addr if target else 0))

    def set_site(self, i: int, off: int, fmt: str, value: int) -> None:
        self.write(self.site_entry_addr(i) + off, struct.pack("<" + fmt, value))


E = abi  # shorthand
OFF_SITE, OFF_TRAMP, OFF_KEYCELL, OFF_FUNC = 0, 4, 8, 12
OFF_VERSION, OFF_KIND, OFF_FLAGS = 16, 17, 18


def _rd(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _an(m: Mutable):  # type: ignore[no-untyped-def]
    return check(m.img)


def d_version(m: Mutable) -> None:
    m.set_site(0, OFF_VERSION, "B", 2)


def d_table_size(m: Mutable) -> None:
    # sh_size of __dyncall_sites: not a multiple of 20.
    data = _rd(m.path)
    shoff = int.from_bytes(data[40:48], "little")
    shnum = int.from_bytes(data[60:62], "little")
    sec = section(m.img, abi.DYNCALL_SITES_SECTION)
    assert sec is not None
    for i in range(shnum):
        h = shoff + 64 * i
        if (
            int.from_bytes(data[h + 16 : h + 24], "little") == sec.addr
            and int.from_bytes(data[h + 32 : h + 40], "little") == sec.size
        ):
            with open(m.path, "r+b") as f:
                f.seek(h + 32)
                f.write(struct.pack("<Q", sec.size - 3))
            return
    raise AssertionError("section header not found")


def d_kind(m: Mutable) -> None:
    m.set_site(0, OFF_KIND, "B", E.DYNCALL_KIND_POLY)


def d_flags(m: Mutable) -> None:
    m.set_site(0, OFF_FLAGS, "H", 0x8001)


def d_out_of_range(m: Mutable) -> None:
    m.set_site(1, OFF_TRAMP, "i", 0x7FFF0000)


def d_tramp_not_exec(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(0) + OFF_TRAMP, an.keys[an.sites[0].entry.keycell].cell)


def d_tramp_misaligned(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(0) + OFF_TRAMP, an.sites[0].entry.tramp + 1)


def d_tramp_pad(m: Mutable) -> None:
    m.write(_an(m).sites[0].entry.tramp - 1, b"\x90")


def d_slow_path(m: Mutable) -> None:
    m.write(_an(m).sites[0].entry.tramp + 5, b"\x41\xff\xe3")  # jmp *%r11


def d_branch_not_jmp(m: Mutable) -> None:
    m.write(_an(m).sites[0].entry.tramp, b"\xe8")


def d_prepatched(m: Mutable) -> None:
    m.write(_an(m).sites[0].entry.tramp + 1, struct.pack("<i", 0x40))


def d_retpoline_flag(m: Mutable) -> None:
    e = _an(m).sites[0].entry
    m.set_site(0, OFF_FLAGS, "H", e.flags | E.DYNCALL_SITE_RETPOLINE)


def d_site_not_exec(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(0) + OFF_SITE, an.sites[0].entry.keycell)


def d_site_not_call(m: Mutable) -> None:
    m.write(_an(m).sites[0].entry.site, b"\x90")


def d_site_wrong_target(m: Mutable) -> None:
    s = _an(m).sites[0].entry.site
    m.write(s + 1, struct.pack("<i", struct.unpack("<i", m.read(s + 1, 4))[0] + 16))


def d_site_not_boundary(m: Mutable) -> None:
    pass  # gcc-decoy variant carries the defect


def d_dead_tramp(m: Mutable) -> None:
    for b in _an(m).sites[0].callers:
        m.write(b.addr, b"\xe8" + struct.pack("<i", 0))  # call next instruction


def d_jmp_for_call(m: Mutable) -> None:
    m.write(_an(m).sites[0].callers[0].addr, b"\xe9")


def d_dup_site(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(1) + OFF_SITE, an.sites[0].entry.site)


def d_dup_tramp(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(1) + OFF_TRAMP, an.sites[0].entry.tramp)


def d_overlap(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(1) + OFF_TRAMP, an.sites[0].entry.tramp + 8)


def d_keycell_readonly(m: Mutable) -> None:
    an = _an(m)
    name = an.keys[an.sites[0].entry.keycell].entries[0].name
    m.set_rel(m.key_entry_addr(0) + 0, name)


def d_key_readonly(m: Mutable) -> None:
    # non-PIE: the key cell holds key_var's address; point it at .rodata.
    an = _an(m)
    cell = an.sites[0].entry.keycell
    name = an.keys[cell].entries[0].name
    m.write(cell, struct.pack("<Q", name))


def d_no_key_entry(m: Mutable) -> None:
    an = _an(m)
    m.set_rel(m.site_entry_addr(0) + OFF_KEYCELL, an.sites[0].entry.keycell + 24)


def d_bad_name(m: Mutable) -> None:
    m.write(m.key_entry_addr(0) + 4, struct.pack("<i", 0x7FFFFF00))


def d_type_key_mismatch(m: Mutable) -> None:
    e = _an(m).sites[0].entry
    m.set_site(0, OFF_FLAGS, "H", e.flags | E.DYNCALL_SITE_TYPE_KEY)


def d_resolved_unpatched(m: Mutable) -> None:
    e = _an(m).sites[1].entry  # call_const
    m.set_site(1, OFF_FLAGS, "H", e.flags | E.DYNCALL_SITE_RESOLVED)


def d_resolved_not_exec(m: Mutable) -> None:
    # non-PIE: make key_const's initializer a data address, patch the
    # trampoline to it and flag the entry RESOLVED.
    an = _an(m)
    info = an.sites[1]
    key = an.keys[info.entry.keycell]
    data = key.entries[0].name  # some non-executable address
    m.write(key.address.value, struct.pack("<Q", data))
    t = info.entry.tramp
    m.write(t + 1, struct.pack("<i", data - (t + 5)))
    m.set_site(1, OFF_FLAGS, "H", info.entry.flags | E.DYNCALL_SITE_RESOLVED)


def d_inline_no_sentinel(m: Mutable) -> None:
    # entry 1 relabelled an inline guard: its keycell (a key cell, RELRO,
    # holding the key's address) is no literal holding its own address
    m.set_site(1, OFF_KIND, "B", E.DYNCALL_KIND_INLINE)


CASES: list[tuple[str, str, Callable[[Mutable], None], str]] = [
    ("DC001", "gcc-pie", d_version, "version"),
    ("DC002", "gcc-pie", d_table_size, "table size"),
    ("DC003", "gcc-pie", d_kind, "reserved kind"),
    ("DC004", "gcc-pie", d_flags, "unknown flags"),
    ("DC005", "gcc-pie", d_out_of_range, "offset outside the image"),
    ("DC010", "gcc-pie", d_tramp_not_exec, "trampoline in data"),
    ("DC011", "gcc-pie", d_tramp_misaligned, "misaligned trampoline"),
    ("DC012", "clang-pie", d_tramp_pad, "int3 padding"),
    ("DC013", "gcc-pie", d_slow_path, "slow path"),
    ("DC013", "gcc-retpoline", d_slow_path, "retpoline slow path"),
    ("DC014", "gcc-pie", d_branch_not_jmp, "branch not jmp"),
    ("DC015", "clang-pie", d_prepatched, "pre-patched without RESOLVED"),
    ("DC016", "gcc-pie", d_retpoline_flag, "RETPOLINE flag, plain trampoline"),
    ("DC020", "gcc-pie", d_site_not_exec, "site in data"),
    ("DC021", "gcc-nopie", d_site_not_call, "site not a call"),
    ("DC022", "gcc-pie", d_site_wrong_target, "site misses its trampoline"),
    ("DC023", "gcc-pad2", d_site_not_boundary, "rel32 not aligned"),
    ("DC024", "gcc-decoy", d_site_not_boundary, "site inside an instruction"),
    ("DC026", "clang-pie", d_dead_tramp, "dead trampoline"),
    ("DC026", "clang-decoy", d_site_not_boundary, "decoy rejected by discovery"),
    ("DC027", "clang-pie", d_jmp_for_call, "jmp for a call entry"),
    ("DC030", "gcc-pie", d_dup_site, "duplicate site"),
    ("DC031", "gcc-pie", d_dup_tramp, "shared trampoline"),
    ("DC032", "gcc-pie", d_overlap, "overlapping trampolines"),
    ("DC033", "gcc-pie", d_inline_no_sentinel, "inline guard without its literal"),
    ("DC040", "gcc-pie", d_keycell_readonly, "key cell in .rodata"),
    ("DC041", "clang-nopie", d_key_readonly, "key in .rodata"),
    ("DC042", "gcc-pie", d_no_key_entry, "key cell without entry"),
    ("DC043", "gcc-pie", d_bad_name, "bad key name"),
    ("DC044", "gcc-pie", d_type_key_mismatch, "TYPE_KEY mismatch"),
    ("DC051", "clang-pie", d_resolved_unpatched, "RESOLVED but unpatched"),
    ("DC052", "clang-nopie", d_resolved_not_exec, "RESOLVED to data"),
]


def main() -> int:
    if sys.argv[1:] == ["--list"]:
        for code, variant, fn, _ in CASES:
            print(fn.__name__[2:], code, variant)
        return 0
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    name, src, dst = sys.argv[1:]
    fn = globals().get("d_" + name)
    if fn is None:
        print(f"defects.py: no defect {name!r}", file=sys.stderr)
        return 2
    fn(Mutable.copy(src, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
