#!/usr/bin/env python3
"""Print the one-line verdict of `make check` from lit's and pytest's reports.

    summarize-results.py [--lit lit.json] [--pytest pytest.xml] [--failed-step NAME]...

The last line printed is exactly `N passed, N failed` (`, N skipped` added
when there are skipped tests). lit UNSUPPORTED and XFAIL count as skipped;
FAIL, XPASS, UNRESOLVED, TIMEOUT as failed; a missing report, or a step that
could not run (--failed-step), counts as one failure: a test that could not
run is not "passed". Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET

LIT_PASS = {"PASS", "FLAKYPASS"}
LIT_SKIP = {"UNSUPPORTED", "XFAIL", "EXCLUDED", "SKIPPED"}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lit")
    ap.add_argument("--pytest")
    ap.add_argument("--failed-step", action="append", default=[])
    args = ap.parse_args()

    passed = failed = skipped = 0
    failures: list[str] = [f"step: {s}" for s in args.failed_step]
    failed += len(args.failed_step)

    if args.lit:
        try:
            with open(args.lit, encoding="utf-8") as f:
                tests = json.load(f).get("tests", [])
        except (OSError, ValueError) as exc:
            failures.append(f"lit: no report ({exc})")
            failed += 1
            tests = []
        for t in tests:
            code = t.get("code", "")
            if code in LIT_PASS:
                passed += 1
            elif code in LIT_SKIP:
                skipped += 1
            else:
                failed += 1
                failures.append(f"lit {code}: {t.get('name')}")

    if args.pytest:
        if os.path.exists(args.pytest):
            try:
                root = ET.parse(args.pytest).getroot()
            except ET.ParseError as exc:
                failures.append(f"pytest: unreadable report ({exc})")
                failed += 1
                root = None
            for case in root.iter("testcase") if root is not None else []:
                name = f"{case.get('classname')}::{case.get('name')}"
                if case.find("failure") is not None or case.find("error") is not None:
                    failed += 1
                    failures.append(f"pytest FAIL: {name}")
                elif case.find("skipped") is not None:
                    skipped += 1
                else:
                    passed += 1
        else:
            failures.append("pytest: no report")
            failed += 1

    if failures:
        print("\nFailed:")
        for line in failures:
            print(f"  {line}")
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
