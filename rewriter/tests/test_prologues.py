"""check's rules of __patchable_function_entries (prologues.py, DC060-
DC065) and ``list --prologues``, on x86-64 programs assembled by hand: one
clean program (GCC's and Clang's shapes, with and without endbr64, the
runtime's layout and another one), and one program per defect."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import dcgen
import pytest
from conftest import needs_clang

from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image

MAIN = """\t.text
\t.globl main
\t.type main,@function
main:
\txorl %eax, %eax
\tret
\t.size main, .-main
"""


def fn(
    name: str, pre: str = ".fill 24, 1, 0x90", entry: str = ".fill 5, 1, 0x90", align: str = ".p2align 3"
) -> str:
    """A function with a patchable prologue: its record label .Lrec_<name>
    before ``pre``, the function's entry before ``entry``."""
    return (
        f"\t.text\n\t{align}\n.Lrec_{name}:\n\t{pre}\n\t.globl {name}\n\t.type {name},@function\n{name}:\n"
        f"\t{entry}\n\tleaq 1(%rdi), %rax\n\tret\n\t.size {name}, .-{name}\n"
    )


def records(*labels: str, section: str = '"aw",@progbits') -> str:
    quads = "".join(f"\t.quad {x}\n" for x in labels)
    return f"\t.section __patchable_function_entries,{section}\n\t.p2align 3\n{quads}"


def build(tmp: str, name: str, asm: str) -> str:
    s = os.path.join(tmp, name + ".s")
    with open(s, "w") as f:
        f.write(MAIN + asm + '\t.section .note.GNU-stack,"",@progbits\n')
    out = os.path.join(tmp, name)
    subprocess.run([dcgen.CLANG, "-fuse-ld=lld", "-pie", s, "-o", out], check=True, capture_output=True)
    return out


def codes(path: str) -> list[tuple[str, int | None]]:
    an = check(Image.load(path))
    return [(d.code, d.entry) for d in an.diagnostics]


CLEAN = (
    fn("gcc_f")
    + fn("clang_f", entry=".byte 0x0f, 0x1f, 0x44, 0x00, 0x08")
    + fn("cet_f", entry=".byte 0xf3, 0x0f, 0x1e, 0xfa\n\t.fill 5, 1, 0x90")
    + fn("cet5_f", entry=".byte 0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00, 0x08")
    + fn("nopdisp0_f", entry=".byte 0x0f, 0x1f, 0x44, 0x00, 0x00")
    + fn("other_f", pre="", entry=".fill 16, 1, 0x90")
    + fn("pre2_f", pre="nop; nop", entry="nop; nop", align=".p2align 4")
    + records(
        ".Lrec_gcc_f",
        ".Lrec_clang_f",
        ".Lrec_cet_f",
        ".Lrec_cet5_f",
        ".Lrec_nopdisp0_f",
        ".Lrec_other_f",
        ".Lrec_pre2_f",
    )
)

