"""aarch64 and ppc64le: check, relax and list on programs cross-built with
the real plugins (Clang ``--target=`` + lld, the Debian cross GCCs + GNU ld;
PIE, non-PIE, BTI), the relaxed programs run under qemu-user against the
originals, and every arch-specific defect class injected and reported with
its code.

Needs a build tree with the plugins and the cross runtimes
(``$DYNCALL_BUILD``, else build/, build-rwx/, build-arch/ of the checkout);
what is missing is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Callable

import pytest
from conftest import relax_and_full_check
from defects import Mutable

from dyncall_rewrite import abi
from dyncall_rewrite.arch.aarch64 import backend as aarch64
from dyncall_rewrite.arch.ppc64le import backend as ppc64le
from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image
from dyncall_rewrite.relax import relax

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLANG = "clang-19"
TRIPLES = {"aarch64": "aarch64-linux-gnu", "ppc64le": "powerpc64le-linux-gnu"}
QEMU = {"aarch64": "qemu-aarch64", "ppc64le": "qemu-ppc64le"}

PROG = r"""
#include <stdio.h>
#include <dyncall.h>
extern int (*op)(int) DYNCALL;
extern int (*const cop)(int) DYNCALL;
extern int (*const fop)(int) DYNCALL;
extern int neg(int);
__attribute__((noinline)) int use(int x) { return op(x) * 100 + cop(x); }
__attribute__((noinline)) int tail(int x) { return cop(x); }
__attribute__((noinline)) int usefar(int x) { return fop(x) + 1; }
int main(void)
{
	printf("use(3) = %d\n", use(3));
	printf("tail(4) = %d\n", tail(4));
	op = neg;
	printf("use(5) = %d\n", use(5));
	printf("usefar(6) = %d\n", usefar(6));
	return 0;
}
"""
KEYS = r"""
#include <stdio.h>
#include <dyncall.h>
int inc(int x) { printf("inc(%d)\n", x); return x + 1; }
int dbl(int x) { printf("dbl(%d)\n", x); return x * 2; }
int neg(int x) { printf("neg(%d)\n", x); return -x; }
#ifdef FAR
__attribute__((section("dc_far"))) int far(int x) { printf("far(%d)\n", x); return x + 100; }
#else
#define far neg
#endif
int (*op)(int) DYNCALL = inc;
int (*const cop)(int) DYNCALL = dbl;
int (*const fop)(int) DYNCALL = far;
"""
# The far function's section, beyond any b/bl from .text (aarch64: 0x400000,
# +-128 MiB; ppc64le: 0x10000000, +-32 MiB).
FAR_ADDR = 0x9000000


def _build_dir() -> str | None:
    """$DYNCALL_BUILD, else the first build tree of the checkout with both
    cross runtimes, else the first with the plugins."""
    env = os.environ.get("DYNCALL_BUILD")
    if env:
        return env
    cands = [os.path.join(ROOT, d) for d in ("build", "build-rwx", "build-arch")]
    have = [d for d in cands if os.path.isfile(os.path.join(d, "lib", "dyncall", "dyncall_llvm.so"))]
    for d in have:
        if all(os.path.isfile(os.path.join(d, "lib", t, "libdyncall.so")) for t in TRIPLES.values()):
            return d
    return have[0] if have else None


BUILD = _build_dir()


def _have(arch: str, compiler: str) -> str | None:
    """Why (arch, compiler) cannot be built here, or None."""
    if BUILD is None:
        return "no dyncall build tree (set DYNCALL_BUILD)"
    t = TRIPLES[arch]
    if not os.path.isfile(os.path.join(BUILD, "lib", t, "libdyncall.so")):
        return f"no {t} runtime in {BUILD}"
    if compiler == "clang" and not shutil.which(CLANG):
        return f"{CLANG} not found"
    if compiler == "gcc":
        if not shutil.which(f"{t}-gcc-12"):
            return f"{t}-gcc-12 not found"
        if not os.path.isfile(os.path.join(BUILD, "lib", "dyncall", f"dyncall_gcc-{t}.so")):
            return f"no GCC plugin for {t}"
    return None


def build(out: str, arch: str, compiler: str, link: str = "pie", bti: bool = False, far: bool = False) -> str:
    assert BUILD is not None
    t = TRIPLES[arch]
    d = os.path.dirname(out)
    for name, text in (("prog.c", PROG), ("keys.c", KEYS)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    plugins = os.path.join(BUILD, "lib", "dyncall")
    lib = os.path.join(BUILD, "lib", t)
    if compiler == "clang":
        cmd = [CLANG, f"--target={t}", "-fuse-ld=lld"]
        cmd += [f"-fplugin={plugins}/dyncall_clang.so", f"-fpass-plugin={plugins}/dyncall_llvm.so"]
    else:
        cmd = [f"{t}-gcc-12", f"-fplugin={plugins}/dyncall_gcc-{t}.so"]
    cmd += ["-O2", f"-I{ROOT}/include", os.path.join(d, "prog.c"), os.path.join(d, "keys.c"), "-o", out]
    if link == "nopie":
        cmd += ["-fno-pie", "-no-pie"]
    if bti:
        cmd += ["-mbranch-protection=standard"]
    if far:
        # GNU ld: lld would fill the gap to the far section in the file
        cmd += ["-DFAR", "-fuse-ld=bfd", f"-Wl,--section-start=dc_far=0x{FAR_ADDR:x}"]
    cmd += [f"-L{lib}", "-ldyncall", f"-Wl,-rpath,{lib}"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return out


def run_qemu(arch: str, path: str) -> str:
    q = shutil.which(QEMU[arch])
    if q is None:
        pytest.skip(f"{QEMU[arch]} not found")
    r = subprocess.run(
        # mprotect as the runtime's only text writer: qemu-user sees writes to code only through
        # the code's own address (docs/runtime.md, "Never writable and executable")
        [q, "-E", "DYNCALL_TEXT_WRITE=mprotect", "-L", f"/usr/{TRIPLES[arch]}", path],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


VARIANTS = {
    "clang-pie": dict(compiler="clang"),
    "clang-nopie": dict(compiler="clang", link="nopie"),
    "gcc-pie": dict(compiler="gcc"),
    "gcc-nopie": dict(compiler="gcc", link="nopie"),
    "clang-far": dict(compiler="clang", far=True),
}
CASES = [(a, v) for a in TRIPLES for v in VARIANTS] + [("aarch64", "clang-bti"), ("aarch64", "gcc-bti")]
VARIANTS["clang-bti"] = dict(compiler="clang", bti=True)
VARIANTS["gcc-bti"] = dict(compiler="gcc", bti=True)


@pytest.fixture(scope="session")
def xbin(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], str]:
    cache: dict[tuple[str, str], str] = {}

    def get(arch: str, variant: str) -> str:
        v = VARIANTS[variant]
        why = _have(arch, str(v["compiler"]))
        if why:
            pytest.skip(why)
        if (arch, variant) not in cache:
            d = tmp_path_factory.mktemp(f"{arch}-{variant}")
            cache[arch, variant] = build(str(d / "prog"), arch, **v)  # type: ignore[arg-type]
        return cache[arch, variant]

    return get


def _by_key(an, name: str):  # type: ignore[no-untyped-def]
    return [i for i in an.sites if i.key is not None and i.key.name == name]


@pytest.mark.parametrize(("arch", "variant"), CASES)
def test_check_relax_list_run(xbin, tmp_path, capsys, arch: str, variant: str) -> None:
    src = xbin(arch, variant)
    an = check(Image.load(src))
    assert not an.errors and not an.warnings, [d.message for d in an.diagnostics]
    assert an.backend.name == arch and len(an.sites) == 4
    for info in an.sites:
        assert info.state == "slow" and len(info.callers) == 1, info
    out = str(tmp_path / "relaxed")
    res = relax(Image.load(src))
    with open(out, "wb") as f:
        f.write(res.data)
    os.chmod(out, 0o755)
    far = "far" in variant
    # (GNU ld turns a non-PIE ppc64le prologue into `lis r2; addi r2`: a TOC
    # prologue too, runtime/arch/ppc64le_gep.h, so its local entry is
    # branched to directly as after addis/addi.)
    assert res.resolved == (2 if far else 3)  # cop's two sites (+ fop's unless far)
    an2 = check(Image.load(out))
    assert not an2.errors, [d.message for d in an2.errors]
    relax_and_full_check(src)
    be = an2.backend
    img = an2.image
    dbl = img.symbol_address("dbl")
    for info in _by_key(an2, "cop"):
        assert info.state == "resolved"
        tr = struct.unpack("<I", img.read(info.entry.tramp, 4))[0]
        if arch == "aarch64":  # b dbl; the site bl/b dbl when known
            assert tr == aarch64.INSN_B | ((dbl - info.entry.tramp) >> 2) & aarch64.IMM26
            if info.entry.site:
                assert be.decode_site(info.entry.site).target == dbl
        else:  # b dbl+8 (local entry); the site is never written
            assert tr == ppc64le.INSN_B | (dbl + 8 - info.entry.tramp) & ppc64le.LI24
            assert info.callers[0].target == info.entry.tramp
    fop = _by_key(an2, "fop")[0]
    assert fop.state == ("slow" if far else "resolved")
    assert _by_key(an2, "op")[0].state == "slow"
    if arch == "ppc64le":  # the runtime never patches ppc64le sites: nothing to fill
        assert not any(p.what in ("site", "site-field") for p in res.patches)
    # idempotent; list agrees
    assert not relax(Image.load(out)).changed
    assert main(["list", out]) == 0
    listing = capsys.readouterr().out
    assert listing.count("state=resolved") == res.resolved and "<dbl>" in listing
    # same output, relaxed or not (the runtime takes over the rest; fop
    # beyond branch range goes through its far stub)
    expect = run_qemu(arch, src)
    assert "use(5) = -490" in expect
    assert run_qemu(arch, out) == expect


# -- defects ----------------------------------------------------------------


def _w(m: Mutable, addr: int, word: int) -> None:
    m.write(addr, struct.pack("<I", word))


def _site(m: Mutable, key: str = "op"):  # type: ignore[no-untyped-def]
    an = check(m.img)
    info = _by_key(an, key)[0]
    return an, info, info.callers[0].addr


def d_site_not_branch(m: Mutable, arch: str) -> None:
    _, _, s = _site(m)
    _w(m, s, aarch64.INSN_NOP if arch == "aarch64" else ppc64le.INSN_NOP)


def d_site_elsewhere(m: Mutable, arch: str) -> None:
    _, info, s = _site(m)
    other = _by_key(check(m.img), "cop")[0].entry.tramp
    if arch == "aarch64":
        _w(m, s, aarch64.INSN_BL | ((other - s) >> 2) & aarch64.IMM26)
    else:  # to the other entry's TOC-save stub
        stub = _by_key(check(m.img), "cop")[0].callers[0]
        w = struct.unpack("<I", m.read(stub.addr, 4))[0]
        _w(m, s, ppc64le.INSN_BL | (stub.addr + ppc64le.sext(w & ppc64le.LI24, 26) - s) & ppc64le.LI24)


def d_tramp_branch(m: Mutable, arch: str) -> None:
    _, info, _ = _site(m)
    _w(m, info.entry.tramp, aarch64.INSN_NOP if arch == "aarch64" else ppc64le.INSN_NOP)


def d_tramp_slow(m: Mutable, arch: str) -> None:
    _, info, _ = _site(m)
    # br x18 (no BTI pad accepts it) / mtctr r12
    _w(
        m,
        info.entry.tramp + 8 if arch == "aarch64" else info.entry.tramp + 4,
        0xD61F0240 if arch == "aarch64" else 0x7D8903A6,
    )


def d_tramp_patched(m: Mutable, arch: str) -> None:
    _, info, _ = _site(m)
    t = info.entry.tramp
    _w(m, t, (aarch64.INSN_B | 2) if arch == "aarch64" else (ppc64le.INSN_B | 8))


def d_resolved_far(m: Mutable, arch: str) -> None:
    """RESOLVED flag on the entry whose const target is out of branch range."""
    _, info, _ = _site(m, "fop")
    m.set_site(info.entry.index, abi.SITE_OFF_FLAGS, "H", info.entry.flags | abi.DYNCALL_SITE_RESOLVED)


def d_prefixed(m: Mutable, arch: str) -> None:
    """ppc64le: the word before the trampoline's b is a prefix (pnop)."""
    _, info, _ = _site(m)
    assert info.entry.tramp % 64
    _w(m, info.entry.tramp - 4, 0x07000000)


