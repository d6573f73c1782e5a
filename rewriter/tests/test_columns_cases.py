"""Targeted differential cases for the columnar fast path (columns.py).

Each test links a small hand-written assembly file (or mutates one) that
exercises one tricky input, and requires the columnar path and the object
path to agree (differential.compare_engines); for inputs the object path
finds clean, it also requires that the columns actually proved the image
(``check(img).columns is not None``), so the comparison is not vacuous.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import needs_clang
from dcgen import CLANG
from differential import compare_engines

from dyncall_rewrite.check import check
from dyncall_rewrite.elf import Image, section
from dyncall_rewrite.errors import RewriteError
from dyncall_rewrite.relax import RelaxOptions, relax

pytestmark = needs_clang

FRESH, TYPE_KEY, RETPOLINE = 1, 2, 4
ESCAPES, CONST = 1, 4

PROG_C = r"""
int target_a(int x) { return x + 1; }
int target_b(int x) { return x * 2; }
__attribute__((used)) int (*key_var)(int) = target_a;
__attribute__((used)) int (*const key_const)(int) = target_b;
int main(void) { return 0; }
"""
LINK = {"pie": ["-pie"], "nopie": ["-no-pie"], "shared": ["-shared"]}
THUNK = (
    "\t.text\n\t.globl __dyncall_retpoline_r10\n\t.hidden __dyncall_retpoline_r10\n"
    "\t.type __dyncall_retpoline_r10,@function\n\t.p2align 4\n__dyncall_retpoline_r10:\n"
    "\tcall 1f\n2:\tpause\n\tlfence\n\tjmp 2b\n1:\tmovq %r10, (%rsp)\n\tret\n"
    "\t.size __dyncall_retpoline_r10, .-__dyncall_retpoline_r10\n"
)


def prelude(keys: dict[str, tuple[str, int]]) -> str:
    """Key cells, names and __dyncall_keys entries: ``keys[k] = (symbol
    the cell points to, key flags)``; the cell of key k is ``.Lkc_k``."""
    out = ['\t.section .data.rel.ro,"aw",@progbits\n\t.p2align 3']
    out += [f".Lkc_{k}:\n\t.quad {sym}" for k, (sym, _) in keys.items()]
    out.append('\t.section .rodata.str1.1,"aMS",@progbits,1')
    out += [f'.Ln_{k}:\n\t.asciz "{sym}"' for k, (sym, _) in keys.items()]
    out.append('\t.section __dyncall_keys,"a",@progbits\n\t.p2align 2')
    out += [
        f"\t.long .Lkc_{k} - .\n\t.long .Ln_{k} - .\n\t.byte 1, 3\n\t.short {fl}\n\t.long 0"
        for k, (_, fl) in keys.items()
    ]
    return "\n".join(out) + "\n"


def tramp(name: str, retpoline: bool = False, sec: str = ".text.__dyncall_tramp") -> str:
    slow = ".byte 0xe9\n\t.long __dyncall_retpoline_r10 - . - 4" if retpoline else ".byte 0x41, 0xff, 0xe2"
    return (
        f'\t.section {sec},"ax",@progbits\n\t.p2align 3\n\t.byte 0xcc, 0xcc, 0xcc\n'
        f"\t.hidden {name}\n\t.type {name},@function\n{name}:\n\t.byte 0xe9\n\t.long 0\n"
        f"\t{slow}\n\t.size {name}, .-{name}\n"
    )


def entry(
    tr: str,
    key: str = "var",
    site: str | None = None,
    func: str | None = None,
    kind: int = 1,
    flags: int = FRESH,
) -> str:
    def rel(x: str | None) -> str:
        return f"{x} - ." if x else "0"

    if func and not func.startswith("."):
        func = f".Lfn_{func}"  # local: a PC32 to a global symbol does not link into a DSO
    cell = key if key.startswith(".") else f".Lkc_{key}"  # a label: a per-site key cell
    return (
        f'\t.section __dyncall_sites,"a",@progbits\n\t.p2align 2\n\t.long {rel(site)}\n'
        f"\t.long {tr} - .\n\t.long {cell} - .\n\t.long {rel(func)}\n\t.byte 1, {kind}\n\t.short {flags}\n"
    )


def fn(name: str, body: str, sec: str = ".text", sym: bool = True) -> str:
    """A function ``name`` (also labelled ``.Lfn_<name>`` for table fields).
    It starts by loading the static chain: a branch right after the
    linker's int3 padding is no site for discovery (x86_64.find_branches_to)."""
    head = f'\t.section {sec},"ax",@progbits\n\t.p2align 4\n'
    body = f"\tmovq %rdi, %r10\n{body}"
    if not sym:
        return head + f"{name}:\n.Lfn_{name}:\n{body}\n"
    return head + f"\t.type {name},@function\n{name}:\n.Lfn_{name}:\n{body}\n\t.size {name}, .-{name}\n"