DEFECTS = {
    # name: (assembly, expected (code, entry) diagnostics)
    "zero": (fn("f") + records(".Lrec_f", "0"), [("DC065", 1)]),
    "duplicate": (fn("f") + records(".Lrec_f", ".Lrec_f"), [("DC065", 1)]),
    "data": (fn("f") + "\t.data\n.Ldata:\n\t.quad 0\n" + records(".Ldata"), [("DC061", 0)]),
    "not-nop": (fn("f", pre="", entry="") + records(".Lrec_f"), [("DC063", 0)]),
    "no-entry-nop": (fn("f", entry="") + records(".Lrec_f"), [("DC063", 0)]),
    "inside-body": (
        "\t.text\n\t.globl g\n\t.type g,@function\ng:\n\txorl %eax, %eax\n.Lmid:\n\tnop\n\tnop\n\tret\n"
        "\t.size g, .-g\n" + records(".Lmid"),
        [("DC063", 0)],
    ),
    "pad-before-entry": (
        fn("f", pre=".fill 20, 1, 0x90\n\t.byte 0xf3, 0x0f, 0x1e, 0xfa") + records(".Lrec_f"),
        [("DC063", 0)],
    ),
    "misaligned-slot": (fn("f", align=".p2align 3\n\t.fill 4, 1, 0xcc") + records(".Lrec_f"), [("DC062", 0)]),
    # __dyncall_fn_records (abi.h): a record naming main (no patchable
    # entry), and a section that is not whole 16-byte records
    "fn-record-elsewhere": (
        fn("f") + records(".Lrec_f") + '\t.section __dyncall_fn_records,"aw",@progbits\n\t.p2align 3\n'
        "\t.quad f\n\t.long 1, 0\n\t.quad main\n\t.long 1, 0\n",
        [("DC066", 1)],
    ),
    "fn-record-short": (
        fn("f")
        + records(".Lrec_f")
        + '\t.section __dyncall_fn_records,"aw",@progbits\n\t.p2align 3\n\t.quad f\n',
        [("DC066", None)],
    ),
    # DYNCALL_FN_REC_VEC_COUNT (2) with n = 0, n = 9, and with NO_VEC
    "fn-record-count": (
        fn("f")
        + fn("g")
        + fn("h")
        + records(".Lrec_f", ".Lrec_g", ".Lrec_h")
        + '\t.section __dyncall_fn_records,"aw",@progbits\n\t.p2align 3\n'
        "\t.quad f\n\t.long 0x002, 0\n\t.quad g\n\t.long 0x902, 0\n\t.quad h\n\t.long 0x103, 0\n",
        [("DC066", 0), ("DC066", 1), ("DC066", 2)],
    ),
    # DYNCALL_FN_REC_INT_COUNT (0x20): 7 integer registers (x86-64 has 6),
    # the flag on a variadic record; 6 and 0 are valid
    "fn-record-int-count": (
        fn("f")
        + fn("g")
        + fn("h")
        + fn("k")
        + records(".Lrec_f", ".Lrec_g", ".Lrec_h", ".Lrec_k")
        + '\t.section __dyncall_fn_records,"aw",@progbits\n\t.p2align 3\n'
        "\t.quad f\n\t.long 0x7021, 0\n\t.quad g\n\t.long 0x1826, 0\n"
        "\t.quad h\n\t.long 0x6021, 0\n\t.quad k\n\t.long 0x0122, 0\n",
        [("DC066", 0), ("DC066", 1)],
    ),
    # DYNCALL_FN_REC_INT_X8 (0x40), aarch64's indirect result register, on
    # x86-64; the same count without it is valid
    "fn-record-int-x8": (
        fn("f")
        + fn("g")
        + records(".Lrec_f", ".Lrec_g")
        + '\t.section __dyncall_fn_records,"aw",@progbits\n\t.p2align 3\n'
        "\t.quad f\n\t.long 0x1061, 0\n\t.quad g\n\t.long 0x1021, 0\n",
        [("DC066", 0)],
    ),
    "short-section": (
        '\t.section __patchable_function_entries,"aw",@progbits\n\t.p2align 3\n\t.long 0\n',
        [("DC060", None)],
    ),
}

# The codes the cases below report (DC064: test_overlap_with_a_site_padding).
COVERED = {c for _, want in DEFECTS.values() for c, _ in want} | {"DC064"}


@needs_clang
def test_clean_shapes(tmp_path: object) -> None:
    path = build(str(tmp_path), "clean", CLEAN)
    an = check(Image.load(path))
    assert an.diagnostics == []
    got = {
        an.image.symbolize(p.function or 0): (p.pre, p.pad, p.entry_nops, p.hookable, p.entry_insns, p.direct)
        for p in an.prologues
    }
    # the entry's shape: one 5-byte NOP (Clang; GCC with the dyncall
    # plugin) is the runtime's direct entry unless endbr64 comes first
    assert got == {
        "gcc_f": (24, None, 5, True, (1, 1, 1, 1, 1), False),
        "clang_f": (24, None, 5, True, (5,), True),
        "nopdisp0_f": (24, None, 5, True, (5,), True),
        "cet_f": (24, "endbr64", 5, True, (1, 1, 1, 1, 1), False),
        "cet5_f": (24, "endbr64", 5, True, (5,), False),
        "other_f": (0, None, 16, False, (1,) * 16, False),
        "pre2_f": (2, None, 2, False, (1, 1), False),
    }


@needs_clang
@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_defect(tmp_path: object, name: str) -> None:
    asm, want = DEFECTS[name]
    assert codes(build(str(tmp_path), name, asm)) == want


