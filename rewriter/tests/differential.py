"""The columnar fast path (columns.py) against the object path.

The columns may only ever say "clean" when the object path says nothing at
all, and must then describe every entry exactly as the object path does;
relax over columns must write exactly what the object path writes.  Used by
test_columns.py on every test binary and by the mutation fuzzer on every
case (fuzzlib.run_case).
"""

from __future__ import annotations

from dyncall_rewrite.check import check
from dyncall_rewrite.elf import Image
from dyncall_rewrite.errors import RewriteError
from dyncall_rewrite.model import Analysis
from dyncall_rewrite.relax import relax


def site_facts(an: Analysis) -> list[tuple[object, ...]]:
    out = []
    for s in an.sites:
        t = s.tramp
        tf = (
            None
            if t is None
            else (t.addr, t.size, t.branch_target, t.unpatched_target, t.slow, t.slow_target)
        )
        key = None if s.key is None else (s.key.cell, s.key.label, s.key.flags)
        out.append((s.entry, s.valid, s.state, tf, key, s.key_flags, s.target, tuple(s.callers)))
    return out


def compare_engines(img: Image, stats: dict[str, int] | None = None) -> str | None:
    """None when both paths agree on ``img``, else what differs.
    ``stats["columns"]`` counts the images the columns proved clean."""
    fast = check(img)
    slow = check(img, columns=False)
    if fast.columns is None:
        return None  # the columns deferred: the object path's answer is the answer
    if stats is not None:
        stats["columns"] = stats.get("columns", 0) + 1
    if slow.diagnostics:
        return "columns said clean, object path: " + ", ".join(d.code for d in slow.diagnostics[:5])
    if fast.diagnostics:
        return "columns produced diagnostics"
    ff, fs = site_facts(fast), site_facts(slow)
    if ff != fs:
        bad = next(i for i, (a, b) in enumerate(zip(ff, fs, strict=True)) if a != b)
        return f"entry #{bad} differs: {ff[bad]} != {fs[bad]}"
    try:
        r_fast = relax(img, analysis=fast)
    except RewriteError as e:
        return f"relax over columns failed: {e}"
    r_slow = relax(img, analysis=check(img, columns=False))
    if bytes(r_fast.data) != bytes(r_slow.data):
        return "relax output differs"
    if [(p.addr, p.old, p.new, p.what) for p in r_fast.patches] != [
        (p.addr, p.old, p.new, p.what) for p in r_slow.patches
    ]:
        return "relax writes differ"
    if (r_fast.filled, r_fast.padding, r_fast.resolved) != (r_slow.filled, r_slow.padding, r_slow.resolved):
        return "relax counts differ"
    if r_fast.changed:
        if r_fast.analysis is None or r_slow.analysis is None:
            return "relax lost its analysis"
        if site_facts(r_fast.analysis) != site_facts(check(img.with_data(r_fast.data), columns=False)):
            return "relax's analysis of its output differs from the object path's check of it"
    return None
