#!/usr/bin/env python3
"""Real-world benchmark: SQLite, Expat and TinyXML-2 in eight builds (bench/README.md, docs/realworld.md).

    realworld.py [--compilers clang-19,gcc-12] [--rounds 5] [--sqlite-size 100]
                 [--xml-mb 4] [--bench-loops 10] [--no-build] [--no-callgrind]
                 [--json FILE] [--callgrind-only FILE | --callgrind-from FILE]

For each program and compiler the variants (plain, plain-nojt, retpoline,
dyncall, wp, wp-noig (wp without the inline guard), and with Clang pgo,
pgo-dyncall, pgo-wp;
scripts/realworld/build.sh; TinyXML-2, a C++ program, has no annotated
dyncall build: its dyncall build is wp) run
INTERLEAVED: round r runs every (workload, compiler, variant) once, in a
fixed order, before round r+1. Each run's cost is the CPU time of the child
(user + sys from os.wait4). Printed: the median and the inter-quartile range
per variant, the share of the indirect-call overhead dyncall recovers,

    recovered = (T_retpoline - T_x) / (T_retpoline - T_plain_nojt)
    recovered (pgo-x) = (T_pgo - T_pgo_x) / (T_pgo - T_plain_nojt)
    of whole = (T_retpoline - T_x) / (T_retpoline - T_plain)

for x in dyncall, wp, wp-noig (pgo-dyncall, pgo-wp: "of whole" also from
T_retpoline), n/a when the denominator is not positive; the dynamic retpoline
executions left (callgrind --dump-instr=yes and the bytes of the executable
mappings saved at exit, bench/realworld_execdump.c; deterministic;
bench/realworld_callgrind.py) in
% of the retpoline build's, on smaller inputs (callgrind is ~50x slower).
The counts are deterministic: --callgrind-only FILE computes them alone (it
can run while something else is being timed), --callgrind-from FILE reuses
them.
"""

import argparse
import datetime
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import realworld_callgrind  # noqa: E402  (bench/ is not a package)

VARIANTS = {
    "clang": ["plain", "plain-nojt", "retpoline", "dyncall", "wp", "wp-noig", "pgo", "pgo-dyncall", "pgo-wp"],
    "gcc": ["plain", "plain-nojt", "retpoline", "dyncall", "wp", "wp-noig"],
}
RUN_TIMEOUT = 300  # seconds per run: a hung build variant fails the bench, never hangs it
RETPOLINE_VARIANTS = ["retpoline", "dyncall", "wp", "wp-noig", "pgo", "pgo-dyncall", "pgo-wp"]
ANNOTATED = ("dyncall", "pgo-dyncall")  # built from annotate.py's copy: SQLite and Expat only


def variants(compiler, program):
    return [v for v in VARIANTS[kind(compiler)] if program != "tinyxml2" or v not in ANNOTATED]


def kind(compiler):
    return "clang" if compiler.startswith("clang") else "gcc"


def workloads(a, data):
    """name -> (program dir, function(variant dir, scratch) -> argv)."""
    return {
        "sqlite speedtest1": (
            "sqlite",
            lambda d, s, size=a.sqlite_size: [os.path.join(d, "sqlite", "speedtest1"), "--size", str(size)],
        ),
        "expat benchmark": (
            "expat",
            lambda d, s, loops=a.bench_loops: [
                os.path.join(d, "expat", "benchmark"),
                data["xml"],
                "4096",
                str(loops),
            ],
        ),
        "expat xmlwf -d": ("expat", lambda d, s: [os.path.join(d, "expat", "xmlwf"), "-d", s, data["xml"]]),
        "tinyxml2 bench": (
            "tinyxml2",
            lambda d, s, loops=a.bench_loops: [
                os.path.join(d, "tinyxml2", "tinyxml2_bench"),
                data["xml_nopi"],
                str(loops),
            ],
        ),
    }


