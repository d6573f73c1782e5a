#!/usr/bin/env python3
"""Lint the FileCheck prefixes of the whole lit suite (test/).

FileCheck silently ignores a directive whose prefix no RUN line checks (a
typo, or a prefix whose RUN line was dropped), and a prefix that a RUN line
checks but no directive uses checks nothing.  Both are errors here, in every
file some FileCheck reads: the test itself (%s) or another file (%S/x.c,
Inputs/*.check).

  scripts/lint_prefixes.py TEST_DIR     prints one line per error, then
                                        `N prefix errors`; exit 1 if N > 0

A directive candidate is an all-caps word followed by `:` at the start of a
comment (or of a line in .test/.check files).  It is an error when its prefix
is not checked and it looks like a FileCheck directive: it carries a
directive suffix (-NEXT, -NOT, ...), or it spells a checked prefix or one of
the house prefixes (CHECK, X86_64, AARCH64, PPC64LE) with an extra or missing
part.  Prose such as `# DC001: version` is left alone.  An arch is spelled
one way in prefixes: a checked prefix with a part such as X86, A64, ARM64 or
PPC (PPCJSON, A64-BTI, ...) is an error too.
"""

from __future__ import annotations

import pathlib
import re
import sys

SUFFIX = r"(?:-NEXT|-SAME|-NOT|-DAG|-LABEL|-EMPTY|-COUNT-\d+)"  # FileCheck directive kinds
HOUSE = ("CHECK", "X86_64", "AARCH64", "PPC64LE")
LIT_KEYWORDS = {"RUN", "REQUIRES", "UNSUPPORTED", "XFAIL", "ALLOW_RETRIES", "DEFINE", "REDEFINE", "END"}
TEXT_SUFFIXES = {".c", ".cpp", ".h", ".inc", ".ll", ".s", ".S", ".test", ".check"}
PREFIX_OPT = re.compile(r"--?check-prefix(?:es)?(?:=|\s+)([A-Za-z0-9_,-]+)")
CANDIDATE = re.compile(rf"^\s*(?:(?://|#|;|/?\*)\s*)?([A-Z][A-Z0-9_-]*?)({SUFFIX})?:(?!:)")


def run_commands(text: str) -> list[str]:
    """The RUN commands of a test, continuation lines joined."""
    cmds: list[str] = []
    cur = ""
    for line in text.splitlines():
        m = re.search(r"\bRUN:(.*)$", line)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith("\\"):
            cur += part[:-1] + " "
            continue
        cmds.append(cur + part)
        cur = ""
    if cur:
        cmds.append(cur)
    return cmds


def resolve(token: str, test: pathlib.Path, root: pathlib.Path) -> pathlib.Path | None:
    """The file a FileCheck argument names (%s, %S/x, %exec_inputs/x ...)."""
    if token == "%s":
        return test
    if token.startswith("%S/"):
        return test.parent / token[3:]
    name = token.rsplit("/", 1)[-1]
    for d in (test.parent, test.parent / "Inputs", root / test.parent.name / "Inputs"):
        if (d / name).is_file():
            return d / name
    return None


def filecheck_calls(cmd: str, test: pathlib.Path, root: pathlib.Path):
    """(checked file, prefixes) for every FileCheck of one RUN command."""
    for m in re.finditer(r"\bFileCheck\b", cmd):
        args = re.split(r"\||;|&&|%}", cmd[m.end():])[0]
        prefixes: list[str] = []
        for p in PREFIX_OPT.finditer(args):
            prefixes += [x for x in p.group(1).split(",") if x]
        rest = PREFIX_OPT.sub(" ", args)
        rest = re.sub(r"<\s*\S+", " ", rest)
        target = None
        for tok in rest.split():
            if tok.startswith("-") or tok.startswith("'") or tok.startswith('"'):
                continue
            target = tok
            break
        if target is None:
            continue
        path = resolve(target, test, root)
        if path is not None:
            yield path.resolve(), prefixes or ["CHECK"]


ARCH_STEMS = ("X86", "X64", "AMD64", "A64", "ARM", "AARCH", "PPC", "POWER")


def misspelt_arch(prefix: str) -> bool:
    """A prefix naming an arch other than as X86_64, AARCH64 or PPC64LE."""
    return any(part not in HOUSE and part.startswith(ARCH_STEMS) for part in prefix.split("-"))


def looks_like_directive(word: str, suffix: str | None, checked: set[str]) -> bool:
    if suffix or word in HOUSE:
        return True
    for p in set(HOUSE) | checked:
        if word != p and (word.startswith(p + "-") or word.startswith(p + "_") or p.startswith(word + "-")):
            return True
    return "CHECK" in word


def lint_file(path: pathlib.Path, prefixes: set[str], root: pathlib.Path) -> list[str]:
    rel = path.relative_to(root)
    text = path.read_text(errors="replace")
    errors = []
    seen = set()
    for prefix in prefixes:
        pat = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(prefix)}{SUFFIX}?:")
        if pat.search(text):
            seen.add(prefix)
    for n, line in enumerate(text.splitlines(), 1):
        m = CANDIDATE.match(line)
        if not m:
            continue
        word, suffix = m.group(1), m.group(2)
        if word in LIT_KEYWORDS or word in prefixes:
            continue
        if path.suffix not in (".test", ".check") and not re.match(r"\s*(//|#|;|/?\*)", line):
            continue
        if looks_like_directive(word, suffix, prefixes):
            errors.append(f"{rel}:{n}: directive {word}{suffix or ''}: is never checked")
    for prefix in sorted(prefixes - seen):
        errors.append(f"{rel}: prefix {prefix} checked by a RUN line but no directive uses it")
    return errors


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)
    checked: dict[pathlib.Path, set[str]] = {}
    for path in files:
        for cmd in run_commands(path.read_text(errors="replace")):
            for target, prefixes in filecheck_calls(cmd, path, root):
                checked.setdefault(target, set()).update(prefixes)
    errors = []
    for path in files:
        errors += lint_file(path, checked.get(path, set()), root)
        for prefix in sorted(p for p in checked.get(path, set()) if misspelt_arch(p)):
            rel = path.relative_to(root)
            errors.append(f"{rel}: prefix {prefix}: spell the arch X86_64, AARCH64 or PPC64LE")
    for e in errors:
        print(e)
    print(f"{len(errors)} prefix errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
