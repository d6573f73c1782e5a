"""The bulk .symtab reader (elf._symbols: Elf64_Sym records read as columns
from the bytes LIEF located) agrees with LIEF's own symbol objects."""

from __future__ import annotations

import pytest
from conftest import VARIANTS

from dyncall_rewrite.elf import STT_FUNC, Image, lief


@pytest.mark.parametrize("variant", [v for v in VARIANTS if "stripped" not in v])
def test_symbols_match_lief(binaries, variant: str) -> None:
    path = binaries(variant)
    img = Image.load(path)
    b = lief.ELF.parse(path)
    want = set()
    for s in list(b.symtab_symbols) + list(b.dynamic_symbols):
        t = int(s.type)
        if s.shndx == 0 or s.value == 0 or not s.name or t > STT_FUNC:
            continue
        if s.name.startswith((".L", "$")):
            continue
        want.add((s.name, s.value, s.size, t == STT_FUNC))
    got = {(s.name, s.value, s.size, s.is_func) for s in img.symbols}
    assert got == want
    vals = [s.value for s in img.symbols]
    assert vals == sorted(vals)
    assert img.func_starts == sorted(s.value for s in img.symbols if s.is_func and s.size)
    for name in ("main", "target_a", "target_b"):
        first = next((s.value for s in img.symbols if s.name == name), None)
        assert img.symbol_address(name) == first
    assert img.symbol_address("no_such_symbol_anywhere") is None
