#!/usr/bin/env python3
"""Throughput of dyncall-rewrite on a generated binary with N sites.

The assembly uses .rept/.macro (one macro expansion = one function with one
site, its trampoline, its __dyncall_sites entry): half the sites in Clang
style (site == 0, discovered by disassembly), half in GCC style (labelled,
non-canonical NOP padding), a quarter of the keys const (pre-resolved by
relax).  Linked with clang-19 -fuse-ld=lld as a PIE; then times
``dyncall-rewrite check``, ``dyncall-rewrite relax -o`` and
``dyncall-rewrite list --json`` (output discarded) as commands (process
start-up included) and prints the figures.

    python3 bench/rewriter_throughput.py [--sites 100000] [--keep DIR] [--profile]

Goals: check + relax <= 2 s for 100,000 sites (issue 4); list --json
within 2x of check (issue 12).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REWRITER = os.path.join(HERE, "..", "rewriter")
CLANG = os.environ.get("DYNCALL_TEST_CLANG", "clang-19")

ASM = r"""
	.section .data.rel.ro,"aw",@progbits
	.p2align 3
.Lkeycell_key_var:	.quad key_var
.Lkeycell_key_const:	.quad key_const
	.section .rodata.str1.1,"aMS",@progbits,1
.Lname_key_var:	.asciz "key_var"
.Lname_key_const:	.asciz "key_const"
	.section __dyncall_keys,"a",@progbits
	.p2align 2
	.long .Lkeycell_key_var - .
	.long .Lname_key_var - .
	.byte 1, 3
	.short 0
	.long 0
	.long .Lkeycell_key_const - .
	.long .Lname_key_const - .
	.byte 1, 3
	.short 4
	.long 0

	.macro tramp name
	.section .text.__dyncall_tramp,"ax",@progbits
	.p2align 3
	.byte 0xcc, 0xcc, 0xcc
	.hidden \name
	.type \name,@function
\name:
	.byte 0xe9
	.long 0
	.byte 0x41, 0xff, 0xe2
	.size \name, . - \name
	.endm

	/* Clang style: site == 0, func == 0 */
	.macro clang_site key
	.text
	.p2align 4
	.type cfn\@,@function
cfn\@:
	movq \key(%rip), %r10
	call __dyncall_tramp.c.\@
	ret
	.size cfn\@, . - cfn\@
	tramp __dyncall_tramp.c.\@
	.section __dyncall_sites,"a",@progbits
	.long 0
	.long __dyncall_tramp.c.\@ - .
	.long .Lkeycell_\key - .
	.long 0
	.byte 1, 1
	.short 1
	.endm

	/* GCC style: labelled site, rel32 4-byte aligned by NOP padding */
	.macro gcc_site key
	.text
	.p2align 4
	.type gfn\@,@function
gfn\@:
	movq \key(%rip), %r10
	.p2align 2
	nop
	nop
	nop
.Lgsite\@:
	call __dyncall_tramp.g.\@
	ret
	.size gfn\@, . - gfn\@
	tramp __dyncall_tramp.g.\@
	.section __dyncall_sites,"a",@progbits
	.long .Lgsite\@ - .
	.long __dyncall_tramp.g.\@ - .
	.long .Lkeycell_\key - .
	.long gfn\@ - .
	.byte 1, 1
	.short 1
	.endm

	.rept NQ
	clang_site key_var
	clang_site key_const
	gcc_site key_var
	gcc_site key_const
	.endr
	.section .note.GNU-stack,"",@progbits
"""

PROG_C = r"""
int target(int x) { return x + 1; }
__attribute__((used)) int (*key_var)(int) = target;
__attribute__((used)) int (*const key_const)(int) = target;
int main(void) { return 0; }
"""


CPU: list[float] = []


def run(cmd: list[str], env: dict[str, str] | None = None, discard: bool = False) -> float:
    """Wall time of cmd; its CPU time (user + sys) is appended to CPU.
    ``discard``: stdout to /dev/null (not captured)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.DEVNULL if discard else subprocess.PIPE
    r = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True, env=env)
    dt = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{(r.stdout or '')[-2000:]}{r.stderr[-2000:]}")
    return dt


def calibrate() -> float:
    """CPU seconds of a fixed pure-Python loop (~0.12 s on an idle machine
    of this class): divides out the load other jobs put on the machine."""
    t = time.process_time()
    sum(range(10**7))
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sites", type=int, default=100_000)
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--profile", action="store_true", help="cProfile check+relax in-process")
    ap.add_argument("--rewrite", default=None, help="dyncall-rewrite command (default: python3 -m)")
    a = ap.parse_args()
    nq = max(1, a.sites // 4)
    work = a.keep or tempfile.mkdtemp(prefix="dyncall-throughput.")
    os.makedirs(work, exist_ok=True)
    s, c, exe = (os.path.join(work, n) for n in ("sites.s", "prog.c", "big"))
    with open(s, "w") as f:
        f.write(ASM.replace("NQ", str(nq)))
    with open(c, "w") as f:
        f.write(PROG_C)
    t_build = run([CLANG, "-fPIE", "-pie", "-fuse-ld=lld", "-O1", s, c, "-o", exe])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.abspath(REWRITER) + os.pathsep + env.get("PYTHONPATH", "")
    tool = a.rewrite.split() if a.rewrite else [sys.executable, "-m", "dyncall_rewrite"]
    if a.profile:
        sys.path.insert(0, os.path.abspath(REWRITER))
        import cProfile
        import pstats

        from dyncall_rewrite.check import check
        from dyncall_rewrite.elf import Image
        from dyncall_rewrite.relax import relax

        def work_() -> None:
            img = Image.load(exe)
            check(img)
            relax(img)

        cProfile.runctx("work_()", globals(), locals(), os.path.join(work, "prof"))
        pstats.Stats(os.path.join(work, "prof")).sort_stats("cumulative").print_stats(25)
    cal0 = calibrate()
    t_start = run([*tool, "--version"], env)
    t_check = run([*tool, "check", "-q", exe], env)
    t_relax = run([*tool, "relax", exe, "-o", exe + ".relaxed"], env)
    t_check2 = run([*tool, "check", "-q", exe + ".relaxed"], env)
    t_list = run([*tool, "list", "--json", exe], env, discard=True)
    cal = (cal0 + calibrate()) / 2
    c_start, c_check, c_relax, c_check2, c_list = CPU[-5:]
    size = os.path.getsize(exe)
    print(f"binary: {exe} ({4 * nq} sites, {size / 1e6:.1f} MB, built in {t_build:.2f} s)")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; calibration loop {cal:.3f} s")
    print("                            wall      cpu")
    print(f"python start-up + imports:  {t_start:6.3f} s {c_start:6.3f} s")
    print(f"check:                      {t_check:6.3f} s {c_check:6.3f} s")
    print(f"relax -o:                   {t_relax:6.3f} s {c_relax:6.3f} s")
    print(
        f"check + relax:              {t_check + t_relax:6.3f} s {c_check + c_relax:6.3f} s   (goal <= 2 s)"
    )
    print(f"check of relaxed output:    {t_check2:6.3f} s {c_check2:6.3f} s")
    print(
        f"list --json:                {t_list:6.3f} s {c_list:6.3f} s"
        f"   ({c_list / c_check:.2f}x check's CPU; goal <= 2x)"
    )
    if not a.keep:
        for n in os.listdir(work):
            os.unlink(os.path.join(work, n))
        os.rmdir(work)


if __name__ == "__main__":
    main()
