"""The columnar fast path on aarch64 and ppc64le (arch/aarch64/columns.py,
arch/ppc64le/columns.py) agrees with the object path (differential.py) on
the programs test_arch_cross.py cross-builds with the real plugins, on
their relaxed outputs, on clean and defective mutations of them, and is
the path the clean ones actually take."""

from __future__ import annotations

import shutil
import struct
import subprocess

import pytest
import test_arch_cross
from defects import Mutable
from differential import compare_engines
from test_arch_cross import CASES, DEFECTS, _by_key, _site, _w

from dyncall_rewrite import abi
from dyncall_rewrite.arch.aarch64 import backend as aarch64
from dyncall_rewrite.arch.ppc64le import backend as ppc64le
from dyncall_rewrite.check import check
from dyncall_rewrite.elf import Image
from dyncall_rewrite.relax import relax

xbin = test_arch_cross.xbin  # the session fixture building the programs


def _agree(path: str, columns: bool | None) -> Image:
    """compare_engines passes on ``path``; ``columns``: whether the columns
    must be taken (True), must defer (False), or either (None)."""
    img = Image.load(path)
    assert compare_engines(img) is None
    if columns is not None:
        assert (check(img).columns is not None) == columns, [
            d.format(path) for d in check(img, columns=False).diagnostics
        ]
    return img


@pytest.mark.parametrize(("arch", "variant"), CASES)
def test_clean_binaries_take_the_columns(xbin, tmp_path, arch: str, variant: str) -> None:
    src = xbin(arch, variant)
    img = _agree(src, True)
    # relax over columns, and its output (RESOLVED entries) again
    res = relax(img)
    assert res._writes is not None  # the writes were made over columns
    if res.changed:  # and proven by the columnar check of the output
        assert res.verified == "incremental"
        assert res.analysis is not None and res.analysis.columns is not None
    out = str(tmp_path / "relaxed")
    with open(out, "wb") as f:
        f.write(res.data)
    _agree(out, True)
    assert not relax(Image.load(out)).changed


@pytest.mark.parametrize("arch", ["aarch64", "ppc64le"])
def test_stripped(xbin, tmp_path, arch: str) -> None:
    """No symbols: Clang's unlabelled sites are still proven by the columns
    (instruction boundaries are code words); GCC's labelled ones defer."""
    strip = shutil.which("llvm-strip-19") or shutil.which("llvm-strip")
    if strip is None:
        pytest.skip("llvm-strip not found")
    for variant, columns in (("clang-pie", True), ("gcc-pie", False)):
        out = str(tmp_path / variant)
        subprocess.run([strip, "-s", xbin(arch, variant), "-o", out], check=True, timeout=60)
        _agree(out, columns)


# -- mutations ------------------------------------------------------------------


def _unlabel(m: Mutable, arch: str) -> None:
    """GCC entries made Clang-style (site = func = 0): found again by
    discovery (ppc64le: through the TOC-save stubs)."""
    for info in check(m.img).sites:
        m.set_site(info.entry.index, abi.SITE_OFF_SITE, "i", 0)
        m.set_site(info.entry.index, abi.SITE_OFF_FUNC, "i", 0)


def _resolve_by_hand(m: Mutable, arch: str) -> None:
    """cop's entries RESOLVED with the trampoline branch written as relax would."""
    an = check(m.img)
    dbl = m.img.symbol_address("dbl")
    for info in _by_key(an, "cop"):
        t = info.entry.tramp
        if arch == "aarch64":
            _w(m, t, aarch64.INSN_B | ((dbl - t) >> 2) & aarch64.IMM26)
        else:
            _w(m, t, ppc64le.INSN_B | (dbl + 8 - t) & ppc64le.LI24)
        m.set_site(info.entry.index, abi.SITE_OFF_FLAGS, "H", info.entry.flags | abi.DYNCALL_SITE_RESOLVED)


def _bcond_to_tramp(m: Mutable, arch: str) -> None:
    """aarch64: a b.eq to a trampoline in front of a site (DC027)."""
    _, info, s = _site(m)
    _w(m, s - 4, aarch64.INSN_BCOND | (((info.entry.tramp - (s - 4)) >> 2) & 0x7FFFF) << 5)


def _cbz_to_tramp(m: Mutable, arch: str) -> None:
    """aarch64: a tbz to a trampoline in front of a site (DC027)."""
    _, info, s = _site(m)
    _w(m, s - 4, aarch64.INSN_TBZ | (((info.entry.tramp - (s - 4)) >> 2) & 0x3FFF) << 5)


def _bc_to_tramp(m: Mutable, arch: str) -> None:
    """ppc64le: a bc to a trampoline in front of a site (DC027)."""
    _, info, s = _site(m)
    _w(m, s - 4, 0x41820000 | ((info.entry.tramp - (s - 4)) & 0xFFFC))


def _site_is_suffix(m: Mutable, arch: str) -> None:
    """ppc64le: the word before a site's bl is a prefix (pnop); a site that
    starts a 64-byte block is not taken (a prefix cannot end a block)."""
    an = check(m.img)
    s = next(b.addr for i in an.sites for b in i.callers if b.addr % 64)
    _w(m, s - 4, 0x07000000)


