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
    align: int
    data: bytes | None  # its file contents, None when not SHF_ALLOC or not backed by a PT_LOAD


def find_table(img: Image, name: str, entry_size: int, align: int = abi.TABLE_ALIGN) -> Section | None:
    sec = section(img, name)
    if sec is None:
        return None
    data = img.read(sec.addr, sec.size) if sec.flags & SHF_ALLOC else None
    return Section(name, sec.addr, sec.size, sec.flags, entry_size, align, data)


def section_problems(t: Section) -> list[str]:
    """What keeps the runtime from reading a table section: not allocated,
    misaligned, not a whole number of entries, not backed by a PT_LOAD's
    file contents (DC002 of the dyncall tables, DC060 of
    __patchable_function_entries)."""
    problems = []
    if not t.flags & SHF_ALLOC:
        problems.append("is not allocated (SHF_ALLOC): the runtime cannot see it")
    if t.addr % t.align:
        problems.append(f"is at 0x{t.addr:x}, not {t.align}-byte aligned")
    if t.size % t.entry_size:
        problems.append(f"size {t.size} is not a multiple of the {t.entry_size}-byte entry")
    if t.flags & SHF_ALLOC and t.data is None:
        problems.append("is not backed by file contents of a PT_LOAD segment")
    return problems


def table_of(s: Section) -> Table:
    """The whole entries of a readable section."""
    assert s.data is not None
    usable = len(s.data) - len(s.data) % s.entry_size
    return Table(s.name, s.addr, s.size, s.data[:usable])
