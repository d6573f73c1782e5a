"""Inject each class of defect into a good binary and check its code.

Each case copies a generated binary, corrupts one thing through the table
layout (abi.py) and the code addresses check() reported for the pristine
file, and expects its diagnostic code from ``check`` (and, for errors, exit
1 and a refused ``relax`` that leaves the input untouched)."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest
from conftest import Mutable

from dyncall_rewrite import abi
from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image, section

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
    ("DC040", "gcc-pie", d_keycell_readonly, "key cell in .rodata"),
    ("DC041", "clang-nopie", d_key_readonly, "key in .rodata"),
    ("DC042", "gcc-pie", d_no_key_entry, "key cell without entry"),
    ("DC043", "gcc-pie", d_bad_name, "bad key name"),
    ("DC044", "gcc-pie", d_type_key_mismatch, "TYPE_KEY mismatch"),
    ("DC051", "clang-pie", d_resolved_unpatched, "RESOLVED but unpatched"),
    ("DC052", "clang-nopie", d_resolved_not_exec, "RESOLVED to data"),
]


@pytest.mark.parametrize(("code", "variant", "inject", "what"), CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_defect_reported(binaries, tmp_path, capsys, code, variant, inject, what) -> None:
    m = Mutable.copy(binaries(variant), str(tmp_path / "bad"))
    inject(m)
    bad = Image.load(m.path)
    an = check(bad)
    codes = {d.code for d in an.diagnostics}
    assert code in codes, f"{what}: got {sorted(codes)}"
    warning = code in ("DC026", "DC027")
    rc = main(["check", m.path])
    out, err = capsys.readouterr()
    line = next(ln for ln in out.splitlines() if f" {code}: " in ln)
    assert line.startswith(m.path + ": 0x")
    if not warning:
        assert rc == 1 and f"error {code}:" in line
        before = _rd(m.path)
        rc = main(["relax", "--in-place", m.path])
        out, err = capsys.readouterr()
        assert rc == 1 and err.startswith("dyncall-rewrite: error: ") and "DC906" in err
        assert err.count("\n") == 1
        assert _rd(m.path) == before
    else:
        assert rc == 0 and f"warning {code}:" in line
        assert main(["check", "--werror", m.path]) == 1
        capsys.readouterr()


def test_symbol_and_line_in_diagnostics(binaries, tmp_path, capsys) -> None:
    m = Mutable.copy(binaries("gcc-pie"), str(tmp_path / "bad"))
    d_site_not_call(m)
    assert main(["check", m.path]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "DC021" in ln)
    # address, symbol+offset, file:line from DWARF
    assert "<call_var+0xf>" in line and "sites.s:" in line


def test_every_code_has_a_case() -> None:
    from dyncall_rewrite.diagnostics import CODES

    covered = {c[0] for c in CASES}
    untestable = {"DC050"}  # needs a > 2 GiB image: unit-tested below
    assert set(CODES) - covered == untestable


def test_cache_line_and_range_rules(binaries) -> None:
    from dyncall_rewrite.arch.x86_64 import X86_64

    be = X86_64(Image.load(binaries("gcc-pie")))
    for a in range(0x1000, 0x1040):  # rewriter-found sites may sit anywhere
        assert be.site_alignment_problem(a, compiler_labelled=False) is None
    assert be.site_alignment_problem(0x1003, compiler_labelled=True) is None
    assert be.site_alignment_problem(0x1002, compiler_labelled=True)[0] == "DC023"  # type: ignore[index]
    assert be.encode_branch("jmp", 0x1000, 0x1000 + (1 << 32)) is None
    assert be.encode_branch("call", 0x1000, 0x2000) == b"\xe8" + struct.pack("<i", 0x2000 - 0x1005)
    for n in range(1, 40):
        nops = be.canonical_nops(n)
        assert len(nops) == n
        dec = be._disasm(nops, 0)[0]
        assert sum(r[2] for r in dec) == n and all(r[0] == be_nop() for r in dec)
        assert len(dec) == (n + 8) // 9


def be_nop() -> int:
    from capstone import x86_const

    return x86_const.X86_INS_NOP
