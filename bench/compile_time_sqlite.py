#!/usr/bin/env python3
"""Compile-time overhead of whole-program mode on SQLite's amalgamation
(issue 13: <= 10 %): `-c sqlite3.c` at -O2 with the retpoline flags, with
the compiler alone and through `dyncall-cc <compiler> --dyncall-whole-program`,
interleaved rounds, CPU time (user + sys of the compiler processes, the
dyncall-cc driver included), median and minimum per build.

    compile_time_sqlite.py [--compilers clang-19,gcc-12] [--rounds 3]

The amalgamation comes from scripts/realworld/amalgamation.sh (Debian's
sqlite3 source package). Prints a table and one verdict line per compiler.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL = 1.10


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compilers", default="clang-19,gcc-12")
    ap.add_argument("--rounds", type=int, default=3)
    return ap.parse_args()


def cpu_run(cmd):
    """CPU seconds (user + sys) of cmd and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(build, amal, compiler, out):
    retpoline = "-mretpoline" if compiler.startswith("clang") else "-mindirect-branch=thunk"
    args = [
        "-O2",
        retpoline,
        "-DSQLITE_THREADSAFE=1",
        "-DSQLITE_ENABLE_MATH_FUNCTIONS",
        "-I" + amal,
        "-c",
        os.path.join(amal, "sqlite3.c"),
    ]
    dcc = os.path.join(build, "bin", "dyncall-cc")
    return {
        "without": [compiler, *args, "-o", os.path.join(out, "plain.o")],
        "whole-program": [
            dcc,
            compiler,
            "--dyncall-whole-program",
            *args,
            "-o",
            os.path.join(out, "wp.o"),
        ],
    }


def main():
    a = parse_args()
    build = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))
    build = os.path.join(ROOT, build) if not os.path.isabs(build) else build
    rc = subprocess.run([os.path.join(ROOT, "scripts", "realworld", "amalgamation.sh")]).returncode
    if rc:
        print(f"compile_time_sqlite: no amalgamation (amalgamation.sh exit {rc}); skipped")
        return 0 if rc == 3 else 1
    amal = os.path.join(build, "realworld", "sqlite3-amalgamation")
    out = os.path.join(build, "bench", "compile_time_sqlite")
    os.makedirs(out, exist_ok=True)
    load = os.getloadavg()
    print(
        f"compile time of SQLite's amalgamation (-c sqlite3.c, -O2, retpolines), "
        f"{a.rounds} interleaved rounds, CPU s (user+sys); load average {load[0]:.1f} {load[1]:.1f}"
    )
    print(f"{'compiler':9} {'build':14} {'median s':>9} {'min s':>7} {'ratio (median)':>15}")
    verdicts = []
    for compiler in a.compilers.split(","):
        cmds = commands(build, amal, compiler, out)
        times = {k: [] for k in cmds}
        for _ in range(a.rounds):
            for k, c in cmds.items():
                times[k].append(cpu_run(c))
        base = statistics.median(times["without"])
        for k, ts in times.items():
            ratio = statistics.median(ts) / base
            print(f"{compiler:9} {k:14} {statistics.median(ts):9.2f} {min(ts):7.2f} {ratio:14.3f}x")
        r = statistics.median(times["whole-program"]) / base
        verdicts.append(
            f"compile_time_sqlite: {compiler} whole-program/without = {r:.3f}x "
            f"(goal <= {GOAL:.2f}x: {'met' if r <= GOAL else 'NOT met'})"
        )
    print("\n".join(verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
