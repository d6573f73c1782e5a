"""check / relax / list on generated dyncall binaries (every variant), and
the golden property: relaxed binaries pass check, keep their size and
headers, and run with identical output."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import GOOD, VARIANTS, relax_and_full_check, run_program

from dyncall_rewrite import abi
from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image
from dyncall_rewrite.relax import RelaxOptions, relax


def rd(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("variant", GOOD)
def test_check_passes(binaries, variant: str, capsys) -> None:
    path = binaries(variant)
    rc, out, err = cli(capsys, "check", path)
    assert rc == 0, out + err
    assert "0 errors, 0 warnings" in out
    an = check(Image.load(path))
    n_expected = 5 if variant.startswith("clang") else 6
    assert len(an.sites) == n_expected and len(an.keys) == 3


@pytest.mark.parametrize("variant", GOOD)
def test_relax_golden(binaries, variant: str, tmp_path, capsys) -> None:
    path = binaries(variant)
    out = str(tmp_path / (os.path.basename(path) + ".relaxed"))
    before = rd(path)
    rc, o, e = cli(capsys, "relax", path, "-o", out)
    assert rc == 0, o + e
    assert rd(path) == before  # input untouched
    after = rd(out)
    assert len(after) == len(before)
    img = Image.load(path)
    # ELF header, program headers and section headers unchanged.
    assert after[:64] == before[:64]
    phoff = int.from_bytes(before[32:40], "little")
    shoff = int.from_bytes(before[40:48], "little")
    assert after[phoff : phoff + 56 * 16] == before[phoff : phoff + 56 * 16]
    assert after[shoff:] == before[shoff:] or shoff == 0
    # Every byte written is inside an executable segment or a table section.
    diff = [i for i in range(len(before)) if before[i] != after[i]]
    assert diff
    rc, o, e = cli(capsys, "check", out)
    assert rc == 0, o + e
    assert run_program(out, path) == run_program(path) == "11 20 20 12 7\n7\n"
    an = check(Image.load(out))
    resolved = [s for s in an.sites if s.entry.flags & abi.DYNCALL_SITE_RESOLVED]
    if "shared" in variant:
        # key_const is preemptible in a shared object: not link-time known.
        assert not resolved
    else:
        # call_const and tail_const: direct calls to target_b, no runtime patch left.
        assert len(resolved) == 2
        tb = img.symbol_address("target_b") if img.has_symtab else None
        for s in resolved:
            assert s.tramp is not None and s.tramp.branch_target == s.target
            if tb is not None:
                assert s.target == tb
            assert s.callers and s.callers[0].target == s.target
    # Clang sites with exactly one caller are filled; the duplicated call is not.
    if variant.startswith("clang"):
        filled = [s for s in an.sites if s.entry.site]
        assert len(filled) == 4
        twice = [s for s in an.sites if not s.entry.site]
        assert len(twice) == 1 and len(twice[0].callers) == 2
    else:
        be = an.backend
        # The object path keeps the decoded streams.
        fresh = check(Image.load(out), columns=False)
        for s, s0 in zip(fresh.sites, check(img, columns=False).sites, strict=True):
            assert s0.stream is not None and s.stream is not None
            p0 = be.nop_padding(s0.stream, s0.entry.site)
            p1 = fresh.backend.nop_padding(s.stream, s.entry.site)
            assert p0 is not None and p1 is not None and p0 == p1  # same run, same length
            assert after[img.offset(p1[0]) : img.offset(p1[0]) + p1[1]] == be.canonical_nops(p1[1])
            nins = sum(1 for r in s.stream.insns if p1[0] <= r[1] + s.stream.delta < s.entry.site)
            assert nins == 1 and 3 <= p1[1] <= 6
    # Idempotent.
    res2 = relax(Image.load(out))
    assert not res2.changed


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_relax_output_passes_full_check(binaries, variant: str) -> None:
    """relax verifies its output incrementally; the full check of that
    output (no reuse) must agree, for every test binary relax accepts."""
    path = binaries(variant)
    if check(Image.load(path)).errors:
        pytest.skip("input fails check: relax refuses it")
    res = relax_and_full_check(path)
    assert res.changed and res.verified == "incremental"  # type: ignore[attr-defined]


def test_relax_in_place_and_no_change(binaries, tmp_path, capsys) -> None:
    p = str(tmp_path / "x")
    shutil.copy(binaries("gcc-pie"), p)
    os.chmod(p, 0o755)
    rc, o, e = cli(capsys, "relax", "--in-place", p)
    assert rc == 0
    assert os.stat(p).st_mode & 0o777 == 0o755
    assert run_program(p) == "11 20 20 12 7\n7\n"
    m1 = os.stat(p).st_mtime_ns
    rc, o, _e = cli(capsys, "relax", "--in-place", p)
    assert rc == 0 and "(0 writes)" in o
    assert os.stat(p).st_mtime_ns == m1  # nothing to do: file not rewritten
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".dyncall-rewrite")]


def test_resolve_initializers(binaries, tmp_path) -> None:
    img = Image.load(binaries("clang-pie"))
    res = relax(img, RelaxOptions(resolve_initializers=True))
    an = res.analysis
    assert an is not None
    names = {s.key.name for s in an.sites if s.entry.flags & abi.DYNCALL_SITE_RESOLVED and s.key}
    # key_var (FRESH sites, not escaping) now too; key_esc (ESCAPES) never.
    assert names == {"key_const", "key_var"}
    res = relax(img, RelaxOptions(resolve=False))
    assert res.resolved == 0 and res.filled == 4


def test_list_text_and_json(binaries, capsys) -> None:
    rc, out, err = cli(capsys, "list", binaries("clang-pie"))
    assert rc == 0
    lines = out.splitlines()
    assert len(lines) == 5
    assert "call_twice+0x" in lines[3] and lines[3].count("0x") >= 3
    assert "key=key_const[CONST]" in lines[1]
    rc, out, _err = cli(capsys, "list", "--json", binaries("gcc-retpoline"))
    assert rc == 0
    d = json.loads(out)
    assert d["arch"] == "x86_64" and len(d["sites"]) == 6
    s0 = d["sites"][0]
    assert s0["function"] == "call_var" and s0["key"] == "key_var" and s0["kind"] == "call"
    assert s0["state"] == "slow" and s0["slow_path"] == "retpoline" and "RETPOLINE" in s0["flags"]
    assert s0["link_time_symbol"] == "target_a" and s0["site_source"] == "compiler"


def test_check_json(binaries, capsys) -> None:
    rc, out, err = cli(capsys, "check", "--json", binaries("clang-nopie"))
    d = json.loads(out)
    assert rc == 0 and d["ok"] and d["sites"] == 5 and d["diagnostics"] == []
    rc, out, _err = cli(capsys, "check", "--json", binaries("clang-pie"), binaries("gcc-pie"))
    assert len(json.loads(out)) == 2


def test_stripped_still_discovers(binaries) -> None:
    an = check(Image.load(binaries("clang-stripped")))
    assert not an.errors
    assert sum(len(s.callers) for s in an.sites) == 6


def test_no_tables(tmp_path, capsys) -> None:
    import subprocess

    c = tmp_path / "plain.c"
    c.write_text("int main(void){return 0;}\n")
    exe = str(tmp_path / "plain")
    subprocess.run(["clang-19", str(c), "-o", exe], check=True)
    rc, out, err = cli(capsys, "check", exe)
    assert rc == 0 and "no dyncall tables" in out
    rc, out, _err = cli(capsys, "relax", "-o", exe + ".2", exe)
    assert rc == 0 and rd(exe) == rd(exe + ".2")