def cg_workloads(data):
    """The callgrind inputs: the same programs, smaller."""
    return {
        "sqlite speedtest1": lambda d, s: [os.path.join(d, "sqlite", "speedtest1"), "--size", "10"],
        "expat benchmark": lambda d, s: [
            os.path.join(d, "expat", "benchmark"),
            data["xml_small"],
            "4096",
            "1",
        ],
        "expat xmlwf -d": lambda d, s: [os.path.join(d, "expat", "xmlwf"), "-d", s, data["xml_small"]],
        "tinyxml2 bench": lambda d, s: [
            os.path.join(d, "tinyxml2", "tinyxml2_bench"),
            data["xml_nopi_small"],
            "1",
        ],
    }


def run_cpu(argv, cwd, env=None, timeout=RUN_TIMEOUT):
    """CPU seconds (user + sys) of the child (stdout to /dev/null, `env` or
    ours, killed after `timeout` s); raises on failure.  Also used by
    bench/realworld_prologues.py."""
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            fd = os.open(os.devnull, os.O_RDWR)
            os.dup2(fd, 1)
            os.execve(argv[0], argv, os.environ if env is None else env)
        finally:
            os._exit(127)
    deadline = time.monotonic() + timeout
    while True:
        got, status, ru = os.wait4(pid, os.WNOHANG)
        if got:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            raise RuntimeError(f"{' '.join(argv)}: no exit after {timeout} s (killed)")
        time.sleep(0.005)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit status {status}")
    return ru.ru_utime + ru.ru_stime


def quartiles(xs):
    if len(xs) < 2:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def share(t_base, t_new, t_floor):
    den = t_base - t_floor
    return None if den <= 0 else (t_base - t_new) / den


def share_of(med, base, v, floor):
    """share() over the medians of the variants; None when one was not run."""
    if not all(k in med for k in (base, v, floor)):
        return None
    return share(med[base], med[v], med[floor])


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compilers", default="clang-19,gcc-12")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sqlite-size", type=int, default=100)
    ap.add_argument("--xml-mb", type=float, default=4)
    ap.add_argument("--bench-loops", type=int, default=10)
    ap.add_argument("--workloads", default="", help="comma-separated subset (by prefix)")
    ap.add_argument("--variants", default="", help="comma-separated subset of the variants")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--build-dir", default=os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--callgrind-only",
        metavar="FILE",
        default=None,
        help="count the retpolines (callgrind) only, no timing; write the counts to FILE",
    )
    ap.add_argument(
        "--callgrind-from",
        metavar="FILE",
        default=None,
        help="take the retpoline counts from FILE (of --callgrind-only) instead of running callgrind",
    )
    return ap.parse_args()


