"""Reading the two dyncall tables and the keys they name."""

from __future__ import annotations

from dataclasses import dataclass, field

from dyncall_rewrite import abi
from dyncall_rewrite.diagnostics import Diagnostic
from dyncall_rewrite.elf import SHF_ALLOC, Image, PointerValue, section


@dataclass(slots=True)
class Table:
    name: str
    addr: int
    size: int
    data: bytes


@dataclass(slots=True)
class Key:
    """A key as seen through one key cell (one per unit per key)."""

    cell: int
    entries: list[abi.KeyEntry] = field(default_factory=list)
    flags: int = 0  # OR of the entries' flags for this cell
    name: str | None = None
    address: PointerValue = field(default_factory=lambda: PointerValue(False))

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if self.address.symbol:
            return self.address.symbol
        return f"cell@0x{self.cell:x}"


def read_table(img: Image, name: str, entry_size: int, diags: list[Diagnostic]) -> Table | None:
    sec = section(img, name)
    if sec is None:
        return None
    problems = []
    if not sec.flags & SHF_ALLOC:
        problems.append("is not allocated (SHF_ALLOC): the runtime cannot see it")
    if sec.addr % abi.TABLE_ALIGN:
        problems.append(f"is at 0x{sec.addr:x}, not {abi.TABLE_ALIGN}-byte aligned")
    if sec.size % entry_size:
        problems.append(f"size {sec.size} is not a multiple of the {entry_size}-byte entry")
    data = img.read(sec.addr, sec.size) if sec.flags & SHF_ALLOC else None
    if data is None and sec.flags & SHF_ALLOC:
        problems.append("is not backed by file contents of a PT_LOAD segment")
    for p in problems:
        diags.append(Diagnostic("DC002", sec.addr, f"section {name} {p}", table=name))
    if data is None:
        return None
    usable = len(data) - len(data) % entry_size
    return Table(name, sec.addr, sec.size, data[:usable])
