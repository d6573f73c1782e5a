"""Shared fixtures: dyncall test binaries generated once per session from
hand-written assembly (dcgen.py), plus helpers to locate and corrupt table
fields."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import dcgen  # noqa: E402
from defects import Mutable  # noqa: E402,F401

HAVE_CLANG = shutil.which(dcgen.CLANG) is not None
needs_clang = pytest.mark.skipif(not HAVE_CLANG, reason=f"{dcgen.CLANG} not found")

VARIANTS = {
    "clang-pie": dict(style="clang"),
    "clang-nopie": dict(style="clang", link="nopie"),
    "clang-shared": dict(style="clang", link="shared"),
    "clang-retpoline": dict(style="clang", retpoline=True),
    "clang-stripped": dict(style="clang", strip=True),
    "gcc-pie": dict(style="gcc"),
    "gcc-nopie": dict(style="gcc", link="nopie"),
    "gcc-shared": dict(style="gcc", link="shared"),
    "gcc-retpoline": dict(style="gcc", retpoline=True),
    "gcc-stripped": dict(style="gcc", strip=True, debug=False),
    "gcc-pad2": dict(style="gcc", gcc_pad=2),
    "gcc-decoy": dict(style="gcc", decoy=True),
    "clang-decoy": dict(style="clang", decoy=True),
}
GOOD = [v for v in VARIANTS if v not in ("gcc-pad2", "gcc-decoy", "clang-decoy")]


@pytest.fixture(scope="session")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    if not HAVE_CLANG:
        pytest.skip(f"{dcgen.CLANG} not found")
    root = tmp_path_factory.mktemp("bin")
    cache: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in cache:
            cache[name] = dcgen.build(str(root / name), **VARIANTS[name])  # type: ignore[arg-type]
        return cache[name]

    return get


def run_program(path: str, orig: str | None = None) -> str:
    """Run the program built as ``orig`` (default ``path``) with ``path`` in
    its place (for a shared object: ``orig``.main loads ``path``)."""
    orig = orig or path
    env = dict(os.environ)
    exe = path
    if os.path.exists(orig + ".main"):
        d = path + ".run"
        os.makedirs(d, exist_ok=True)
        shutil.copy(path, os.path.join(d, os.path.basename(orig)))
        env["LD_LIBRARY_PATH"] = d
        exe = orig + ".main"
    r = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def relax_and_full_check(path: str) -> object:
    """relax ``path`` in-process and prove its output with the *full* check
    (no reuse of relax's analysis): no errors, and the analysis relax
    returned (updated incrementally) says exactly what the full check of the
    output says, entry by entry.  Returns the RelaxResult."""
    from dyncall_rewrite.check import check
    from dyncall_rewrite.elf import Image
    from dyncall_rewrite.relax import relax

    img = Image.load(path)
    res = relax(img)
    full = check(img.with_data(res.data), columns=False)  # the object path, no reuse
    assert not full.errors, [d.format(path) for d in full.errors]
    if not res.changed:
        return res
    assert res.verified in ("incremental", "full")
    an = res.analysis
    assert an is not None and not an.errors
    assert [d.code for d in an.diagnostics] == [d.code for d in full.diagnostics]
    for a, b in zip(an.sites, full.sites, strict=True):
        assert a.entry == b.entry and a.valid == b.valid and a.state == b.state
        assert a.target == b.target and a.key_flags == b.key_flags
        assert (a.tramp is None) == (b.tramp is None)
        if a.tramp is not None and b.tramp is not None:
            ta, tb = a.tramp, b.tramp
            assert (ta.addr, ta.size, ta.branch_target, ta.unpatched_target, ta.slow, ta.slow_target) == (
                tb.addr,
                tb.size,
                tb.branch_target,
                tb.unpatched_target,
                tb.slow,
                tb.slow_target,
            )
        assert a.callers == b.callers
    return res