def d_toc_no_restore(m: Mutable, arch: str) -> None:
    _, _, s = _site(m)
    _w(m, s + 4, ppc64le.INSN_NOP)


def d_toc_direct(m: Mutable, arch: str) -> None:
    """ppc64le: bl tramp, bypassing the TOC-save stub."""
    _, info, s = _site(m)
    _w(m, s, ppc64le.INSN_BL | (info.entry.tramp - s) & ppc64le.LI24)


def d_toc_global_entry(m: Mutable, arch: str) -> None:
    """ppc64le: a RESOLVED trampoline branch to dbl's global entry (r12 unset)."""
    an, info, _ = _site(m, "cop")
    dbl = m.img.symbol_address("dbl")
    _w(m, info.entry.tramp, ppc64le.INSN_B | (dbl - info.entry.tramp) & ppc64le.LI24)
    m.set_site(info.entry.index, abi.SITE_OFF_FLAGS, "H", info.entry.flags | abi.DYNCALL_SITE_RESOLVED)


# (name, injector, code, arches, variant)
DEFECTS = [
    ("site-not-branch", d_site_not_branch, "DC021", ("aarch64", "ppc64le"), "gcc-pie"),
    ("site-elsewhere", d_site_elsewhere, "DC022", ("aarch64", "ppc64le"), "gcc-pie"),
    ("tramp-branch", d_tramp_branch, "DC014", ("aarch64", "ppc64le"), "clang-pie"),
    ("tramp-slow", d_tramp_slow, "DC013", ("aarch64", "ppc64le"), "clang-pie"),
    ("tramp-patched", d_tramp_patched, "DC015", ("aarch64", "ppc64le"), "clang-pie"),
    ("resolved-out-of-range", d_resolved_far, "DC050", ("aarch64", "ppc64le"), "clang-far"),
    ("prefixed", d_prefixed, "DC017", ("ppc64le",), "clang-pie"),
    ("toc-no-restore", d_toc_no_restore, "DC025", ("ppc64le",), "gcc-pie"),
    ("toc-direct", d_toc_direct, "DC025", ("ppc64le",), "clang-pie"),
    ("toc-global-entry", d_toc_global_entry, "DC053", ("ppc64le",), "clang-pie"),
]


@pytest.mark.parametrize(
    ("name", "inject", "code", "arch", "variant"),
    [(n, f, c, a, v) for n, f, c, arches, v in DEFECTS for a in arches],
    ids=[f"{a}-{n}" for n, _, _, arches, _ in DEFECTS for a in arches],
)
def test_defect(xbin, tmp_path, capsys, name, inject, code, arch, variant) -> None:
    m = Mutable.copy(xbin(arch, variant), str(tmp_path / "bad"))
    inject(m, arch)
    an = check(Image.load(m.path))
    codes = {d.code for d in an.errors}
    assert code in codes, [d.format(m.path) for d in an.diagnostics]
    with open(m.path, "rb") as f:
        before = f.read()
    assert main(["relax", "--in-place", m.path]) == 1
    assert "DC906" in capsys.readouterr().err
    with open(m.path, "rb") as f:
        assert f.read() == before
