#!/usr/bin/env python3
"""Print the one-line apt entry of this machine's main Debian archive.

The first deb822 stanza (.sources) with Types: deb whose suites are not a
-security suite (the security archive's sources are not served), or the
first such one-line `deb` entry (.list) as a fallback; printed as
`TYPE [signed-by=...] URI SUITE COMPONENTS`, one line per suite of the
stanza (one line with --suite), for a private apt
configuration (scripts/realworld/fetch.sh: deb-src of the same suite;
scripts/fetch-libgcc-next.sh: deb of the next release). Exit 1 when there
is none.

    apt_archive_entry.py [--type deb-src] [--suite trixie] [FILE...]

Without FILE: the system's, /etc/apt/sources.list.d/*.sources, then
/etc/apt/sources.list, then /etc/apt/sources.list.d/*.list.
"""

import argparse
import glob
import os
import sys


def stanzas(text):
    cur = {}
    key = None
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                yield cur
            cur, key = {}, None
        elif line[0] in " \t" and key:
            cur[key] += " " + line.strip()
        elif ":" in line:
            key, val = line.split(":", 1)
            key = key.strip().lower()
            cur[key] = val.strip()
    if cur:
        yield cur


def from_sources(text):
    """(opts, uri, suites, components) of a .sources file's main entry."""
    for s in stanzas(text):
        if "deb" not in s.get("types", "").split() or s.get("enabled", "yes") == "no":
            continue
        suites = [x for x in s.get("suites", "").split() if not x.endswith("-security")]
        if not suites or "uris" not in s:
            continue
        opts = f"[signed-by={s['signed-by']}]" if "signed-by" in s else ""
        return opts, s["uris"].split()[0], suites, s.get("components", "main")
    return None


def from_list(text):
    """(opts, uri, [suite], components) of a .list file's main entry."""
    for line in text.splitlines():
        w = line.split("#", 1)[0].split()
        if len(w) < 3 or w[0] != "deb":
            continue
        rest = w[1:]
        opts = ""
        if rest[0].startswith("["):
            i = next(i for i, t in enumerate(rest) if t.endswith("]"))
            opts = " ".join(rest[: i + 1])
            rest = rest[i + 1 :]
        if len(rest) >= 2 and not rest[1].endswith("-security"):
            return opts, rest[0], [rest[1]], " ".join(rest[2:]) or "main"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--type", default="deb", choices=["deb", "deb-src"])
    ap.add_argument("--suite", help="this suite instead of the entry's")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or [
        *sorted(glob.glob("/etc/apt/sources.list.d/*.sources")),
        "/etc/apt/sources.list",
        *sorted(glob.glob("/etc/apt/sources.list.d/*.list")),
    ]
    for path in files:
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            text = f.read()
        entry = from_sources(text) if path.endswith(".sources") else from_list(text)
        if entry:
            opts, uri, suites, comps = entry
            for suite in [args.suite] if args.suite else suites:
                print(" ".join(w for w in (args.type, opts, uri, suite, comps) if w))
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
