"""Lint the FileCheck prefixes of the test/exec suite.

A directive whose prefix no RUN line checks (a typo, or a prefix whose RUN
line was dropped) is silently never checked; a prefix that a RUN line
checks but no directive uses checks nothing.  Both are errors here.
"""
import pathlib
import re
import sys

SUFFIXES = ("", "-NEXT", "-SAME", "-NOT", "-DAG", "-LABEL", "-EMPTY", "-COUNT")
DIRECTIVE = re.compile(r"(?:^|[\s/#;])([A-Z][A-Z0-9_]*)((?:-[A-Z]+)?(?:-\d+)?):")
PREFIX_OPT = re.compile(r"--check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")


def lint(path: pathlib.Path, checkfiles: dict) -> list:
    text = path.read_text()
    runs = [line for line in text.splitlines() if re.search(r"\bRUN:", line)]
    used = set()
    for run in runs:
        for part in run.split("|"):
            if "FileCheck" not in part:
                continue
            m = PREFIX_OPT.search(part)
            prefixes = m.group(1).split(",") if m else ["CHECK"]
            target = re.search(r"FileCheck.*?\s(\S+\.check)\b", part)
            if target:
                checkfiles.setdefault(target.group(1).split("/")[-1], set()).update(prefixes)
            elif "%s" in part:
                used.update(prefixes)
    errors = []
    seen = set()
    for n, line in enumerate(text.splitlines(), 1):
        if re.search(r"\b(RUN|REQUIRES|XFAIL|UNSUPPORTED):", line):
            continue
        for m in DIRECTIVE.finditer(line):
            prefix, suffix = m.group(1), m.group(2)
            base = re.sub(r"-\d+$", "", suffix)
            if base not in SUFFIXES:
                continue
            if not (line.lstrip().startswith(("//", "#", ";")) or path.suffix in (".test", ".check")):
                continue
            seen.add(prefix)
            if prefix not in used:
                errors.append(f"{path.name}:{n}: directive {prefix}{suffix}: is never checked")
    for prefix in sorted(used - seen):
        errors.append(f"{path.name}: prefix {prefix} checked by a RUN line but no directive uses it")
    return errors


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    errors = []
    checkfiles: dict = {}
    for path in sorted(root.iterdir()):
        if path.suffix in (".c", ".cpp", ".test"):
            errors += lint(path, checkfiles)
    for name, prefixes in checkfiles.items():
        text = (root / "Inputs" / name).read_text()
        for prefix in prefixes:
            if not re.search(rf"^{prefix}(-[A-Z]+)?:", text, re.M):
                errors.append(f"Inputs/{name}: prefix {prefix} unused")
    for e in errors:
        print(e)
    print(f"{len(errors)} prefix errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