def _func_unaligned(m: Mutable, arch: str) -> None:
    """A labelled entry's func 2 bytes into its function."""
    _, info, _ = _site(m)
    m.set_rel(info.entry.addr + abi.SITE_OFF_FUNC, info.entry.func + 2)


def _func_not_symbol(m: Mutable, arch: str) -> None:
    """A labelled entry's func 4 bytes into its function: the object path
    accepts it (code words need no decode); the columns defer."""
    _, info, _ = _site(m)
    m.set_rel(info.entry.addr + abi.SITE_OFF_FUNC, info.entry.func + 4)


def _retpoline_flag(m: Mutable, arch: str) -> None:
    _, info, _ = _site(m)
    m.set_site(info.entry.index, abi.SITE_OFF_FLAGS, "H", info.entry.flags | abi.DYNCALL_SITE_RETPOLINE)


def _share_tramp(m: Mutable, arch: str) -> None:
    an = check(m.img)
    a, b = an.sites[0].entry, an.sites[1].entry
    m.set_rel(b.addr + abi.SITE_OFF_TRAMP, a.tramp)


def _tail_kind(m: Mutable, arch: str) -> None:
    """A call entry declared tail: aarch64 DC021/DC027 (bl, not b);
    ppc64le: clean (always bl)."""
    _, info, _ = _site(m, "cop")
    m.write(info.entry.addr + abi.SITE_OFF_FLAGS - 1, bytes([abi.DYNCALL_KIND_TAIL]))


def _dead_tramp(m: Mutable, arch: str) -> None:
    """The site's bl turned into a nop: an unlabelled entry without caller (DC026)."""
    _, _, s = _site(m)
    _w(m, s, aarch64.INSN_NOP if arch == "aarch64" else ppc64le.INSN_NOP)


def _ld_after_stub_b(m: Mutable, arch: str) -> None:
    """ppc64le: the TOC-save stub's std replaced by a nop: its b is then a
    direct branch to the trampoline (DC027), the bl no longer a caller."""
    _, info, s = _site(m)
    w = struct.unpack("<I", m.read(s, 4))[0]
    stub = s + ppc64le.sext(w & ppc64le.LI24, 26)
    _w(m, stub, ppc64le.INSN_NOP)


# (name, mutation, arches, variant, columns taken afterwards: True/False/None)
MUTATIONS = [
    ("unlabel", _unlabel, ("aarch64", "ppc64le"), "gcc-pie", True),
    ("unlabel-nopie", _unlabel, ("aarch64", "ppc64le"), "gcc-nopie", True),
    ("resolve-by-hand", _resolve_by_hand, ("aarch64", "ppc64le"), "clang-pie", True),
    ("resolve-by-hand-gcc", _resolve_by_hand, ("aarch64",), "gcc-pie", True),
    ("bcond-to-tramp", _bcond_to_tramp, ("aarch64",), "clang-pie", False),
    ("tbz-to-tramp", _cbz_to_tramp, ("aarch64",), "clang-pie", False),
    ("bc-to-tramp", _bc_to_tramp, ("ppc64le",), "clang-pie", False),
    ("site-is-suffix", _site_is_suffix, ("ppc64le",), "clang-pie", False),
    ("site-is-suffix-gcc", _site_is_suffix, ("ppc64le",), "gcc-pie", False),
    ("func-unaligned", _func_unaligned, ("aarch64", "ppc64le"), "gcc-pie", False),
    ("func-not-symbol", _func_not_symbol, ("aarch64", "ppc64le"), "gcc-pie", False),
    ("retpoline-flag", _retpoline_flag, ("aarch64", "ppc64le"), "clang-pie", False),
    ("share-tramp", _share_tramp, ("aarch64", "ppc64le"), "gcc-pie", False),
    ("tail-kind", _tail_kind, ("aarch64",), "gcc-pie", False),
    ("tail-kind", _tail_kind, ("ppc64le",), "gcc-pie", True),
    ("dead-tramp", _dead_tramp, ("aarch64", "ppc64le"), "clang-pie", False),
    ("stub-without-std", _ld_after_stub_b, ("ppc64le",), "clang-pie", False),
]


@pytest.mark.parametrize(
    ("inject", "arch", "variant", "columns"),
    [(f, a, v, c) for _, f, arches, v, c in MUTATIONS for a in arches],
    ids=[f"{a}-{n}" for n, _, arches, _, _ in MUTATIONS for a in arches],
)
def test_mutations_agree(xbin, tmp_path, inject, arch: str, variant: str, columns: bool) -> None:
    m = Mutable.copy(xbin(arch, variant), str(tmp_path / "m"))
    inject(m, arch)
    img = _agree(m.path, columns)
    if columns:  # relax's output as well
        out = str(tmp_path / "relaxed")
        with open(out, "wb") as f:
            f.write(relax(img).data)
        _agree(out, True)


@pytest.mark.parametrize(
    ("inject", "arch", "variant"),
    [(f, a, v) for _, f, _, arches, v in DEFECTS for a in arches],
    ids=[f"{a}-{n}" for n, _, _, arches, _ in DEFECTS for a in arches],
)
def test_defects_defer(xbin, tmp_path, inject, arch: str, variant: str) -> None:
    """Every arch defect of test_arch_cross.py: the columns defer, the
    paths agree."""
    m = Mutable.copy(xbin(arch, variant), str(tmp_path / "bad"))
    inject(m, arch)
    _agree(m.path, False)
