"""Reading the two dyncall tables and the keys they name."""

from __future__ import annotations

from dataclasses import dataclass, field

from dyncall_rewrite import abi
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


@dataclass(slots=True)
class Section:
    """A table section as found, before its rule (entry_rules DC002)."""

    name: str
    addr: int
    size: int
    flags: int
    entry_size: int
    data: bytes | None  # its file contents, None when not SHF_ALLOC or not backed by a PT_LOAD


def find_table(img: Image, name: str, entry_size: int) -> Section | None:
    sec = section(img, name)
    if sec is None:
        return None
    data = img.read(sec.addr, sec.size) if sec.flags & SHF_ALLOC else None
    return Section(name, sec.addr, sec.size, sec.flags, entry_size, data)


def table_of(s: Section) -> Table:
    """The whole entries of a readable section."""
    assert s.data is not None
    usable = len(s.data) - len(s.data) % s.entry_size
    return Table(s.name, s.addr, s.size, s.data[:usable])
