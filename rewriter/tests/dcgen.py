#!/usr/bin/env python3
"""Generate dyncall test binaries from hand-written assembly that emits
exactly what docs/abi.md describes (the LLVM pass / GCC plugin are not
needed): trampolines, __dyncall_sites / __dyncall_keys entries, key cells
and sites, in Clang style (site == 0, func == 0) or GCC style (site and func
labelled, NOP padding aligning the call's rel32), plain or retpoline
trampolines, linked with clang-19 as PIE, non-PIE or a shared object, with
or without symbols.

    dcgen.py --style clang|gcc [--retpoline] [--link pie|nopie|shared]
             [--strip] [--no-debug] -o OUT

The program prints the result of every annotated call, then stores a new
value to ``key_var`` (a plain store: without the runtime every site is on
its always-correct slow path) and calls again.  For ``--link shared`` OUT is
the shared object and OUT.main the executable using it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

import abi_header

CLANG = os.environ.get("DYNCALL_TEST_CLANG", "clang-19")

# The start of a hand-written ppc64le (ELFv2) program linked with
# -nostdlib: an entry point that returns (the tests only read the file).
PPC64LE_START = """\t.abiversion 2
\t.text
\t.globl _start
\t.type _start,@function
_start:
\tblr
\t.size _start, .-_start
"""

# The flags, names and assembly text of include/dyncall/abi.h and abi-asm.h.
_SITE_FLAGS = abi_header.enum("dyncall_site_flags")
_KEY_FLAGS = abi_header.enum("dyncall_key_flags")
FRESH = _SITE_FLAGS["DYNCALL_SITE_FRESH"]
TYPE_KEY = _SITE_FLAGS["DYNCALL_SITE_TYPE_KEY"]
RETPOLINE = _SITE_FLAGS["DYNCALL_SITE_RETPOLINE"]
ESCAPES = _KEY_FLAGS["DYNCALL_KEY_ESCAPES"]
CONST = _KEY_FLAGS["DYNCALL_KEY_CONST"]
VERSION = abi_header.integer("DYNCALL_ABI_VERSION")
KIND_KEY = abi_header.enum("dyncall_entry_kind")["DYNCALL_KIND_KEY"]
THUNK = abi_header.string("DYNCALL_RETPOLINE_THUNK")

PROG_C = r"""
#include <stdio.h>
int target_a(int x) { return x + 1; }
int target_b(int x) { return x * 2; }
int target_c(int x) { return x - 3; }
__attribute__((used)) int (*key_var)(int) = target_a;
__attribute__((used)) int (*const key_const)(int) = target_b;
__attribute__((used)) int (*key_esc)(int) = target_c;
"""

MAIN_C = r"""
#include <stdio.h>
extern int (*key_var)(int);
extern int target_c(int);
int call_var(int), call_const(int), tail_const(int), call_twice(int), call_esc(int);
int main(void)
{
    printf("%d %d %d %d %d\n", call_var(10), call_const(10), tail_const(10),
           call_twice(10), call_esc(10));
    key_var = target_c;
    printf("%d\n", call_var(10));
    return 0;
}
"""

# (function, key, kind, callers, site flags)
SITES = [
    ("call_var", "key_var", "call", 1, FRESH),
    ("call_const", "key_const", "call", 1, FRESH),
    ("tail_const", "key_const", "tail", 1, FRESH),
    ("call_twice", "key_var", "call", 2, FRESH),
    ("call_esc", "key_esc", "call", 1, FRESH),
]
KEYS = {"key_var": 0, "key_const": CONST, "key_esc": ESCAPES}


def gen_tables(w, retpoline: bool, unit: str, tramp_n: int, entries: list) -> None:
    """gen_asm's second half: the retpoline thunk, the trampolines, the key
    cells and names, the __dyncall_sites and __dyncall_keys tables."""
    if retpoline:
        w(f"\t.globl {THUNK}\n\t.hidden {THUNK}\n\t.type {THUNK},@function")
        w(abi_header.string("DYNCALL_ASM_X86_64_RETPOLINE_ALIGN") + f"{THUNK}:")
        w(abi_header.string("DYNCALL_ASM_X86_64_RETPOLINE_BODY").rstrip("\n"))
        w(f"\t.size {THUNK}, .-{THUNK}")

    w(f'\t.section {abi_header.string("DYNCALL_TRAMP_SECTION")},"ax",@progbits')
    slow = "DYNCALL_ASM_X86_64_TRAMP_SLOW" + ("_RETPOLINE" if retpoline else "")
    for i in range(tramp_n):
        t = f"{abi_header.string('DYNCALL_TRAMP_PREFIX')}{unit}.{i}"
        w(abi_header.string("DYNCALL_ASM_X86_64_TRAMP_ALIGN").rstrip("\n"))
        w(f"\t.hidden {t}\n\t.type {t},@function\n{t}:")
        w(abi_header.string("DYNCALL_ASM_X86_64_TRAMP_ENTRY") + abi_header.string(slow).rstrip("\n"))
        w(f"\t.size {t}, .-{t}")

    w('\t.section .data.rel.ro,"aw",@progbits\n\t.p2align 3')
    for k in KEYS:
        w(f".Lkeycell_{k}:\n\t.quad {k}")
    w('\t.section .rodata.str1.1,"aMS",@progbits,1')
    for k in KEYS:
        w(f'.Lname_{k}:\n\t.asciz "{k}"')

    w(f'\t.section {abi_header.string("DYNCALL_SITES_SECTION")},"a",@progbits\n\t.p2align 2')
    for site, t, key, func, kind, flags in entries:  # type: ignore[misc]
        w(f"\t.long {site if site == '0' else site + ' - .'}")
        w(f"\t.long {t} - .\n\t.long .Lkeycell_{key} - .")
        w(f"\t.long {func if func == '0' else func + ' - .'}")
        w(f"\t.byte {VERSION}, {kind}\n\t.short {flags}")
    w(f'\t.section {abi_header.string("DYNCALL_KEYS_SECTION")},"a",@progbits\n\t.p2align 2')
    for k, fl in KEYS.items():
        w(f"\t.long .Lkeycell_{k} - .\n\t.long .Lname_{k} - .")
        w(f"\t.byte {VERSION}, {KIND_KEY}\n\t.short {fl}\n\t.long 0")


def gen_asm(
    style: str, retpoline: bool, shared: bool, unit: str = "u1", gcc_pad: int = 3, decoy: bool = False
) -> str:
    out: list[str] = []
    w = out.append
    tramp_n = 0
    entries: list[tuple[str, str, str, str, int]] = []  # site label, tramp, key, func label, kind, flags

    def load_key(key: str) -> None:
        if shared:
            w(f"\tmovq {key}@GOTPCREL(%rip), %r10")
            w("\tmovq (%r10), %r10")
        else:
            w(f"\tmovq {key}(%rip), %r10")

    w("\t.text")
    for fn, key, kind, ncallers, flags in SITES:
        w(f"\t.globl {fn}\n\t.type {fn},@function\n\t.p2align 4\n{fn}:\n.Lfunc_{fn}:")
        if kind == "call":
            w("\tsubq $8, %rsp")
        # One trampoline per site; Clang style may duplicate the call (several
        # callers of one trampoline), GCC style labels each call separately.
        tramps = []
        for c in range(ncallers):
            if style == "gcc" or c == 0:
                t = f"__dyncall_tramp.{unit}.{tramp_n}"
                tramp_n += 1
                tramps.append(t)
            else:
                t = tramps[-1]
            load_key(key)
            if c:
                w("\tmovl %eax, %edi")
            label = f".Lsite_{fn}_{c}"
            if style == "gcc":
                # rel32 4-byte aligned: call at 4k+3; deliberately non-canonical
                # padding (three one-byte NOPs) for relax to canonicalize.
                w("\t.p2align 2" + "\n\tnop" * gcc_pad)
            w(f"{label}:")
            w(f"\t{'call' if kind == 'call' else 'jmp'} {t}")
            if style == "gcc" or c == 0:
                entries.append(
                    (
                        label if style == "gcc" else "0",
                        t,
                        key,
                        f".Lfunc_{fn}" if style == "gcc" else "0",
                        1 if kind == "call" else 2,
                        flags | (RETPOLINE if retpoline else 0),
                    )
                )  # type: ignore[arg-type]
        if kind == "call":
            w("\taddq $8, %rsp\n\tret")
        w(f"\t.size {fn}, .-{fn}")

    if decoy:
        # A call-to-trampoline byte pattern hidden in a movabs immediate: not
        # an instruction (discovery must reject it; as a labelled site: DC024).
        t = f"__dyncall_tramp.{unit}.{tramp_n}"
        tramp_n += 1
        w("\t.globl decoy_fn\n\t.type decoy_fn,@function\n\t.p2align 4\ndecoy_fn:\n.Lfunc_decoy_fn:")
        w("\t.byte 0x48, 0xb8\n.Lsite_decoy:\n\t.byte 0xe8\n\t.long " + t + " - . - 4\n\t.byte 0, 0, 0")
        w("\tret\n\t.size decoy_fn, .-decoy_fn")
        entries.append(
            (
                ".Lsite_decoy" if style == "gcc" else "0",
                t,
                "key_var",
                ".Lfunc_decoy_fn" if style == "gcc" else "0",
                1,
                FRESH,
            )
        )  # type: ignore[arg-type]

    gen_tables(w, retpoline, unit, tramp_n, entries)
    w('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


def run(cmd: list[str]) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"dcgen: {' '.join(cmd)} failed:\n{r.stderr}")


def build(
    out: str,
    style: str = "clang",
    retpoline: bool = False,
    link: str = "pie",
    strip: bool = False,
    debug: bool = True,
    gcc_pad: int = 3,
    decoy: bool = False,
) -> str:
    """Build the program; returns the path of the binary holding the tables."""
    work = out + ".d"
    os.makedirs(work, exist_ok=True)
    s = os.path.join(work, "sites.s")
    with open(s, "w") as f:
        f.write(gen_asm(style, retpoline, link == "shared", gcc_pad=gcc_pad, decoy=decoy))
    with open(os.path.join(work, "prog.c"), "w") as f:
        f.write(PROG_C)
    with open(os.path.join(work, "main.c"), "w") as f:
        f.write(MAIN_C)
    g = ["-g"] if debug else []
    pic = {"pie": ["-fPIE"], "nopie": ["-fno-pic"], "shared": ["-fPIC"]}[link]
    objs = []
    for src in ("sites.s", "prog.c"):
        o = os.path.join(work, src + ".o")
        run([CLANG, "-c", "-O1", *g, *pic, os.path.join(work, src), "-o", o])
        objs.append(o)
    mo = os.path.join(work, "main.o")
    run([CLANG, "-c", "-O1", *g, *pic, os.path.join(work, "main.c"), "-o", mo])
    ld = ["-fuse-ld=lld"]
    if link == "shared":
        run([CLANG, *ld, "-shared", f"-Wl,-soname,{os.path.basename(out)}", *objs, "-o", out])
        run([CLANG, *ld, mo, out, f"-Wl,-rpath,{os.path.dirname(os.path.abspath(out))}", "-o", out + ".main"])
    else:
        run([CLANG, *ld, "-pie" if link == "pie" else "-no-pie", *objs, mo, "-o", out])
    if strip:
        run(["llvm-strip-19" if shutil.which("llvm-strip-19") else "strip", "--strip-all", out])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--style", choices=("clang", "gcc"), default="clang")
    ap.add_argument("--retpoline", action="store_true")
    ap.add_argument("--link", choices=("pie", "nopie", "shared"), default="pie")
    ap.add_argument("--strip", action="store_true")
    ap.add_argument("--no-debug", action="store_true")
    ap.add_argument("--gcc-pad", type=int, default=3, help="NOPs before GCC-style calls")
    ap.add_argument("--decoy", action="store_true", help="add a fake site inside an immediate")
    ap.add_argument("--asm-only", action="store_true", help="print the assembly and exit")
    ap.add_argument("-o", "--output", required=False)
    a = ap.parse_args()
    if a.asm_only:
        sys.stdout.write(gen_asm(a.style, a.retpoline, a.link == "shared", gcc_pad=a.gcc_pad, decoy=a.decoy))
        return
    if not a.output:
        ap.error("-o is required")
    build(a.output, a.style, a.retpoline, a.link, a.strip, not a.no_debug, a.gcc_pad, a.decoy)


if __name__ == "__main__":
    main()