@needs_clang
def test_int_count_listed(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """DYNCALL_FN_REC_INT_COUNT: the count on each prologue, ``intregs=`` in
    ``list --prologues`` (6, all, for a record without it)."""
    asm = (
        fn("f")
        + fn("g")
        + fn("h")
        + records(".Lrec_f", ".Lrec_g", ".Lrec_h")
        + '\t.section __dyncall_fn_records,"aw",@progbits\n\t.p2align 3\n'
        "\t.quad f\n\t.long 0x2021, 0\n\t.quad g\n\t.long 0x0122, 0\n\t.quad h\n\t.long 0x0806, 0\n"
    )
    path = build(str(tmp_path), "ints", asm)
    an = check(Image.load(path))
    assert an.diagnostics == []
    got = {an.image.symbolize(p.function or 0): (p.int_regs, p.int_x8) for p in an.prologues}
    assert got == {"f": (2, False), "g": (0, False), "h": (6, False)}
    assert main(["list", "--prologues", path]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].endswith(" vecregs=0 intregs=2") and text[2].endswith(" vecregs=8 variadic intregs=6")
    assert main(["list", "--prologues", "--json", path]) == 0
    js = json.loads(capsys.readouterr().out)
    assert [(r["int_regs"], r["int_x8"]) for r in js["prologues"]] == [(2, False), (0, False), (6, False)]


@needs_clang
def test_overlap_with_a_site_padding(tmp_path: object) -> None:
    """A patchable prologue whose entry NOPs run into the NOP padding of a
    labelled (GCC) site: relax would rewrite prologue bytes (DC064)."""
    asm = dcgen.gen_asm("gcc", retpoline=False, shared=False)
    site = "\t.p2align 2\n\tnop\n\tnop\n\tnop\n.Lsite_tail_const_0:"
    assert site in asm
    asm = asm.replace(
        site,
        "\t.p2align 3\n.Lrec_pf:\n\t.fill 24, 1, 0x90\n\t.globl pf\n\t.type pf,@function\npf:\n"
        "\t.fill 5, 1, 0x90\n\t.size pf, 5\n" + site,
    )
    asm += records(".Lrec_pf")
    s = os.path.join(str(tmp_path), "ov.s")
    with open(s, "w") as f:
        f.write(asm)
    work = str(tmp_path)
    for src, text in (("prog.c", dcgen.PROG_C), ("main.c", dcgen.MAIN_C)):
        with open(os.path.join(work, src), "w") as f:
            f.write(text)
    out = os.path.join(work, "ov")
    subprocess.run(
        [
            dcgen.CLANG,
            "-fuse-ld=lld",
            "-pie",
            s,
            os.path.join(work, "prog.c"),
            os.path.join(work, "main.c"),
            "-o",
            out,
        ],
        check=True,
        capture_output=True,
    )
    assert codes(out) == [("DC064", 0)]


@needs_clang
def test_entry_then_body_nop(tmp_path: object) -> None:
    """A NOP the body starts with (GCC's loop alignment right after the
    entry) is not part of the entry: a hookable entry is its 5 bytes."""
    asm = (
        fn("one5_f", entry=".byte 0x0f, 0x1f, 0x44, 0x00, 0x08\n\tnopl (%rax)")
        + fn("five1_f", entry=".fill 5, 1, 0x90\n\tnopl (%rax)")
        + fn("other_f", pre="", entry=".fill 5, 1, 0x90\n\tnopl (%rax)")
        + records(".Lrec_one5_f", ".Lrec_five1_f", ".Lrec_other_f")
    )
    an = check(Image.load(build(str(tmp_path), "bodynop", asm)))
    assert an.diagnostics == []
    got = {an.image.symbolize(p.function or 0): (p.entry_nops, p.entry_insns, p.direct) for p in an.prologues}
    assert got == {
        "one5_f": (5, (5,), True),
        "five1_f": (5, (1, 1, 1, 1, 1), False),
        "other_f": (8, (1, 1, 1, 1, 1, 3), False),  # not the runtime's layout: the whole run
    }


def test_cli_list_prologues(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    path = build(str(tmp_path), "clean", CLEAN)
    assert main(["list", "--prologues", path]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("#0 record=0x") and "<gcc_f> nops=24+5 pad=- hookable=yes state=ok" in text[0]
    assert "state=ok entry=5x1 direct=no callers=- novec=" in text[0]
    assert "<clang_f> nops=24+5 pad=- hookable=yes state=ok entry=1x5 direct=yes callers=- novec=" in text[1]
    assert "<cet_f> nops=24+5 pad=endbr64 hookable=yes state=ok entry=5x1 direct=no" in text[2]
    assert "<cet5_f> nops=24+5 pad=endbr64 hookable=yes state=ok entry=1x5 direct=no" in text[3]
    assert "<other_f> nops=0+16 pad=- hookable=no state=ok entry=16x1 callers=- novec=" in text[5]
    assert main(["list", "--prologues", "--json", path]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["problems"] == 0 and len(js["prologues"]) == 7
    # linked without --emit-relocs: no caller table (callers.py)
    assert js["caller_table"] is False and js["prologues"][1]["call_sites"] is None
    assert js["prologues"][5]["function_symbol"] == "other_f" and js["prologues"][5]["hookable"] is False
    assert js["prologues"][1]["entry_nops"] == [5] and js["prologues"][1]["direct_entry"] is True
    assert js["prologues"][0]["entry_nops"] == [1] * 5 and js["prologues"][0]["direct_entry"] is False
    assert main(["check", path]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(": 7 patchable function entries")
    bad = build(str(tmp_path), "bad", DEFECTS["no-entry-nop"][0])
    assert main(["check", "-q", bad]) == 1
    assert "error DC063" in capsys.readouterr().out
    assert main(["list", "--prologues", bad]) == 1


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def test_fn_record_counts_ppc64le() -> None:
    """ppc64le records (abi.h DYNCALL_FN_REC_VEC2_COUNT): f1..fn and
    v2..v(m+1); n = 0 only with a vector count; out of range, or NO_VEC
    with a count: malformed."""
    from dyncall_rewrite import abi
    from dyncall_rewrite.prologues import fn_record_vec_regs_ppc64le as counts

    def rec(n: int, m: int | None, extra: int = 0) -> int:
        f = abi.DYNCALL_FN_REC_VEC_COUNT | n << abi.DYNCALL_FN_REC_VEC_SHIFT | extra
        if m is not None:
            f |= abi.DYNCALL_FN_REC_VEC2_COUNT | m << abi.DYNCALL_FN_REC_VEC2_SHIFT
        return f

    assert counts(abi.DYNCALL_FN_REC_NO_VEC) == (0, None)
    assert counts(0) == (13, None)  # no flag: the runtime's default
    assert counts(rec(1, 0)) == (1, 0)
    assert counts(rec(0, 1)) == (0, 1)
    assert counts(rec(13, 12, abi.DYNCALL_FN_REC_VARIADIC)) == (13, 12)
    assert counts(rec(3, None)) == (3, None)
    for bad in (
        rec(0, 0),
        rec(14, 0),
        rec(1, 13),
        rec(0, None),
        rec(1, 0, abi.DYNCALL_FN_REC_NO_VEC),
        abi.DYNCALL_FN_REC_VEC2_COUNT,
    ):
        assert counts(bad) == (None, None), hex(bad)


def test_fn_record_int_counts_per_arch() -> None:
    """DYNCALL_FN_REC_INT_COUNT's limit per arch (check_fn_records' table):
    x86-64 6 (rdi..r9), aarch64 8 (x0-x7), ppc64le 8 (r3-r10); a count
    above it, or on a variadic record, is malformed."""
    from dyncall_rewrite import abi
    from dyncall_rewrite.prologues import INT_ARG_REGS
    from dyncall_rewrite.prologues import fn_record_int_regs as ints

    def rec(n: int, extra: int = 0) -> int:
        return (
            abi.DYNCALL_FN_REC_INT_COUNT
            | n << abi.DYNCALL_FN_REC_INT_SHIFT
            | abi.DYNCALL_FN_REC_NO_VEC
            | extra
        )

    assert INT_ARG_REGS == {"x86_64": 6, "aarch64": 8, "ppc64le": 8}
    ppc = INT_ARG_REGS["ppc64le"]
    assert ints(abi.DYNCALL_FN_REC_NO_VEC, ppc) == 8  # no count: every register
    assert [ints(rec(n), ppc) for n in (0, 1, 5, 8)] == [0, 1, 5, 8]
    assert ints(rec(9), ppc) is None
    assert ints(rec(2, abi.DYNCALL_FN_REC_VARIADIC), ppc) is None
    assert ints(rec(7), INT_ARG_REGS["x86_64"]) is None