def gcc_site(label: str, tr: str, pad: str = "\tnop\n\tnop\n\tnop", op: str = "call") -> str:
    """A GCC-style site: `.p2align 2` + non-canonical NOP padding + call."""
    return f"\t.p2align 2\n{pad}\n{label}:\n\t{op} {tr}\n"


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("cases")
    prog = root / "prog.o"
    subprocess.run(
        [CLANG, "-c", "-O1", "-fPIC", "-x", "c", "-", "-o", str(prog)], input=PROG_C, text=True, check=True
    )

    def get(
        name: str,
        asm: str,
        link: str = "pie",
        keys: dict[str, tuple[str, int]] | None = None,
        strip: bool = False,
    ) -> str:
        ks = {"var": ("key_var", 0), "const": ("key_const", CONST), **(keys or {})}
        s = root / f"{name}.s"
        s.write_text(prelude(ks) + asm + '\t.section .note.GNU-stack,"",@progbits\n')
        out = str(root / name)
        r = subprocess.run(
            [CLANG, "-fuse-ld=lld", *LINK[link], str(s), str(prog), "-o", out], capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
        if strip:
            subprocess.run([shutil.which("llvm-strip-19") or "strip", "--strip-all", out], check=True)
        return out

    return get


def agree(img: Image) -> str | None:
    """compare_engines, with a failure of the object path's relax (the
    columns' relax succeeded: compare_engines runs it first) as a difference."""
    try:
        return compare_engines(img)
    except RewriteError as e:
        return f"object path relax failed where the columns' relax succeeded: {e}"


def assert_columns_agree(path: str, relax_on_columns: bool = True) -> Image:
    img = Image.load(path)
    assert not check(img, columns=False).diagnostics
    assert check(img).columns is not None, "the columns deferred on a clean image"
    assert agree(img) is None
    if relax_on_columns:
        res = relax(img)
        assert not res.changed or res._writes is not None, "relax left the columnar path"
    return img


def assert_defers(path: str, code: str) -> None:
    img = Image.load(path)
    assert code in [d.code for d in check(img, columns=False).diagnostics]
    assert check(img).columns is None
    assert agree(img) is None


def relax_agree(img: Image, opts: RelaxOptions) -> None:
    fast = relax(img, opts, analysis=check(img))
    slow = relax(img, opts, analysis=check(img, columns=False))
    assert bytes(fast.data) == bytes(slow.data)
    assert [(p.addr, p.old, p.new, p.what) for p in fast.patches] == [
        (p.addr, p.old, p.new, p.what) for p in slow.patches
    ]
    assert (fast.filled, fast.padding, fast.resolved) == (slow.filled, slow.padding, slow.resolved)


# -- clean inputs: the columns must prove them ------------------------------


def test_several_callers_of_one_trampoline(build) -> None:
    asm = fn("f1", "\tcall T1\n\tmovl %eax, %edi\n\tcall T1\n\tret")
    asm += fn("f2", "\tcall T1\n\tjmp T2")
    asm += fn("f3", "\tcall T3\n\tret")
    asm += tramp("T1") + tramp("T2") + tramp("T3")
    asm += entry("T1") + entry("T2", "const", kind=2) + entry("T3", "const")
    img = assert_columns_agree(build("callers", asm))
    an = check(img)
    assert [len(s.callers) for s in an.sites] == [3, 1, 1]
    for opts in (
        RelaxOptions(resolve_initializers=True),
        RelaxOptions(fill_sites=False),
        RelaxOptions(resolve=False),
    ):
        relax_agree(img, opts)


@pytest.mark.parametrize("link", ["nopie", "shared"])
def test_link_modes(build, link: str) -> None:
    asm = fn("f1", "\tcall T1\n\tret") + fn("f2", "\tcall T2\n" + gcc_site(".Ls3", "T3") + "\tret")
    asm += tramp("T1") + tramp("T2") + tramp("T3")
    asm += entry("T1", "const") + entry("T2") + entry("T3", "const", site=".Ls3", func="f2")
    assert_columns_agree(build(f"link-{link}", asm, link=link))


@pytest.mark.parametrize("style", ["clang", "gcc"])
def test_retpoline_trampolines(build, style: str) -> None:
    asm = THUNK
    if style == "gcc":
        asm += fn("f1", gcc_site(".Ls1", "T1") + "\tret") + fn("f2", gcc_site(".Ls2", "T2", op="jmp"))
        asm += entry("T1", "const", ".Ls1", "f1", 1, FRESH | RETPOLINE)
        asm += entry("T2", "var", ".Ls2", "f2", 2, FRESH | RETPOLINE)
    else:
        asm += fn("f1", "\tcall T1\n\tcall T1\n\tret") + fn("f2", "\tjmp T2")
        asm += entry("T1", "var", flags=FRESH | RETPOLINE) + entry(
            "T2", "const", kind=2, flags=FRESH | RETPOLINE
        )
    asm += tramp("T1", retpoline=True) + tramp("T2", retpoline=True)
    assert_columns_agree(build(f"retpoline-{style}", asm))


def test_already_resolved_input(build, tmp_path: Path) -> None:
    """relax's output, checked and relaxed again (RESOLVED entries, filled
    sites, patched trampolines and sites, canonical padding)."""
    asm = fn("f1", "\tcall T1\n\tret") + fn("f2", "\tcall T2\n\tcall T2\n\tret")
    asm += fn("f3", gcc_site(".Ls3", "T3") + "\tret")
    asm += tramp("T1") + tramp("T2") + tramp("T3")
    asm += entry("T1", "const") + entry("T2", "const") + entry("T3", "const", ".Ls3", "f3")
    img = Image.load(build("resolved", asm))
    res = relax(img)
    assert res.resolved == 3
    out = tmp_path / "relaxed"
    out.write_bytes(res.data)
    img2 = assert_columns_agree(str(out))
    assert all(s.state == "resolved" for s in check(img2).sites)
    assert not relax(img2).changed


def test_two_labelled_sites_in_one_function(build) -> None:
    body = (
        gcc_site(".Ls1", "T1") + "\tmovl %eax, %edi\n" + gcc_site(".Ls2", "T2", pad="\tnop\n\txchg %ax, %ax")
    )
    asm = fn("f1", body + "\tret") + fn("f2", gcc_site(".Ls3", "T3") + "\tret")
    asm += tramp("T1") + tramp("T2") + tramp("T3")
    asm += (
        entry("T1", "var", ".Ls1", "f1")
        + entry("T2", "const", ".Ls2", "f1")
        + entry("T3", "var", ".Ls3", "f2")
    )
    img = assert_columns_agree(build("two-labelled", asm))
    assert relax(img).padding >= 2


def test_labelled_site_at_function_start(build) -> None:
    """site == func (span 0, no padding): the function starts at 4k+3."""
    asm = "\t.text\n\t.p2align 4\n\t.byte 0xcc, 0xcc, 0xcc\n"
    asm += (
        "\t.type f1,@function\nf1:\n.Lfn_f1:\n\tcall T1\n\tret\n\t.size f1, .-f1\n"
        + tramp("T1")
        + entry("T1", "const", "f1", "f1")
    )
    assert_columns_agree(build("site-at-start", asm))


def test_branch_targets_inside_nop_runs(build) -> None:
    """A branch before the site into the middle of its padding forbids the
    rewrite; a branch after the site does not count (relax._padding)."""
    body = (
        "\ttestl %edi, %edi\n\tjne .Lmid1\n\tmovl %eax, %edi\n\t.p2align 2\n\tnop\n.Lmid1:\n\tnop\n\tnop\n"
        ".Ls1:\n\tcall T1\n\tret\n"
    )
    asm = fn("f1", body)
    body2 = "\t.p2align 2\n\tnop\n.Lmid2:\n\tnop\n\tnop\n.Ls2:\n\tcall T2\n"
    body2 += "\ttestl %eax, %eax\n\tjne .Lmid2\n\tret"
    asm += fn("f2", body2)
    body3 = "\ttestl %edi, %edi\n\tje .Lstart3\n.Lstart3:\n"
    body3 += "\t.p2align 2\n\tnop\n\tnop\n\tnop\n.Ls3:\n\tcall T3\n\tret"
    asm += fn("f3", body3)
    asm += tramp("T1") + tramp("T2") + tramp("T3")
    asm += (
        entry("T1", "var", ".Ls1", "f1") + entry("T2", "var", ".Ls2", "f2") + entry("T3", "var", ".Ls3", "f3")
    )
    img = assert_columns_agree(build("nop-branch", asm))
    assert relax(img).padding == 2


def test_false_call_in_immediate_next_to_real_callers(build) -> None:
    """An ``e8 <rel32 to a trampoline>`` inside a movabs immediate is no
    caller; the real calls after it are."""
    body = (
        "\t.byte 0x48, 0xb8\n\t.byte 0xe8\n\t.long T1 - . - 4\n\t.byte 0, 0, 0\n"
        "\tcall T1\n\t.byte 0x48, 0xb8\n\t.byte 0xe9\n\t.long T2 - . - 4\n\t.byte 0, 0, 0\n\tcall T2\n\tret"
    )
    asm = fn("f1", body) + tramp("T1") + tramp("T2") + entry("T1") + entry("T2", "const")
    img = assert_columns_agree(build("decoy", asm))
    assert [len(s.callers) for s in check(img).sites] == [1, 1]


def test_code_without_symbol_after_a_function(build) -> None:
    """A caller in code no function symbol covers is decoded from the last
    function start before it (through the alignment NOPs)."""
    asm = fn("f1", "\tmovl %edi, %eax\n\tret") + fn(".Lanon", "\tcall T1\n\tcall T2\n\tret", sym=False)
    asm += fn("f2", "\tcall T2\n\tret") + tramp("T1") + tramp("T2")
    asm += entry("T1", "const") + entry("T2")
    assert_columns_agree(build("nosym", asm))


def test_several_executable_sections(build) -> None:
    asm = fn("f1", "\tcall T1\n\tret") + fn(
        "g1", "\tcall T2\n" + gcc_site(".Ls3", "T3") + "\tret", sec=".text2"
    )
    asm += fn("g2", "\tcall T1\n\tret", sec=".text2")
    asm += tramp("T1", sec=".text3") + tramp("T2", sec=".text3") + tramp("T3", sec=".text3")
    asm += entry("T1") + entry("T2", "const") + entry("T3", "const", ".Ls3", "g1")
    img = assert_columns_agree(build("sections", asm))
    assert len({s.name for s in img.sections if s.name.startswith(".text")}) >= 3


def test_function_across_decode_chunks(build) -> None:
    """Callers at the end of a function longer than one 64 KiB decode
    chunk, whose 10-byte instructions straddle the chunk boundary."""
    filler = "\t.rept 8000\n\tmovabsq $0x1122334455667788, %rax\n\t.endr\n"
    asm = fn("big", filler + "\tcall T1\n" + filler + gcc_site(".Ls2", "T2") + "\tret")
    asm += tramp("T1") + tramp("T2") + entry("T1", "const") + entry("T2", "const", ".Ls2", "big")
    assert_columns_agree(build("big", asm))


def test_key_value_wrapping_int64_address_arithmetic(build, tmp_path: Path) -> None:
    """A const key whose link-time value is 2**63 - 1 (fits the int64
    columns, but ``value + 1`` wraps in Image.file_offsets)."""
    asm = fn("f1", "\tcall T1\n\tret") + tramp("T1") + entry("T1", "const")
    src = build("wrap", asm, link="nopie")
    an = check(Image.load(src))
    key = next(k for k in an.keys.values() if k.flags & CONST)
    data = bytearray(Path(src).read_bytes())
    off = an.image.offset(key.address.value, 8)
    assert off is not None
    data[off : off + 8] = struct.pack("<Q", 2**63 - 1)
    p = tmp_path / "wrap"
    p.write_bytes(data)
    img = Image.load(str(p))
    assert check(img).columns is not None
    assert agree(img) is None
    assert not relax(img).resolved


def test_per_site_key_cells_type_and_escaping_keys(build) -> None:
    """Key cells that are not a key entry's (one per site, found through
    the key's address), a TYPE key (no link-time target) and an escaping
    key, under every relax policy."""
    keys = {"ty": ("tkey_var", 2), "esc": ("ekey_var", ESCAPES)}
    asm = "\t.data\n\t.p2align 3\ntkey_var:\n\t.quad 7\nekey_var:\n\t.quad target_a\n"
    asm += '\t.section .data.rel.ro,"aw",@progbits\n\t.p2align 3\n.Lcell1:\n\t.quad key_const\n'
    asm += ".Lcell2:\n\t.quad key_var\n"
    asm += fn("f1", "\tcall T1\n\tcall T2\n" + gcc_site(".Ls3", "T3") + "\tcall T4\n\tret")
    asm += tramp("T1") + tramp("T2") + tramp("T3") + tramp("T4")
    asm += (
        entry("T1", ".Lcell1") + entry("T2", ".Lcell2") + entry("T3", "ty", ".Ls3", "f1", 1, FRESH | TYPE_KEY)
    )
    asm += entry("T4", "esc")
    img = assert_columns_agree(build("key-cells", asm, keys=keys))
    assert [s.target is not None for s in check(img).sites] == [True, True, False, True]
    for opts in (
        RelaxOptions(resolve_initializers=True),
        RelaxOptions(fill_sites=False, resolve_initializers=True),
    ):
        relax_agree(img, opts)


def test_relax_updates_the_analysis_it_was_given(build) -> None:
    """relax(): "``analysis`` ... is reused and updated in place: on return
    it describes the output".  The object path does; the columnar path
    returns a new analysis and leaves the caller's describing the input."""
    asm = fn("f1", "\tcall T1\n\tret") + tramp("T1") + entry("T1", "const")
    img = Image.load(build("in-place", asm))
    states = []
    for columns in (True, False):
        an = check(img, columns=columns)
        relax(img, analysis=an)
        states.append([s.state for s in an.sites])
    assert states[0] == states[1]


# -- inputs with a diagnostic: the columns must defer -----------------------


def test_jcc_callers_defer(build) -> None:
    asm = fn("f1", "\ttestl %edi, %edi\n\tjne T1\n\tjmp T1")
    asm += fn("f2", "\ttestl %edi, %edi\n\tje T2\n\tcall T2\n\tret")
    asm += tramp("T1") + tramp("T2") + entry("T1", kind=2) + entry("T2")
    assert_defers(build("jcc", asm), "DC027")


def test_rel8_caller_defers(build) -> None:
    asm = fn("f1", "\tjmp T1\n\t.fill 8, 1, 0xcc") + tramp("T1", sec=".text") + entry("T1", kind=2)
    path = build("rel8", asm)
    img = Image.load(path)
    assert any(b.op == "jmp8" for s in check(img, columns=False).sites for b in s.callers)
    assert_defers(path, "DC027")


def test_labelled_func_not_a_function_start(build) -> None:
    """``func`` is a label inside the function: the object path decodes
    from it; the columns, which decode from function symbols, defer."""
    body = "\tmovl %edi, %eax\n.Linner:\n\tmovl %eax, %edi\n" + gcc_site(".Ls1", "T1") + "\tret"
    asm = fn("f1", body) + tramp("T1") + entry("T1", "var", ".Ls1", ".Linner")
    img = Image.load(build("inner-func", asm))
    assert not check(img, columns=False).diagnostics
    assert check(img).columns is None
    assert agree(img) is None


@pytest.mark.parametrize("link", ["pie", "shared"])
def test_stripped(build, link: str) -> None:
    asm = fn("f1", "\tcall T1\n\tret") + fn("f2", gcc_site(".Ls2", "T2") + "\tret")
    asm = asm.replace("\t.type f1", "\t.globl f1\n\t.type f1").replace(
        "\t.type f2", "\t.globl f2\n\t.type f2"
    )
    asm += tramp("T1") + tramp("T2") + entry("T1", "const") + entry("T2", "const", ".Ls2", "f2")
    img = Image.load(build(f"stripped-{link}", asm, link=link, strip=True))
    assert not check(img, columns=False).diagnostics
    assert agree(img) is None
    # PIE: no function symbol left (object path); DSO: .dynsym still has f1, f2.
    assert (check(img).columns is not None) == (link == "shared")


def test_far_const_target_in_a_large_image(build, tmp_path: Path) -> None:
    """An image spanning more than 2 GiB: a const key whose target is out of
    rel32 range of its trampoline is DC050 (columns must defer); in range,
    the columns prove it."""
    asm = fn("f1", "\tcall T1\n\tret") + tramp("T1") + entry("T1", "const")
    src = build("far", asm, link="nopie")
    data = bytearray(Path(src).read_bytes())
    img0 = Image.load(src)
    text = section(img0, ".text")
    assert text is not None
    # Turn PT_NOTE into an executable PT_LOAD 4 GiB up (file bytes of .text).
    phoff, phnum = struct.unpack_from("<Q", data, 32)[0], struct.unpack_from("<H", data, 56)[0]
    far = 0x1_0000_0000 + text.offset
    for i in range(phnum):
        h = phoff + 56 * i
        if struct.unpack_from("<I", data, h)[0] == 4:
            struct.pack_into("<IIQQQQQQ", data, h, 1, 5, text.offset, far, far, 0x100, 0x100, 0x1000)
            break
    else:
        pytest.skip("no PT_NOTE to repurpose")
    near = tmp_path / "near"
    near.write_bytes(data)
    assert_columns_agree(str(near))
    an = check(img0)
    key = next(k for k in an.keys.values() if k.flags & CONST)
    off = img0.offset(key.address.value, 8)
    assert off is not None
    struct.pack_into("<Q", data, off, far + 0x10)
    far_p = tmp_path / "far"
    far_p.write_bytes(data)
    assert_defers(str(far_p), "DC050")


# -- divergences ------------------------------------------------------------


def _straddle_asm(site_entry_first: bool) -> tuple[str, dict[str, tuple[str, int]]]:
    """F1 ends with a discovered ``call T1`` whose rel32 runs into F2, whose
    first bytes are also the NOP padding (``nopl (%rax); nop``) of F2's
    labelled site.  Both decodes are valid, and nothing overlaps for check;
    but relax both canonicalizes F2's padding and resolves T1's entry,
    rewriting the call's rel32: two writes to the same bytes."""
    keys = {"c2": ("kc2_var", CONST)}
    asm = '\t.section .data.rel.ro,"aw",@progbits\n\t.p2align 3\nkc2_var:\n\t.quad tgt\n'
    asm += '\t.section .evil,"ax",@progbits\n\t.p2align 4\n'
    # call at 0x21: e8 05 | 0f 1f 00 (F2) -> T1 = 0x26 + 0x1f0f05 = 0x1f0f2b (8k+3)
    asm += "\t.type F1,@function\nF1:\n\t.org 0x21, 0x90\n\t.byte 0xe8, 0x05\n\t.size F1, .-F1\n"
    asm += "\t.type F2,@function\nF2:\n.Lfn_F2:\n\t.byte 0x0f, 0x1f, 0x00, 0x90\n"
    asm += ".Ls2:\n\tcall T2\n\tret\n\t.size F2, .-F2\n"
    # The resolved call (rel32 1a 04 00 00) leaves F2 = 04 00 00 00 (+ canonical nop's
    # last byte): `add $0, %al; add %al, (%rax)`, still ending at the site.
    asm += "\t.org 0x440, 0xcc\n\t.type tgt,@function\ntgt:\n\tmovl %edi, %eax\n\tret\n\t.size tgt, .-tgt\n"
    asm += tramp("T2", sec=".evil")
    asm += "\t.org 0x1f0f2b, 0xcc\n\t.type T1,@function\nT1:\n\t.byte 0xe9\n\t.long 0\n"
    asm += "\t.byte 0x41, 0xff, 0xe2\n\t.size T1, .-T1\n"
    e1, e2 = entry("T1", "c2"), entry("T2", "var", ".Ls2", "F2")
    return asm + (e1 + e2 if site_entry_first else e2 + e1), keys


@pytest.mark.parametrize("site_entry_first", [False, True], ids=["padding-entry-first", "site-entry-first"])
def test_site_operand_overlapping_next_functions_padding(build, site_entry_first: bool) -> None:
    """relax_columns applies its writes assuming disjoint byte ranges; the
    object path writes entry by entry and checks every old value (padding
    entry first: the site write's ``old`` includes the new padding; site
    entry first: "bytes changed under relax")."""
    asm, keys = _straddle_asm(site_entry_first)
    path = build(f"straddle-{int(site_entry_first)}", asm, keys=keys)
    img = Image.load(path)
    assert not check(img, columns=False).diagnostics
    assert check(img).columns is not None
    assert agree(img) is None


def test_relax_stays_columnar_with_a_backward_call(build) -> None:
    """A labelled site's function calls an earlier function (as any call
    to the PLT does): the decode runs at buffer offsets, so the call's
    target is negative there and prints as 16 hex digits, and
    CodeFacts.branch_targets() gives up -- relax falls back to the object
    path (a full check and relax from scratch).  Not a wrong answer: a
    performance cliff."""
    asm = fn("helper", "\tret") + fn("f1", "\tcall helper\n" + gcc_site(".Ls1", "T1") + "\tret")
    asm += tramp("T1") + entry("T1", "const", ".Ls1", "f1")
    assert_columns_agree(build("backward", asm))


def test_relax_twice_reusing_the_columns_analysis(build) -> None:
    """relax's analysis of its output (the columns' CodeFacts.replaced)
    keeps the input's branch targets although relax retargeted branches;
    relaxing the output again with that analysis canonicalizes a NOP run
    that a retargeted branch now jumps into, which a fresh check forbids."""
    keys = {"mid": ("kmid_var", CONST)}
    asm = '\t.section .data.rel.ro,"aw",@progbits\n\t.p2align 3\nkmid_var:\n\t.quad .Lmid\n'
    body = "\tmovl $1, %eax\n\tcall TX\n" + gcc_site(".Ls", "TL", pad="\tnop\n.Lmid:\n\tnop\n\tnop") + "\tret"
    asm += fn("f1", body) + tramp("TX") + tramp("TL")
    asm += entry("TX", "mid") + entry("TL", "var", ".Ls", "f1")
    img = Image.load(build("relax-twice", asm, keys=keys))
    assert check(img).columns is not None
    first = relax(img, RelaxOptions(canonicalize_padding=False))
    assert first.resolved == 1 and first.analysis is not None
    out = img.with_data(first.data)
    again = relax(out, RelaxOptions(), analysis=first.analysis)
    fresh = relax(out, RelaxOptions(), analysis=check(out, columns=False))
    assert [(p.addr, p.what) for p in again.patches] == [(p.addr, p.what) for p in fresh.patches]


# A branch into the padding before the site: 3 + 2 + 2 bytes, one alignment
# NOP, then `nop; .Lmid: nop; nop; call` -- .Lmid is 9 bytes into the function.
_JUMP_INTO_PADDING = "\ttestl %edi, %edi\n\tjne .Lmid\n" + gcc_site(
    ".Ls", "TL", pad="\tnop\n.Lmid:\n\tnop\n\tnop"
)


def test_branch_into_padding_of_the_first_decoded_function(build) -> None:
    """Both paths decode at buffer offsets, and capstone prints a direct
    branch target below 10 in decimal ("9", not "0x9"): neither
    X86_64._disasm (``op.startswith(b"0x")``) nor parse_direct_targets
    sees it.  Which function sits at offset 0 differs: the object path
    concatenates only the labelled ranges, the columns every decoded
    function.  Here a function with a discovered caller comes first, so
    only the object path misses the branch into L's padding."""
    asm = fn("a", "\tcall TA\n\tret") + fn("L", _JUMP_INTO_PADDING + "\tret")
    asm += tramp("TA") + tramp("TL") + entry("TA") + entry("TL", "var", ".Ls", "L")
    assert_columns_agree(build("into-padding-a", asm))


def test_branch_into_padding_labelled_entries_out_of_address_order(build) -> None:
    """The same blind spot the other way round: the object path decodes the
    labelled ranges in table order (L2's first), the columns in address
    order (L's first): only the columns miss the branch and rewrite L's
    padding although a branch targets its middle."""
    asm = fn("L", _JUMP_INTO_PADDING + "\tret") + fn("L2", gcc_site(".Ls2", "T2") + "\tret")
    asm += tramp("TL") + tramp("T2") + entry("T2", "var", ".Ls2", "L2") + entry("TL", "var", ".Ls", "L")
    img = assert_columns_agree(build("into-padding-b", asm))
    assert relax(img).padding == 1  # L2's only


def test_branch_into_padding_of_the_only_labelled_function(build) -> None:
    """The same blind spot where both paths put L at buffer offset 0: they
    agree, and both rewrite the padding a branch jumps into."""
    asm = fn("L", _JUMP_INTO_PADDING + "\tret") + tramp("TL") + entry("TL", "var", ".Ls", "L")
    img = assert_columns_agree(build("into-padding-c", asm))
    assert relax(img).padding == 0
    assert relax(img, analysis=check(img, columns=False)).padding == 0
