#!/usr/bin/env python3
"""Run a CMake project's own tests (the ones `ctest` knows) one by one, each
command optionally behind an emulator (qemu-user for cross builds, where a
test that names its program by path, not by target, would not get CMake's
CROSSCOMPILING_EMULATOR), and write each test's exit status and output.

    runtests.py BUILD_DIR OUT.json [--prefix 'qemu-aarch64 -L ...'] [--env K=V]...
                [--compare REF.json] [--timeout S] [--script-sim OPTION]
                [--script-arg ARG]... [--skip NAME:WHY]... [--exit-only NAME:WHY]...
                [--ignore-line REGEX]... [--tap NAME]...

OUT.json: {test name: {"rc": exit status, "out": stdout}}. With --compare,
every test must have the same exit status and stdout as in REF.json (the
plain build's run of the same suite). Prints one line per failing test and
`heldout: N passed, N failed[, N skipped]`; exits 1 when a test failed or
differed.

With --prefix and --script-sim OPTION (the script's own option for an
emulator: PCRE2's RunTest has -sim), a test whose command is a shell
script (sh, bash, dash) runs on the host with the --script-arg arguments
and `OPTION PREFIX` appended; any other test, and every test without
--script-sim, runs behind the prefix.
--skip leaves a test out of the run and the comparison, --exit-only out
of the comparison only (it must still exit 0), with the reason printed.
--ignore-line: stdout lines matching REGEX are left out of the comparison
(a line that names the CPU the build is for).
--tap NAME: the test prints TAP (`ok N - case`, `not ok N - case`: libuv's
runner, whose exit status is the number of cases that failed): its cases
are compared one by one instead of its stdout and exit status. A case that
failed in REF.json too is left out, named as failing in the reference
(the machine: root, no network). One that fails only here runs again
alone, as `COMMAND CASE` (libuv's runner takes one case name), up to
twice: passing then, it is named as passed on a rerun (timing-dependent
cases). Failing both times, it runs alone in the reference build (its
command as REF.json recorded it) up to five times: failing there once,
it is named as failing alone in the reference (the plain build fails it
on this machine too, and passed it in the reference's whole run by
chance: libuv's tcp_close_while_connecting, whose 1 ms timer races the
network's answer to a connect to 1.2.3.4: 7 passes in 20 alone in the
plain GCC build); passing there all five times, it is a failure.
A TAP test killed by a signal or timed out fails whatever it printed, and
so does one that prints no case. Without --compare (the reference run) the
test otherwise passes whatever its cases do.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--compare")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--script-sim")
    ap.add_argument("--script-arg", action="append", default=[])
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--exit-only", action="append", default=[])
    ap.add_argument("--ignore-line", action="append", default=[])
    ap.add_argument("--tap", action="append", default=[])
    return ap.parse_args()


SHELLS = {"sh", "bash", "dash"}


def command_line(cmd, args):
    """The command as run: behind the emulator, or a shell script given it."""
    if args.prefix and args.script_sim and os.path.basename(cmd[0]) in SHELLS:
        return [*cmd, *args.script_arg, args.script_sim, args.prefix]
    return shlex.split(args.prefix) + cmd


def comparable(out, ignore):
    return [line for line in out.splitlines() if not any(r.search(line) for r in ignore)]


def list_tests(build):
    res = subprocess.run(
        ["ctest", "--show-only=json-v1"], cwd=build, check=True, capture_output=True, text=True
    )
    tests = []
    for t in json.loads(res.stdout)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append((t["name"], t["command"], props))
    return tests


TAP_CASE = re.compile(r"^(ok|not ok) \d+ - (\S+)")


def tap_cases(out):
    """{case: True if ok} of a TAP stdout."""
    return {m[2]: m[1] == "ok" for m in map(TAP_CASE.match, out.splitlines()) if m}


def tap_verdict(name, r, ref, rerun, args):
    """Why a TAP test (its result R) failed against the reference's run of
    it, or None; rerun(case) runs one case alone and tells whether it passed."""
    # the exit status counts failed cases; killed (negative) or timed out,
    # the runner itself failed, whatever it printed before
    if not isinstance(r["rc"], int) or r["rc"] < 0:
        return f"exit status {r['rc']}: {r['err'][-300:]!r}"
    cases = tap_cases(r["out"])
    if not cases:
        return "no TAP case in its output"
    if ref is None:
        return None
    if name not in ref:
        return "not in the reference run"
    want = tap_cases(ref[name]["out"])
    env = sorted(c for c, ok in want.items() if not ok)
    if env:
        print(f"heldout: note {name}: {len(env)} cases fail in the reference too: {' '.join(env)}")
    bad = sorted(c for c, ok in want.items() if ok and not cases.get(c, False))
    again = [c for c in bad if c in cases and (rerun(c) or rerun(c))]
    if again:
        print(f"heldout: note {name}: failed, then passed on a rerun alone: {' '.join(again)}")
    bad = [c for c in bad if c not in again]
    theirs = [c for c in bad if c in cases and fails_alone_in_reference(ref[name], c, args)]
    if theirs:
        print(f"heldout: note {name}: fail alone in the reference build too: {' '.join(theirs)}")
    bad = [c for c in bad if c not in theirs]
    extra = sorted(set(cases) - set(want))
    if bad or extra:
        return f"{len(bad)} cases failed or missing: {' '.join(bad[:10])}" + (
            f"; not in the reference: {' '.join(extra[:10])}" if extra else ""
        )
    print(f"heldout: note {name}: {sum(cases.values())} of {len(cases)} TAP cases ok in the whole run")
    return None


def fails_alone_in_reference(recorded, case, args, tries=5):
    """Whether CASE, run alone in the reference build up to TRIES times,
    fails once (False when the reference run recorded no command: nothing
    excuses the case then)."""
    run = recorded.get("run")
    if not run:
        return False
    e = dict(os.environ, **run["env"])
    for _ in range(tries):
        try:
            p = subprocess.run(
                [*run["argv"], case], cwd=run["cwd"], env=e, capture_output=True, timeout=args.timeout
            )
        except subprocess.TimeoutExpired:
            return True
        if p.returncode != 0:
            return True
    return False


def run_one(cmd, props, args, env):
    full = command_line(cmd, args)
    cwd = props.get("WORKING_DIRECTORY", args.build)
    # the variables set for it (recorded: a --tap comparison reruns a case
    # of the reference build as it ran)
    overrides = dict(kv.partition("=")[::2] for kv in [*args.env, *props.get("ENVIRONMENT", [])])
    e = dict(env, **overrides)
    run = {"argv": full, "cwd": cwd, "env": overrides}
    try:
        p = subprocess.run(full, cwd=cwd, env=e, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "out": "", "run": run}
    rc = p.returncode
    if props.get("WILL_FAIL"):
        rc = 0 if rc != 0 else "passed-but-will-fail"
    return {
        "rc": rc,
        "out": p.stdout.decode(errors="replace"),
        "err": p.stderr.decode(errors="replace")[-2000:],
        "run": run,
    }


def main():
    args = parse_args()
    env = dict(os.environ)
    for kv in args.env:
        k, _, v = kv.partition("=")
        env[k] = v
    ref = None
    if args.compare:
        with open(args.compare) as f:
            ref = json.load(f)
    skip = dict(s.partition(":")[::2] for s in args.skip)
    exit_only = dict(s.partition(":")[::2] for s in args.exit_only)
    ignore = [re.compile(r) for r in args.ignore_line]
    results = {}
    passed = failed = skipped = 0
    for name, cmd, props in list_tests(args.build):
        if name in skip:
            skipped += 1
            print(f"heldout: SKIP {name}: {skip[name]}")
            continue
        r = run_one(cmd, props, args, env)
        results[name] = r
        why = None
        if name in args.tap:

            def rerun(case, cmd=cmd, props=props):
                return run_one([*cmd, case], props, args, env)["rc"] == 0

            why = tap_verdict(name, r, ref, rerun, args)
        elif r["rc"] != 0:
            why = f"exit status {r['rc']}: {r['err'][-300:]!r}"
        elif ref is not None and name not in ref:
            why = "not in the reference run"
        elif name in exit_only:
            print(f"heldout: note {name}: exit status only: {exit_only[name]}")
        elif ref is not None and comparable(ref[name]["out"], ignore) != comparable(r["out"], ignore):
            why = "stdout differs from the reference build's"
        if why:
            failed += 1
            print(f"heldout: FAIL {name}: {why}")
        else:
            passed += 1
    if ref is not None:
        for name in sorted(set(ref) - set(results) - set(skip)):
            failed += 1
            print(f"heldout: FAIL {name}: missing (in the reference run)")
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    print(f"heldout: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
