"""The columnar fast path agrees with the object path (differential.py),
and is the path that clean x86-64 binaries actually take."""

from __future__ import annotations

import pytest
from conftest import VARIANTS
from differential import compare_engines

from dyncall_rewrite.check import check
from dyncall_rewrite.elf import Image

# Clean x86-64 test binaries the columns must prove on their own (a
# stripped binary has no function symbols to decode from: object path).
COLUMNS_EXPECTED = {
    v for v in VARIANTS if "stripped" not in v and v not in ("gcc-pad2", "gcc-decoy", "clang-decoy")
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_columns_agree_with_object_path(binaries, variant: str) -> None:
    img = Image.load(binaries(variant))
    assert compare_engines(img) is None
    an = check(img)
    print(variant, an.columns is not None, [d.code for d in check(img, columns=False).diagnostics])
    if variant in COLUMNS_EXPECTED:
        assert an.columns is not None, "the columnar path deferred on a clean binary"


def test_values_beyond_int64_defer_to_object_path(binaries, tmp_path) -> None:
    """A key whose link-time value does not fit the int64 columns (a
    corrupted fixed-address binary: the value is read from the file) is
    left to the object path, which diagnoses it; found by the fuzzer."""
    from defects import Mutable

    src = binaries("clang-nopie")
    an = check(Image.load(src))
    key = next(k for k in an.keys.values() if k.address.known and an.image.mapped(k.address.value, 8))
    m = Mutable.copy(src, str(tmp_path / "big-key"))
    m.write(key.address.value, (0xFFFF_FFFF_FFFF_FFF0).to_bytes(8, "little"))
    img = Image.load(m.path)
    fast = check(img)
    assert fast.columns is None
    assert [d.code for d in fast.diagnostics] == [d.code for d in check(img, columns=False).diagnostics]
    assert compare_engines(img) is None
