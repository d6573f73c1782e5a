#!/usr/bin/env python3
"""What function-entry patching costs on a real program: SQLite speedtest1
built plain (-O2) and with dyncall-cc --dyncall-prologues=all (build.sh
variant pfe, the unmodified sources), docs/prologues.md "On a real program".

    realworld_prologues.py [--compilers clang-19,gcc-12] [--rounds 9]
                           [--sqlite-size 100] [--no-build] [--json FILE]

Per compiler, INTERLEAVED (round r runs every variant once, in a fixed
order, before round r+1), the CPU time (user + sys of the child, os.wait4)
of speedtest1 --size N in:

    plain   the -O2 build
    nops    the pfe build as built: every function's patchable NOPs
    empty   the pfe build with every registered function hooked by a handler
            that does nothing (test/prologues/Inputs/hook-all.c,
            HOOKALL_MODE=empty, preloaded: one dyncall_fn_hook_batch
            before main)

Printed: the median and inter-quartile range of each, nops / plain (the
cost of the NOPs alone), empty / nops, and, from one more run with the
counting handler (HOOKALL_MODE=hook, its report), the number of hooked
calls, hence the cost per hooked call = (T_empty - T_nops) / calls.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUN_TIMEOUT = 600
VARIANTS = ["plain", "nops", "empty"]

sys.path.insert(0, HERE)
import realworld  # noqa: E402  (its run_cpu and quartiles)


def run_cpu(argv, cwd, env):
    """CPU seconds (user + sys) of the child; raises on failure."""
    return realworld.run_cpu(argv, cwd, env, RUN_TIMEOUT)


quartiles = realworld.quartiles


def hook_all_lib(build):
    """Build test/prologues/Inputs/hook-all.c (as verify-prologues.sh does)."""
    src = os.path.join(ROOT, "test", "prologues", "Inputs", "hook-all.c")
    out = os.path.join(build, "realworld", "hook-all.so")
    lib = os.path.join(build, "lib")
    if not os.path.exists(out) or os.path.getmtime(src) > os.path.getmtime(out):
        subprocess.run(
            [
                "cc",
                "-O2",
                "-shared",
                "-fPIC",
                "-I" + os.path.join(ROOT, "include"),
                src,
                "-o",
                out,
                "-L" + lib,
                "-ldyncall",
                "-Wl,-rpath," + lib,
                "-ldl",
                "-lpthread",
            ],
            check=True,
        )
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compilers", default="clang-19,gcc-12")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--sqlite-size", type=int, default=100)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    build = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))
    compilers = a.compilers.split(",")
    if not a.no_build:
        for c in compilers:
            for v in ("plain", "pfe"):
                subprocess.run(
                    [os.path.join(ROOT, "scripts", "realworld", "build.sh"), v, c, "sqlite"],
                    check=True,
                    env=dict(os.environ, BUILD_DIR=build),
                )
    hk = hook_all_lib(build)
    rw = os.path.join(build, "realworld")
    scratch = tempfile.mkdtemp(prefix="pfe-bench-")
    base_env = dict(os.environ)
    for k in ("LD_PRELOAD", "HOOKALL_MODE", "HOOKALL_REPORT"):
        base_env.pop(k, None)

    def argv(c, v):
        d = "plain" if v == "plain" else "pfe"
        return [os.path.join(rw, c, d, "sqlite", "speedtest1"), "--size", str(a.sqlite_size)]

    def env(v, mode=None, report=None):
        if v == "empty" or mode:
            e = dict(base_env, LD_PRELOAD=hk, HOOKALL_MODE=mode or "empty")
            if report:
                e["HOOKALL_REPORT"] = report
            return e
        return base_env

    # the hooked calls: one run with the counting handler
    calls = {}
    for c in compilers:
        rep = os.path.join(scratch, f"{c}.rep")
        run_cpu(argv(c, "nops"), scratch, env("nops", "hook", rep))
        with open(rep) as f:
            line = f.read().split()
        kv = dict(x.split("=", 1) for x in line[1:])
        calls[c] = (int(kv["calls"]), int(kv["fns"]), int(kv["patched"]))

    times = {(c, v): [] for c in compilers for v in VARIANTS}
    t0 = time.time()
    load0 = os.getloadavg()
    for r in range(a.rounds):
        for c in compilers:
            for v in VARIANTS:
                times[(c, v)].append(run_cpu(argv(c, v), scratch, env(v)))
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    load1 = os.getloadavg()

    print(
        f"SQLite speedtest1 --size {a.sqlite_size}, {a.rounds} interleaved rounds, CPU s (user+sys), "
        f"median [IQR]; load average {load0[0]:.1f} -> {load1[0]:.1f}, {time.time() - t0:.0f} s"
    )
    out = {"size": a.sqlite_size, "rounds": a.rounds, "load": [load0[0], load1[0]], "compilers": {}}
    for c in compilers:
        med = {}
        for v in VARIANTS:
            lo, m, hi = quartiles(times[(c, v)])
            med[v] = m
            print(f"  {c:9} {v:6} {m:8.3f} [{lo:.3f} - {hi:.3f}]")
        n, fns, pat = calls[c]
        per = (med["empty"] - med["nops"]) / n * 1e9 if n else float("nan")
        print(
            f"  {c:9} nops/plain {med['nops'] / med['plain']:.3f}  "
            f"empty/nops {med['empty'] / med['nops']:.3f}  "
            f"{pat} of {fns} functions hooked, {n} hooked calls: {per:.2f} ns per hooked call"
        )
        out["compilers"][c] = {
            "median": med,
            "times": {v: times[(c, v)] for v in VARIANTS},
            "calls": n,
            "functions": fns,
            "hooked": pat,
            "ns_per_call": per,
        }
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
