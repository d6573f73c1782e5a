"""Bad input: one ``dyncall-rewrite: error:`` line, a stable code, a
non-zero exit, never a traceback, never a modified input; plus a few hundred
mutation-fuzz cases (bench/rewriter_fuzz.py runs >= 10,000)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import fuzzlib
import pytest

from dyncall_rewrite.cli import main

REWRITER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rd(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def expect_error(capsys, code: str, *argv: str) -> str:
    rc, out, err = run(capsys, *argv)
    assert rc == 1, out + err
    assert err.startswith("dyncall-rewrite: error: ") and err.count("\n") == 1, err
    assert code in err, err
    return err


def patched(src: str, dst: str, off: int, data: bytes) -> str:
    shutil.copy(src, dst)
    with open(dst, "r+b") as f:
        f.seek(off)
        f.write(data)
    return dst


def test_missing_and_not_elf(tmp_path, capsys) -> None:
    expect_error(capsys, "DC900", "check", str(tmp_path / "nope"))
    t = tmp_path / "text"
    t.write_text("hello\n")
    expect_error(capsys, "DC901", "check", str(t))
    e = tmp_path / "empty"
    e.write_bytes(b"")
    expect_error(capsys, "DC901", "list", str(e))
    expect_error(capsys, "DC900", "check", str(tmp_path))  # a directory


def test_truncated(binaries, tmp_path, capsys) -> None:
    data = _rd(binaries("gcc-pie"))
    for n in (20, 63, 64, 200, len(data) // 3, len(data) // 2, len(data) - 100):
        p = tmp_path / f"t{n}"
        p.write_bytes(data[:n])
        err = expect_error(capsys, "DC90", "check", str(p))
        assert any(c in err for c in ("DC901", "DC902")), err


@pytest.mark.parametrize(
    ("off", "data", "code", "text"),
    [
        (4, b"\x01", "DC903", "32-bit"),
        (5, b"\x02", "DC903", "big-endian"),
        (18, (243).to_bytes(2, "little"), "DC904", "unsupported machine"),
    ],
)
def test_foreign(binaries, tmp_path, capsys, off, data, code, text) -> None:
    p = patched(binaries("clang-pie"), str(tmp_path / "f"), off, data)
    before = _rd(p)
    err = expect_error(capsys, code, "check", p)
    assert text in err
    expect_error(capsys, code, "relax", "--in-place", p)
    assert _rd(p) == before


@pytest.mark.parametrize("machine", [183, 21])
def test_relabelled_machine(binaries, tmp_path, capsys, machine) -> None:
    """x86-64 code read as aarch64/ppc64le: every trampoline is wrong
    (check fails, one diagnostic per entry), relax refuses (DC906)."""
    p = patched(binaries("clang-pie"), str(tmp_path / "f"), 18, machine.to_bytes(2, "little"))
    before = _rd(p)
    rc, out, _ = run(capsys, "check", p)
    assert rc == 1 and "error DC01" in out, out
    expect_error(capsys, "DC906", "relax", "--in-place", p)
    assert _rd(p) == before


def test_output_errors(binaries, tmp_path, capsys) -> None:
    src = binaries("clang-pie")
    before = _rd(src)
    expect_error(capsys, "DC907", "relax", src, "-o", str(tmp_path / "no" / "such" / "dir"))
    assert _rd(src) == before
    ro = tmp_path / "ro"
    ro.mkdir()
    p = shutil.copy(src, ro / "x")
    os.chmod(ro, 0o555)
    try:
        if os.geteuid() != 0:  # root ignores directory permissions
            expect_error(capsys, "DC907", "relax", "--in-place", str(p))
    finally:
        os.chmod(ro, 0o755)


def test_usage_errors() -> None:
    env = dict(os.environ, PYTHONPATH=REWRITER)
    for argv in ([], ["relax", "x"], ["frob"], ["check"], ["relax", "x", "-o", "y", "--in-place"]):
        r = subprocess.run(
            [sys.executable, "-m", "dyncall_rewrite", *argv], capture_output=True, text=True, env=env
        )
        assert r.returncode == 2, (argv, r.stderr)
        assert "Traceback" not in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "dyncall_rewrite", "--version"], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0 and r.stdout.startswith("dyncall-rewrite ")


def test_no_traceback_from_subprocess(tmp_path) -> None:
    p = tmp_path / "junk"
    p.write_bytes(b"\x7fELF" + b"\x02\x01\x01" + b"\xff" * 200)
    r = subprocess.run(
        [sys.executable, "-m", "dyncall_rewrite", "check", str(p)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=REWRITER),
        timeout=60,
    )
    assert (
        r.returncode == 1 and r.stderr.startswith("dyncall-rewrite: error: ") and "Traceback" not in r.stderr
    )


FUZZ_CASES = int(os.environ.get("DYNCALL_FUZZ_CASES", "300"))


def test_fuzz(binaries, tmp_path) -> None:
    seeds = [binaries(v) for v in ("gcc-pie", "clang-pie", "gcc-retpoline", "clang-shared", "clang-nopie")]
    res = fuzzlib.fuzz(seeds, FUZZ_CASES, str(tmp_path), seed=20261121)
    assert not res.failures, "\n".join(res.failures[:20])
    assert res.cases == FUZZ_CASES
    assert res.rc.get(1, 0) > FUZZ_CASES // 10  # the mutations do hit
    # ... and some cases stay clean, so the engine differential compares.
    assert res.engines.get("columns", 0) > FUZZ_CASES // 20