def build_variants(a, build, compilers):
    """Build every variant asked for; False when the sources are missing."""
    env = dict(os.environ, BUILD_DIR=build)
    for c in compilers:
        for v in VARIANTS[kind(c)]:
            if a.variants and v not in a.variants.split(","):
                continue
            r = subprocess.run(
                [
                    os.path.join(ROOT, "scripts", "realworld", "build.sh"),
                    v,
                    c,
                    "sqlite",
                    "expat",
                    "tinyxml2",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                check=False,
            )
            if r.returncode == 3:
                print("realworld: sources not available (see scripts/realworld/fetch.sh); no benchmark")
                return False
            if r.returncode:
                sys.exit(f"realworld: build of {c}/{v} failed")
    return True


def make_data(a, rw):
    """The XML documents of the workloads, generated once."""
    data_dir = os.path.join(rw, "data")
    os.makedirs(data_dir, exist_ok=True)
    data = {
        "xml": os.path.join(data_dir, f"bench-{a.xml_mb:g}mb.xml"),
        "xml_small": os.path.join(data_dir, "bench-1mb.xml"),
        # TinyXML-2 accepts an XML declaration only at the start: no PIs.
        "xml_nopi": os.path.join(data_dir, f"bench-{a.xml_mb:g}mb-nopi.xml"),
        "xml_nopi_small": os.path.join(data_dir, "bench-1mb-nopi.xml"),
    }
    for key, mb in (("xml", a.xml_mb), ("xml_small", 1), ("xml_nopi", a.xml_mb), ("xml_nopi_small", 1)):
        if not os.path.exists(data[key]):
            opt = ["--no-pi"] if "nopi" in key else []
            subprocess.run(
                [
                    sys.executable,
                    os.path.join(ROOT, "scripts", "realworld", "genxml.py"),
                    *opt,
                    data[key],
                    str(mb),
                ],
                check=True,
            )
    return data


def time_jobs(a, rw, wl, jobs, scratch):
    """CPU seconds of every job, a.rounds times, interleaved."""
    times = {j: [] for j in jobs}
    for r in range(0 if a.callgrind_only else a.rounds):
        for w, c, v in jobs:
            s = os.path.join(scratch, "run")
            shutil.rmtree(s, ignore_errors=True)
            os.makedirs(s)
            times[(w, c, v)].append(run_cpu(wl[w][1](os.path.join(rw, c, v), s), s))
        print(f"realworld: round {r + 1}/{a.rounds} done", file=sys.stderr)
    return times


def count_retpolines(a, rw, data, jobs, scratch):
    """The dynamic retpoline executions of each job (callgrind), by job."""
    retp = {}
    if a.callgrind_from:
        with open(a.callgrind_from) as f:
            return {tuple(k.split("|")): n for k, n in json.load(f).items()}
    if a.no_callgrind or not shutil.which("valgrind"):
        return retp
    execdump = os.path.join(rw, "realworld_execdump.so")
    cc = ["clang-19", "-O2", "-shared", "-fPIC", os.path.join(HERE, "realworld_execdump.c")]
    subprocess.run([*cc, "-o", execdump, "-ldl"], check=True)
    cgw = cg_workloads(data)
    for w, c, v in jobs:
        if v not in RETPOLINE_VARIANTS or w not in cgw:
            continue
        s = os.path.join(scratch, "cg")
        shutil.rmtree(s, ignore_errors=True)
        os.makedirs(s)
        out = os.path.join(s, "callgrind.out")
        dump = os.path.join(s, "exec.dump")
        argv = [
            "env",
            f"LD_PRELOAD={execdump}",
            f"REALWORLD_EXECDUMP={dump}",
            "valgrind",
            "--tool=callgrind",
            "--dump-instr=yes",
            # The runtime patches code in place; it also tells
            # valgrind (runtime/code_changed.c), this checks every block.
            "--smc-check=all",
            f"--callgrind-out-file={out}",
            *cgw[w](os.path.join(rw, c, v), os.path.join(s, "o")),
        ]
        os.makedirs(os.path.join(s, "o"))
        subprocess.run(argv, cwd=s, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        retp[(w, c, v)] = realworld_callgrind.count(out, dump)["total"]
    return retp


def make_rows(wl, compilers, times, retp):
    """One row per job: median, IQR, retpolines left, the shares recovered."""
    rows = []
    for w in wl:
        for c in compilers:
            med = {}
            vs = [v for v in variants(c, wl[w][0]) if (w, c, v) in times]
            for v in vs:
                q1, m, q3 = quartiles(times[(w, c, v)])
                med[v] = m
                base = retp.get((w, c, "retpoline"))
                left = retp.get((w, c, v))
                left_pct = (100.0 * left / base) if base and left is not None else None
                rows.append(
                    {
                        "workload": w,
                        "compiler": c,
                        "variant": v,
                        "median_s": m,
                        "iqr_s": q3 - q1,
                        "runs_s": times[(w, c, v)],
                        "retpolines": left,
                        "retpolines_left_pct": left_pct,
                    }
                )

            for row in rows[-len(vs) :]:
                v = row["variant"]
                if v in ("dyncall", "wp", "wp-noig"):
                    row["recovered"] = share_of(med, "retpoline", v, "plain-nojt")
                if v in ("pgo-dyncall", "pgo-wp"):
                    row["recovered"] = share_of(med, "pgo", v, "plain-nojt")
                if v in ("dyncall", "wp", "wp-noig", "pgo-dyncall", "pgo-wp"):
                    row["of_whole"] = share_of(med, "retpoline", v, "plain")
    return rows


def print_table(a, rows, commit):
    print(
        f"realworld: {a.rounds} interleaved rounds, CPU time (user+sys) median [IQR]; "
        f"sqlite speedtest1 --size {a.sqlite_size}; expat benchmark {a.xml_mb:g} MB x {a.bench_loops}, "
        f"xmlwf -d {a.xml_mb:g} MB; tinyxml2_bench {a.xml_mb:g} MB x {a.bench_loops}; "
        "retpolines: callgrind, speedtest1 --size 10 / 1 MB / 1 MB x 1"
    )
    print(f"commit {commit}")
    hdr = (
        f"{'workload':<18} {'compiler':<9} {'variant':<12} {'median s':>9} {'IQR s':>7} "
        f"{'vs retp':>8} {'recovered':>9} {'of whole':>8} {'retpolines left':>16}"
    )
    print(hdr)
    print("-" * len(hdr))
    for row in rows:
        base = next(
            (
                r["median_s"]
                for r in rows
                if r["workload"] == row["workload"]
                and r["compiler"] == row["compiler"]
                and r["variant"] == "retpoline"
            ),
            float("nan"),
        )
        rec = row.get("recovered")
        rec_s = "" if "recovered" not in row else ("n/a" if rec is None else f"{100 * rec:.0f}%")
        whole = row.get("of_whole")
        whole_s = "" if "of_whole" not in row else ("n/a" if whole is None else f"{100 * whole:.0f}%")
        left = row["retpolines_left_pct"]
        count = row["retpolines"]
        # without the retpoline variant (--variants): no share, the count alone
        left_s = f"{left:.1f}% ({count:,})" if left is not None else "" if count is None else f"({count:,})"
        vs_s = "n/a" if math.isnan(base) else f"{row['median_s'] / base:.2f}x"
        print(
            f"{row['workload']:<18} {row['compiler']:<9} {row['variant']:<12} "
            f"{row['median_s']:>9.3f} {row['iqr_s']:>7.3f} {vs_s:>8} "
            f"{rec_s:>9} {whole_s:>8} {left_s:>16}"
        )


def main():
    a = parse_args()
    build = os.path.abspath(a.build_dir)
    rw = os.path.join(build, "realworld")
    compilers = [c for c in a.compilers.split(",") if c]
    if not a.no_build and not build_variants(a, build, compilers):
        return 0
    data = make_data(a, rw)
    wl = workloads(a, data)
    if a.workloads:
        keep = a.workloads.split(",")
        wl = {k: v for k, v in wl.items() if any(k.startswith(p) for p in keep)}

    jobs = [(w, c, v) for w in wl for c in compilers for v in variants(c, wl[w][0])]
    if a.variants:
        jobs = [j for j in jobs if j[2] in a.variants.split(",")]
    with tempfile.TemporaryDirectory(prefix="realworld-bench-") as scratch:
        times = time_jobs(a, rw, wl, jobs, scratch)
        retp = count_retpolines(a, rw, data, jobs, scratch)

    if a.callgrind_only:
        with open(a.callgrind_only, "w") as f:
            json.dump({"|".join(k): n for k, n in retp.items()}, f, indent=1)
        print(f"realworld: retpoline counts of {len(retp)} runs in {a.callgrind_only}")
        return 0

    rows = make_rows(wl, compilers, times, retp)
    commit = subprocess.run(
        ["git", "-C", ROOT, "log", "-1", "--format=%h %s"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print_table(a, rows, commit)
    out = a.json or os.path.join(rw, "bench.json")
    with open(out, "w") as f:
        json.dump(
            {
                "date": datetime.datetime.now().isoformat(timespec="seconds"),
                "commit": commit,
                "rounds": a.rounds,
                "sqlite_size": a.sqlite_size,
                "xml_mb": a.xml_mb,
                "bench_loops": a.bench_loops,
                "rows": rows,
            },
            f,
            indent=1,
        )
    print(f"realworld: JSON in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
