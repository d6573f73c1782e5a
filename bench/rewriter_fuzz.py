#!/usr/bin/env python3
"""Mutation fuzzing of dyncall-rewrite (issue 4: >= 10,000 cases).

Builds seed binaries from hand-written ABI assembly (rewriter/tests/dcgen.py:
Clang and GCC style, plain and retpoline, PIE, non-PIE, shared) and, when
the plugins are built, real programs from the Clang and GCC plugins, for
x86-64 and (with the cross runtimes) aarch64 and ppc64le; then
mutates them (rewriter/tests/fuzzlib.py: bit flips and stores on the tables,
trampolines, sites and relocations, random table fields, truncation, ELF
header bytes) and runs check + relax on each case in-process.  Every case
must end with exit status 0 or 1, at most one ``dyncall-rewrite: error:``
line, no internal error, no hang, an unmodified input, a relax output that
passes check, and the columnar fast path agreeing with the object path
(rewriter/tests/differential.py).

    python3 bench/rewriter_fuzz.py [--cases 10000] [--seed N] [--build DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "rewriter"))
sys.path.insert(0, os.path.join(ROOT, "rewriter", "tests"))

import dcgen  # noqa: E402
import fuzzlib  # noqa: E402


def real_programs(work: str, build: str) -> list[str]:
    """Programs built with the real plugins, when they exist."""
    out = []
    plug = os.path.join(build, "lib", "dyncall")
    lib = os.path.join(build, "lib")
    inputs = os.path.join(ROOT, "test", "rewriter", "Inputs")
    srcs = [os.path.join(inputs, "prog.c"), os.path.join(inputs, "keys.c")]
    ld = [f"-L{lib}", "-ldyncall", f"-Wl,-rpath,{lib}"]
    inc = f"-I{os.path.join(ROOT, 'include')}"
    cmds = {
        "real-clang": [
            "clang-19",
            "-O2",
            f"-fplugin={plug}/dyncall_clang.so",
            f"-fpass-plugin={plug}/dyncall_llvm.so",
            inc,
        ],
        "real-gcc": ["gcc-12", "-O2", f"-fplugin={plug}/dyncall_gcc.so", inc],
    }
    for name, cc in cmds.items():
        exe = os.path.join(work, name)
        r = subprocess.run([*cc, *srcs, "-o", exe, *ld], capture_output=True)
        if r.returncode == 0:
            out.append(exe)
    return out


def cross_programs(work: str, build: str) -> list[str]:
    """aarch64 and ppc64le programs built with the real plugins (Clang and
    the Debian cross GCCs, test_arch_cross.build), when the cross runtimes
    and compilers exist."""
    os.environ.setdefault("DYNCALL_BUILD", build)
    import test_arch_cross as xc

    out = []
    for arch in ("aarch64", "ppc64le"):
        for compiler in ("clang", "gcc"):
            if xc._have(arch, compiler) is not None:
                continue
            d = os.path.join(work, f"x-{arch}-{compiler}")
            os.makedirs(d, exist_ok=True)
            with contextlib.suppress(subprocess.SubprocessError):  # seed skipped
                out.append(xc.build(os.path.join(d, f"{arch}-{compiler}"), arch, compiler))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="dyncall-fuzz.")
    seeds = [
        dcgen.build(os.path.join(work, "c-pie"), style="clang"),
        dcgen.build(os.path.join(work, "g-pie"), style="gcc"),
        dcgen.build(os.path.join(work, "c-nopie-retp"), style="clang", link="nopie", retpoline=True),
        dcgen.build(os.path.join(work, "g-so"), style="gcc", link="shared"),
        dcgen.build(os.path.join(work, "g-strip"), style="gcc", strip=True, retpoline=True),
    ]
    seeds += real_programs(work, a.build)
    seeds += cross_programs(work, a.build)
    print(f"seeds: {', '.join(os.path.basename(s) for s in seeds)}")
    t = time.perf_counter()
    res = fuzzlib.fuzz(seeds, a.cases, work, seed=a.seed)
    dt = time.perf_counter() - t
    print(f"cases: {res.cases} in {dt:.1f} s ({res.cases / dt:.0f}/s)")
    print(
        "exit statuses (check and relax runs): " + ", ".join(f"{k}: {v}" for k, v in sorted(res.rc.items()))
    )
    print("codes seen: " + ", ".join(f"{k} x{v}" for k, v in sorted(res.codes.items())))
    n_col = res.engines.get("columns", 0)
    print(f"columnar fast path proved clean (and matched the object path): {n_col} cases")
    print(f"failures: {len(res.failures)}")
    for f in res.failures[:50]:
        print("  " + f)
    sys.exit(1 if res.failures else 0)


if __name__ == "__main__":
    main()
