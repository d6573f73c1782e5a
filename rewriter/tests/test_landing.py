"""Landing pads kept at link time (landing.py): in an IBT build, relax
resolves a const key's site to a direct branch only when the target starts
with endbr64, on both engines (columns and objects), with both compilers."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from dyncall_rewrite import abi, landing
from dyncall_rewrite.check import check
from dyncall_rewrite.elf import Image
from dyncall_rewrite.relax import RelaxOptions, relax

BUILD = os.environ.get("DYNCALL_BUILD_DIR", "")
DCC = os.path.join(BUILD, "bin", "dyncall-cc")

MAIN = r"""
#include <stdio.h>
#include <dyncall.h>
typedef int (*fn_t)(int);
extern fn_t const with_pad DYNCALL;
extern fn_t const past_pad DYNCALL;
__attribute__((noinline)) int call_with(int x) { return with_pad(x) * 3; }
__attribute__((noinline)) int call_past(int x) { return past_pad(x) * 3; }
int main(void) { printf("%d %d\n", call_with(1), call_past(1)); return 0; }
"""
KEYS = r"""
#include <dyncall.h>
typedef int (*fn_t)(int);
__attribute__((noinline)) int f(int x) { return x + 1; }
__attribute__((noinline)) int g(int x) { return x + 2; }
fn_t const with_pad DYNCALL = f;
fn_t const past_pad DYNCALL = (fn_t)((char *)g + 4);  /* past its endbr64 */
"""


def test_pad_words() -> None:
    ibt, bti = abi.DYNCALL_SITE_IBT, abi.DYNCALL_SITE_BTI
    assert landing.pad_ok(0, None)
    assert landing.pad_ok(ibt, int.from_bytes(b"\xf3\x0f\x1e\xfa", "little"))
    assert not landing.pad_ok(ibt, 0x90909090)
    assert not landing.pad_ok(ibt, None)
    assert landing.pad_ok(bti, 0xD503245F) and landing.pad_ok(bti, 0xD503233F)
    assert not landing.pad_ok(bti, 0xD503201F)  # nop


@pytest.mark.parametrize("cc", ["clang-19", "gcc-12"])
def test_relax_keeps_landing_pads(tmp_path, cc: str) -> None:
    if not os.path.exists(DCC) or not shutil.which(cc):
        pytest.skip(f"needs {DCC} and {cc}")
    (tmp_path / "main.c").write_text(MAIN)
    (tmp_path / "keys.c").write_text(KEYS)
    out = tmp_path / "prog"
    # --dyncall-no-rewrite: the file as linked, relaxed here in-process
    subprocess.run(
        [
            DCC,
            cc,
            "--dyncall-no-rewrite",
            "-O2",
            "-fcf-protection=branch",
            str(tmp_path / "main.c"),
            str(tmp_path / "keys.c"),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    for columns in (True, False):
        img = Image.load(str(out))
        res = relax(img, RelaxOptions(), analysis=check(img, columns=columns))
        assert res.resolved == 1, (columns, res.resolved)
        relaxed = tmp_path / f"relaxed-{columns}"
        relaxed.write_bytes(bytes(res.data))
        resolved = {
            info.key.name: bool(info.entry.flags & abi.DYNCALL_SITE_RESOLVED)
            for info in check(Image.load(str(relaxed))).sites
            if info.key is not None
        }
        assert resolved == {"with_pad": True, "past_pad": False}, (columns, resolved)
