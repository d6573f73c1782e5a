"""The caller table of ``list --prologues`` (callers.py) and ``hookable`` on
aarch64 and ppc64le (the backends' prologue_hookable), on programs
assembled by hand and linked with ``--emit-relocs``: which direct calls
count (the runtime's rule, runtime/prologue.c rela_sites) and which
records the runtime's probe accepts.  The runtime's own counts are
compared with these on compiled programs in test/prologues/list-callers.c.
"""

from __future__ import annotations

import os
import subprocess

import dcgen
import pytest
from conftest import needs_clang

from dyncall_rewrite.callers import caller_callees, caller_sites
from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image


def ppc_fn(name: str, toc: bool = False, pre: bool = False) -> str:
    """A function with its record .Lrec_<name>: at its local entry after a
    TOC set-up (toc), before it (pre: GCC 12's own =2,1) or at its entry."""
    head = f"\t.p2align 4\n\t.globl {name}\n\t.type {name},@function\n"
    if pre:
        return head.replace("\t.globl", f".Lrec_{name}:\n\tnop\n\t.globl") + (
            f"{name}:\n\tnop\n\taddi 3, 3, 1\n\tblr\n\t.size {name}, .-{name}\n"
        )
    body = f"{name}:\n"
    if toc:
        body += f"\taddis 2, 12, .TOC.-{name}@ha\n\taddi 2, 2, .TOC.-{name}@l\n\t.localentry {name}, 8\n"
    return head + body + f".Lrec_{name}:\n\tnop\n\taddi 3, 3, 1\n\tblr\n\t.size {name}, .-{name}\n"


PPC_CALLERS = """\t.p2align 6
\t.globl caller
\t.type caller,@function
caller:
\tbl toc_f
\tnop
\tbl leaf_f
\tnop
\tbl pre_f
\tnop
\tbl leaf_f@notoc
\t.long 0x04000000
.Lsuffix:
\t.long 0x48000001
\t.reloc .Lsuffix, R_PPC64_REL24, toc_f
\t.long 0x48000001
\t.reloc .-4, R_PPC64_REL24, toc_f
\tb toc_f
\t.size caller, .-caller
"""

PPC_RECORDS = """\t.section __patchable_function_entries,"aw",@progbits
\t.p2align 3
\t.quad .Lrec_toc_f
\t.quad .Lrec_leaf_f
\t.quad .Lrec_pre_f
"""


def link(tmp: object, name: str, asm: str, target: str, relocs: bool = True) -> str:
    s = os.path.join(str(tmp), name + ".s")
    with open(s, "w") as f:
        f.write(asm + '\t.section .note.GNU-stack,"",@progbits\n')
    out = os.path.join(str(tmp), name)
    cmd = [dcgen.CLANG, f"--target={target}", "-fuse-ld=lld", "-nostdlib", "-pie", s, "-o", out]
    if relocs:
        cmd.append("-Wl,--emit-relocs")
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def ppc_program(tmp: object, relocs: bool = True) -> str:
    asm = (
        dcgen.PPC64LE_START
        + ppc_fn("toc_f", toc=True)
        + ppc_fn("leaf_f")
        + ppc_fn("pre_f", pre=True)
        + PPC_CALLERS
        + PPC_RECORDS
    )
    return link(tmp, "ppc-callers", asm, "powerpc64le-linux-gnu", relocs)


def by_symbol(img: Image, an: object, sites: dict[int, int] | None) -> dict[str, list[str]]:
    assert sites is not None
    out: dict[str, list[str]] = {}
    for site, callee in sorted(sites.items()):
        out.setdefault(img.symbolize(callee) or "?", []).append(img.symbolize(site) or "?")
    return out


