"""Inject each class of defect into a good binary and check its code.

The injectors live in defects.py (shared with the lit tests).  Each case
expects its diagnostic code from ``check`` and, for errors, exit 1 and a
refused ``relax`` that leaves the input untouched."""

from __future__ import annotations

import struct

import pytest
from defects import CASES, Mutable, d_site_not_call

from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image


def _rd(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize(("code", "variant", "inject", "what"), CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_defect_reported(binaries, tmp_path, capsys, code, variant, inject, what) -> None:
    m = Mutable.copy(binaries(variant), str(tmp_path / "bad"))
    inject(m)
    bad = Image.load(m.path)
    an = check(bad)
    codes = {d.code for d in an.diagnostics}
    assert code in codes, f"{what}: got {sorted(codes)}"
    severity = {"DC026": "warning", "DC027": "note"}.get(code, "error")
    rc = main(["check", m.path])
    out, err = capsys.readouterr()
    line = next(ln for ln in out.splitlines() if f" {code}: " in ln)
    assert line.startswith(m.path + ": 0x")
    if severity == "error":
        assert rc == 1 and f"error {code}:" in line
        before = _rd(m.path)
        rc = main(["relax", "--in-place", m.path])
        out, err = capsys.readouterr()
        assert rc == 1 and err.startswith("dyncall-rewrite: error: ") and "DC906" in err
        assert err.count("\n") == 1
        assert _rd(m.path) == before
    elif severity == "warning":
        assert rc == 0 and f"warning {code}:" in line
        assert main(["check", "--werror", m.path]) == 1
        capsys.readouterr()
    else:
        # informational: exit 0 even with --werror, says what it costs,
        # not printed with -q (what dyncall-cc passes on a link)
        assert rc == 0 and f"note {code}:" in line and "cost" in line
        assert out.rstrip().endswith(" 0 errors, 0 warnings, 1 notes"), out
        assert main(["check", "--werror", m.path]) == 0
        capsys.readouterr()
        assert main(["check", "-q", m.path]) == 0
        assert capsys.readouterr().out == ""


def test_symbol_and_line_in_diagnostics(binaries, tmp_path, capsys) -> None:
    m = Mutable.copy(binaries("gcc-pie"), str(tmp_path / "bad"))
    d_site_not_call(m)
    assert main(["check", m.path]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "DC021" in ln)
    # address, symbol+offset, file:line from DWARF
    assert "<call_var+0xf>" in line and "sites.s:" in line


def test_every_code_has_a_case() -> None:
    from test_arch_cross import DEFECTS as ARCH_DEFECTS
    from test_prologues import COVERED as PROLOGUE_CODES

    from dyncall_rewrite.diagnostics import CODES

    covered = {c[0] for c in CASES} | {d[2] for d in ARCH_DEFECTS}  # + aarch64/ppc64le cases
    covered |= PROLOGUE_CODES  # DC060-DC065: test_prologues.py
    assert set(CODES) - covered == set()  # x86-64 DC050 needs a > 2 GiB image: unit-tested below


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
