#!/usr/bin/env python3
"""Run a CMake project's own tests (the ones `ctest` knows) one by one, each
command optionally behind an emulator (qemu-user for cross builds, where a
test that names its program by path, not by target, would not get CMake's
CROSSCOMPILING_EMULATOR), and write each test's exit status and output.

    runtests.py BUILD_DIR OUT.json [--prefix 'qemu-aarch64 -L ...'] [--env K=V]...
                [--compare REF.json] [--timeout S]

OUT.json: {test name: {"rc": exit status, "out": stdout}}. With --compare,
every test must have the same exit status and stdout as in REF.json (the
plain build's run of the same suite). Prints one line per failing test and
`heldout: N passed, N failed`; exits 1 when a test failed or differed.
"""

import argparse
import json
import os
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
    return ap.parse_args()


def list_tests(build):
    res = subprocess.run(
        ["ctest", "--show-only=json-v1"], cwd=build, check=True, capture_output=True, text=True
    )
    tests = []
    for t in json.loads(res.stdout)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append((t["name"], t["command"], props))
    return tests


def run_one(cmd, props, args, env):
    full = shlex.split(args.prefix) + cmd
    cwd = props.get("WORKING_DIRECTORY", args.build)
    e = dict(env)
    for kv in props.get("ENVIRONMENT", []):
        k, _, v = kv.partition("=")
        e[k] = v
    try:
        p = subprocess.run(full, cwd=cwd, env=e, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "out": ""}
    rc = p.returncode
    if props.get("WILL_FAIL"):
        rc = 0 if rc != 0 else "passed-but-will-fail"
    return {
        "rc": rc,
        "out": p.stdout.decode(errors="replace"),
        "err": p.stderr.decode(errors="replace")[-2000:],
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
    results = {}
    passed = failed = 0
    for name, cmd, props in list_tests(args.build):
        r = run_one(cmd, props, args, env)
        results[name] = r
        why = None
        if r["rc"] != 0:
            why = f"exit status {r['rc']}: {r['err'][-300:]!r}"
        elif ref is not None and name not in ref:
            why = "not in the reference run"
        elif ref is not None and ref[name]["out"] != r["out"]:
            why = "stdout differs from the reference build's"
        if why:
            failed += 1
            print(f"heldout: FAIL {name}: {why}")
        else:
            passed += 1
    if ref is not None:
        for name in sorted(set(ref) - set(results)):
            failed += 1
            print(f"heldout: FAIL {name}: missing (in the reference run)")
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    print(f"heldout: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