@needs_clang
def test_ppc64le_caller_table(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """A `bl`/`b` the linker sent to the callee's local entry counts as a
    site of the function (toc_f: the branch goes to toc_f + 8, read back
    as toc_f); not: a call with R_PPC64_REL24_NOTOC, a `bl` word that is
    the suffix of a prefixed instruction, a call of a function whose
    record the runtime does not hook (pre_f: its nop is before it)."""
    path = ppc_program(tmp_path)
    img = Image.load(path)
    an = check(img)
    assert not [d for d in an.diagnostics if d.code.startswith("DC06")]
    hook = {img.symbolize(p.function): p.hookable for p in an.prologues}
    assert hook == {"toc_f": True, "leaf_f": True, "pre_f": False}
    sites = by_symbol(img, an, caller_sites(img, an.backend, caller_callees(an)))
    # caller+0 (bl), caller+0x24 (the second hand-made bl, not a suffix),
    # caller+0x28 (b); leaf_f: caller+8 (bl; the @notoc call not)
    assert sites == {"toc_f": ["caller", "caller+0x24", "caller+0x28"], "leaf_f": ["caller+0x8"]}
    assert main(["list", "--prologues", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "<toc_f> nops=0+4 pad=- hookable=yes state=ok entry=1x4 direct=no callers=3 " in out[0]
    assert "<leaf_f> nops=0+4 pad=- hookable=yes state=ok entry=1x4 direct=no callers=1 " in out[1]
    assert "<pre_f> nops=4+4 pad=- hookable=no state=ok entry=1x4 callers=- " in out[2]


@needs_clang
def test_ppc64le_no_relocs(tmp_path: object) -> None:
    img = Image.load(ppc_program(tmp_path, relocs=False))
    an = check(img)
    assert caller_sites(img, an.backend, caller_callees(an)) is None


A64_HEAD = """\t.text
\t.globl _start
\t.type _start,@function
_start:
\tret
\t.size _start, .-_start
"""


def a64_fn(name: str, align: int = 8, pad: str = "", skew: int = 0) -> str:
    """The =4,2 layout, its record .Lrec_<name> `skew` bytes past an
    `align`-byte boundary; `pad`: `bti c` or `bti jc` at the entry."""
    fill = "\tnop\n" * (skew // 4)
    return (
        f"\t.p2align {align.bit_length() - 1}\n{fill}.Lrec_{name}:\n\tnop\n\tnop\n"
        f"\t.globl {name}\n\t.type {name},@function\n{name}:\n{pad}\tnop\n\tnop\n"
        f"\tadd x0, x0, 1\n\tret\n\t.size {name}, .-{name}\n"
    )


@needs_clang
def test_aarch64_hookable(tmp_path: object) -> None:
    """aarch64's hookable is arch_fentry_probe's answer: the =4,2 layout with
    an 8-aligned record, `bti c` or nothing at the entry; a 4-aligned
    record (refused: DYNCALL_ERR_ALIGN) and `bti jc` are not, and neither
    is an error of the file.  Calls count for the hookable ones only."""
    asm = (
        A64_HEAD
        + a64_fn("plain")
        + a64_fn("bti", pad="\tbti c\n")
        + a64_fn("btijc", pad="\tbti jc\n")
        + a64_fn("skewed", align=16, skew=4)
        + "\t.p2align 2\n\t.globl caller\n\t.type caller,@function\ncaller:\n"
        + "\tbl plain\n\tbl bti\n\tbl btijc\n\tbl skewed\n\tb plain\n\t.size caller, .-caller\n"
        + '\t.section __patchable_function_entries,"aw",@progbits\n\t.p2align 3\n'
        + "".join(f"\t.quad .Lrec_{n}\n" for n in ("plain", "bti", "btijc", "skewed"))
    )
    img = Image.load(link(tmp_path, "a64", asm, "aarch64-linux-gnu"))
    an = check(img)
    assert [d.code for d in an.diagnostics if d.code.startswith("DC06")] == []
    got = {img.symbolize(p.function): (p.hookable, p.state, p.record % 8) for p in an.prologues}
    assert got == {
        "plain": (True, "ok", 0),
        "bti": (True, "ok", 0),
        "btijc": (False, "ok", 0),
        "skewed": (False, "ok", 4),
    }
    sites = by_symbol(img, an, caller_sites(img, an.backend, caller_callees(an)))
    assert sites == {"plain": ["caller", "caller+0x10"], "bti": ["caller+0x4"]}


@pytest.mark.parametrize("rec, f, want", [(0x1008, 0x1000, True), (0x1004, 0x1000, False)])
def test_ppc64le_hookable_needs_the_local_entry(rec: int, f: int, want: bool) -> None:
    """ppc64le: the record is the local entry after a TOC set-up (f + 8),
    never inside it or before it (the backend's rule without a file: a
    fake image whose words at f are `addis r2,r12; addi r2,r2`)."""
    from dyncall_rewrite.arch.ppc64le import PPC64LE

    class Img:
        def read(self, addr: int, n: int) -> bytes | None:
            words = {f: 0x3C4C0002, f + 4: 0x38427F00, f + 8: 0x60000000}
            if any(a not in words for a in range(addr, addr + n, 4)):
                return None
            return b"".join(words[a].to_bytes(4, "little") for a in range(addr, addr + n, 4))

    be = PPC64LE.__new__(PPC64LE)
    be.image = Img()  # type: ignore[assignment]
    assert be.prologue_hookable(rec, f, rec) is want
