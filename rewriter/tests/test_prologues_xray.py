"""check and ``list --prologues`` on ppc64le XRay entry sleds (Clang's
route, prologues.py ``check_xray_sleds``): programs assembled by hand, one
clean (a function with a global entry, one without, an exit sled that is
not listed), one per defect."""

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

HEAD = (
    dcgen.PPC64LE_START
    + """\t.p2align 4
\t.type __xray_FunctionEntry,@function
__xray_FunctionEntry:
\tblr
\t.size __xray_FunctionEntry, .-__xray_FunctionEntry
"""
)

SLED = "\tb 1f\n\tnop\n\tstd 0, -8(1)\n\tmflr 0\n\tbl __xray_FunctionEntry\n\tnop\n\tmtlr 0\n1:\n"
TOC = "\taddis 2, 12, .TOC.-{name}@ha\n\taddi 2, 2, .TOC.-{name}@l\n\t.localentry {name}, 8\n"
# the other two global-entry TOC set-ups (runtime/arch/ppc64le_gep.h):
# -mcmodel=large (the offset in a literal before the function) and a non-PIC
# executable's absolute .TOC. (GNU ld's rewrite; the constant stands for it: -pie here)
TOC_LARGE = "\tld 2, -8(12)\n\tadd 2, 2, 12\n\t.localentry {name}, 8\n"
TOC_LIS = "\tlis 2, 2\n\taddi 2, 2, -32512\n\t.localentry {name}, 8\n"


def fn(name: str, toc: bool | str = False, sled: str = SLED, before: str = "") -> str:
    """A function with an entry sled labelled .Lsled_<name>; toc: True (the
    addis/addi TOC set-up) or the template of another."""
    pro = (TOC if toc is True else toc).format(name=name) if toc else ""
    lit = f"\t.p2align 3\n\t.quad .TOC.-{name}\n" if pro.startswith("\tld 2") else "\t.p2align 4\n"
    return (
        f"\t.text\n{lit}\t.globl {name}\n\t.type {name},@function\n{name}:\n{pro}{before}"
        f".Lsled_{name}:\n{sled}\taddi 3, 3, 1\n\tblr\n\t.size {name}, .-{name}\n"
    )


def entry(sled: str, func: str, kind: int = 0, version: int = 2) -> str:
    """One xray_instr_map entry (32 bytes, relative addresses)."""
    return (
        '\t.section xray_instr_map,"a",@progbits\n1:\n'
        f"\t.quad {sled} - 1b\n\t.quad {func} - (1b + 8)\n\t.byte {kind}, 0, {version}\n\t.space 13\n"
    )


def build(tmp: str, name: str, asm: str) -> str:
    s = os.path.join(tmp, name + ".s")
    with open(s, "w") as f:
        f.write(HEAD + asm + '\t.section .note.GNU-stack,"",@progbits\n')
    out = os.path.join(tmp, name)
    cmd = [dcgen.CLANG, "--target=powerpc64le-linux-gnu", "-fuse-ld=lld", "-nostdlib", "-pie", s, "-o", out]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def codes(path: str) -> list[tuple[str, int | None]]:
    an = check(Image.load(path))
    return [(d.code, d.entry) for d in an.diagnostics]


CLEAN = (
    fn("toc_f", toc=True)
    + fn("leaf_f")
    + entry(".Lsled_toc_f", "toc_f")
    + entry(".Lsled_leaf_f", "leaf_f")
    + entry("leaf_f + 20", "leaf_f", kind=1)  # an exit sled: not listed
)

DEFECTS = {
    "zero": (fn("f") + entry(".Lsled_f", "f") + entry("1b", "f"), [("DC065", 1)]),
    "duplicate": (fn("f") + entry(".Lsled_f", "f") + entry(".Lsled_f", "f"), [("DC065", 1)]),
    "version": (fn("f") + entry(".Lsled_f", "f", version=1), [("DC065", 0)]),
    "data": (fn("f") + "\t.data\n.Ldata:\n\t.quad 0\n" + entry(".Ldata", "f"), [("DC061", 0)]),
    "misaligned": (fn("f") + entry(".Lsled_f + 2", "f"), [("DC062", 0)]),
    "other-shape": (fn("f", sled=SLED.replace("-8(1)", "-16(1)")) + entry(".Lsled_f", "f"), [("DC063", 0)]),
    "no-sled": (fn("f", sled="") + entry(".Lsled_f", "f"), [("DC063", 0)]),
    "not-at-entry": (fn("f", before="\tnop\n") + entry(".Lsled_f", "f"), [("DC063", 0)]),
    "short-section": ('\t.section xray_instr_map,"a",@progbits\n\t.quad 0\n', [("DC060", None)]),
}


@needs_clang
def test_clean_sleds(tmp_path: object) -> None:
    path = build(str(tmp_path), "clean", CLEAN)
    an = check(Image.load(path))
    assert an.diagnostics == []
    got = {
        an.image.symbolize(p.function or 0): (p.record - (p.function or 0), p.entry_nops, p.hookable, p.sled)
        for p in an.prologues
        if p.record is not None
    }
    assert got == {"toc_f": (8, 0 + 28, True, "xray"), "leaf_f": (0, 28, True, "xray")}


@needs_clang
@pytest.mark.parametrize("tmpl", [TOC_LARGE, TOC_LIS], ids=["large", "lis"])
def test_other_toc_setups(tmp_path: object, tmpl: str) -> None:
    """A sled at the local entry after `ld r2,-8(r12); add r2,r2,r12` or
    `lis r2; addi r2,r2`: at the function's local entry, as after addis/addi
    (it was DC063, "not at the function's entry")."""
    asm = fn("big_f", toc=tmpl) + entry(".Lsled_big_f", "big_f")
    an = check(Image.load(build(str(tmp_path), "toc", asm)))
    assert an.diagnostics == []
    [p] = an.prologues
    assert p.record is not None and p.function is not None
    assert (an.image.symbolize(p.function), p.record - p.function, p.hookable) == ("big_f", 8, True)


@needs_clang
@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_defect(tmp_path: object, name: str) -> None:
    asm, want = DEFECTS[name]
    assert codes(build(str(tmp_path), name, asm)) == want


@needs_clang
def test_cli(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    path = build(str(tmp_path), "clean", CLEAN)
    assert main(["list", "--prologues", path]) == 0
    text = capsys.readouterr().out.splitlines()
    assert len(text) == 2
    assert "<toc_f> nops=0+28 pad=- hookable=yes state=ok callers=- novec=no sled=xray" in text[0]
    assert main(["list", "--prologues", "--json", path]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["arch"] == "ppc64le" and js["problems"] == 0
    assert [(r["function_symbol"], r["sled"]) for r in js["prologues"]] == [
        ("toc_f", "xray"),
        ("leaf_f", "xray"),
    ]
    assert main(["check", path]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(": 2 patchable function entries")
    bad = build(str(tmp_path), "bad", DEFECTS["other-shape"][0])
    assert main(["check", "-q", bad]) == 1
    out = capsys.readouterr().out
    assert "error DC063" in out and "not `std 0, -8(1)`" in out
    assert main(["list", "--prologues", bad]) == 1


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
