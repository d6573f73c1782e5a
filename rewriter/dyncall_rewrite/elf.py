"""The linked image as the rewriter sees it: layout from LIEF, bytes from
the file.

LIEF parses headers, sections, segments, symbols and relocations once; the
contents are always read from the raw file bytes (``Image.data``) at file
offsets computed from the PT_LOAD segments, so a relaxed copy of the buffer
can be re-checked with the same layout (``Image.with_data``) and every write
the tool makes is a same-size write at a file offset.
"""

from __future__ import annotations

import bisect
import itertools
import os
import struct
from dataclasses import dataclass
from typing import Any

import lief

from dyncall_rewrite.errors import (
    InputIOError,
    NotELFError,
    TruncatedError,
    UnsupportedFormatError,
)

lief.logging.disable()

PF_X, PF_W, PF_R = 1, 2, 4
PT_LOAD = 1
ET_EXEC, ET_DYN = 2, 3
SHT_NOBITS = 8
SHF_ALLOC = 2

_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")


@dataclass(slots=True, frozen=True)
class Segment:
    vaddr: int
    memsz: int
    offset: int
    filesz: int
    flags: int

    @property
    def end(self) -> int:
        return self.vaddr + self.memsz


@dataclass(slots=True, frozen=True)
class Section:
    name: str
    addr: int
    size: int
    offset: int
    type: int
    flags: int


@dataclass(slots=True, frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    is_func: bool


@dataclass(slots=True, frozen=True)
class Reloc:
    """A dynamic relocation at some address: ``kind`` is "relative" (value
    known at link time: ``addend``, or the file contents for REL/RELR),
    "symbol" (bound by the dynamic loader) or "other"."""

    kind: str
    addend: int | None
    symbol: str | None


@dataclass(slots=True, frozen=True)
class PointerValue:
    """The link-time knowledge of a pointer-sized cell."""

    known: bool
    value: int = 0  # when known
    symbol: str | None = None  # when bound to a symbol by the loader


class Image:
    """An ELF file: immutable layout + a bytes buffer."""

    def __init__(self, path: str, data: bytes | bytearray, layout: dict[str, Any]) -> None:
        self.path = path
        self.data = data
        self.__dict__.update(layout)
        self._layout = layout

    # -- construction -------------------------------------------------
    @classmethod
    def load(cls, path: str) -> Image:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise InputIOError(f"cannot read: {e.strerror}", path=path) from None
        return cls(path, data, _layout(path, data))

    def with_data(self, data: bytes | bytearray) -> Image:
        """The same layout over other contents of the same size."""
        assert len(data) == len(self.data)
        return Image(self.path, data, self._layout)

    # -- address space ------------------------------------------------
    def segment(self, vaddr: int) -> Segment | None:
        i = bisect.bisect_right(self._seg_starts, vaddr) - 1
        if i >= 0:
            s = self.segments[i]
            if vaddr < s.end:
                return s
        return None

    def mapped(self, vaddr: int, n: int = 1) -> Segment | None:
        """The PT_LOAD segment holding [vaddr, vaddr+n) in memory."""
        s = self.segment(vaddr)
        if s is not None and vaddr + n <= s.end:
            return s
        return None

    def is_exec(self, vaddr: int, n: int = 1) -> bool:
        s = self.mapped(vaddr, n)
        return s is not None and bool(s.flags & PF_X) and vaddr + n <= s.vaddr + s.filesz

    def is_writable(self, vaddr: int, n: int = 1) -> bool:
        s = self.mapped(vaddr, n)
        return s is not None and bool(s.flags & PF_W)

    def offset(self, vaddr: int, n: int = 1) -> int | None:
        """File offset of [vaddr, vaddr+n) when it is backed by file bytes."""
        s = self.segment(vaddr)
        if s is None or vaddr + n > s.vaddr + s.filesz:
            return None
        return s.offset + (vaddr - s.vaddr)

    def read(self, vaddr: int, n: int) -> bytes | None:
        off = self.offset(vaddr, n)
        if off is None:
            return None
        return bytes(self.data[off : off + n])

    def read_i32(self, vaddr: int) -> int | None:
        off = self.offset(vaddr, 4)
        return None if off is None else _I32.unpack_from(self.data, off)[0]

    def read_cstring(self, vaddr: int, limit: int = 4096) -> str | None:
        s = self.segment(vaddr)
        off = self.offset(vaddr)
        if s is None or off is None:
            return None
        end = min(s.offset + s.filesz, off + limit)
        nul = self.data.find(b"\0", off, end)
        if nul < 0:
            return None
        return bytes(self.data[off:nul]).decode("utf-8", "replace")

    def pointer(self, vaddr: int) -> PointerValue:
        """What the loader will have stored in the 8-byte cell at vaddr."""
        r = self.relocs.get(vaddr)
        if r is not None:
            if r.kind == "relative":
                if r.addend is not None:
                    return PointerValue(True, r.addend)
                raw = self.read(vaddr, 8)
                return PointerValue(raw is not None, _U64.unpack(raw)[0] if raw else 0)
            if r.kind == "symbol":
                return PointerValue(False, symbol=r.symbol)
            return PointerValue(False)
        s = self.mapped(vaddr, 8)
        if s is None:
            return PointerValue(False)
        raw = self.read(vaddr, 8)
        value = _U64.unpack(raw)[0] if raw is not None else 0  # .bss: zero
        if self.is_pie and value != 0:
            # An absolute non-null pointer without relocation in a
            # position-independent image is not a link-time address.
            return PointerValue(False)
        return PointerValue(True, value)

    # -- symbols ------------------------------------------------------
    def symbolize(self, vaddr: int) -> str | None:
        """``name+0xoff`` of the closest preceding symbol (functions and
        objects), or None."""
        i = bisect.bisect_right(self._sym_starts, vaddr) - 1
        while i >= 0:
            s = self.symbols[i]
            if s.size == 0 or vaddr < s.value + s.size:
                off = vaddr - s.value
                return s.name if off == 0 else f"{s.name}+0x{off:x}"
            if vaddr - s.value > 1 << 20:
                break
            i -= 1
        return None

    def function_at(self, vaddr: int) -> Symbol | None:
        """The sized function symbol containing vaddr."""
        i = bisect.bisect_right(self._func_starts, vaddr) - 1
        if i >= 0:
            s = self.functions[i]
            if vaddr < s.value + s.size:
                return s
        return None

    def symbol_address(self, name: str) -> int | None:
        return self.symbol_by_name.get(name)


def _layout(path: str, data: bytes) -> dict[str, Any]:
    # Identification only (magic, class, byte order); all parsing is LIEF's.
    if len(data) < 16 or data[:4] != b"\x7fELF":
        raise NotELFError("not an ELF file", path=path)
    if data[4] != 2:
        raise UnsupportedFormatError("32-bit ELF is not supported (ELFCLASS64 only)", path=path)
    if data[5] != 1:
        raise UnsupportedFormatError("big-endian ELF is not supported", path=path)
    if len(data) < 64:
        raise TruncatedError("file ends inside the ELF header", path=path)
    try:
        cfg = lief.ELF.ParserConfig()
        b = lief.ELF.parse(path, cfg)
    except Exception as e:  # LIEF raises on some malformed inputs
        raise NotELFError(f"malformed ELF ({e})", path=path) from None
    if b is None:
        raise NotELFError("malformed ELF: LIEF cannot parse it", path=path)
    try:
        return _extract(path, data, b)
    except (ValueError, TypeError, OverflowError, MemoryError) as e:
        raise NotELFError(f"malformed ELF ({e})", path=path) from None


def _extract(path: str, data: bytes, b: lief.ELF.Binary) -> dict[str, Any]:
    hdr = b.header
    size = len(data)
    if hdr.program_header_offset + hdr.numberof_segments * 56 > size:
        raise TruncatedError("program headers extend beyond the end of the file", path=path)
    segs = []
    for s in b.segments:
        if int(s.type) != PT_LOAD:
            continue
        if s.file_offset + s.physical_size > size:
            raise TruncatedError(
                f"PT_LOAD at 0x{s.virtual_address:x} extends beyond the end of the file", path=path
            )
        if s.physical_size > s.virtual_size:
            raise NotELFError(f"PT_LOAD at 0x{s.virtual_address:x} has p_filesz > p_memsz", path=path)
        segs.append(Segment(s.virtual_address, s.virtual_size, s.file_offset, s.physical_size, int(s.flags)))
    segs.sort(key=lambda s: s.vaddr)
    for a, c in itertools.pairwise(segs):
        if a.end > c.vaddr:
            raise NotELFError(f"overlapping PT_LOAD segments at 0x{c.vaddr:x}", path=path)
    sections = []
    for s in b.sections:
        if not s.name and int(s.type) == 0:
            continue
        if int(s.type) != SHT_NOBITS and s.size and s.offset + s.size > size:
            raise TruncatedError(f"section {s.name!r} extends beyond the end of the file", path=path)
        sections.append(Section(s.name, s.virtual_address, s.size, s.offset, int(s.type), int(s.flags)))

    syms: dict[tuple[str, int], Symbol] = {}
    by_name: dict[str, int] = {}
    for it in (b.symtab_symbols, b.dynamic_symbols):
        for s in it:
            if s.shndx == 0 or not s.name or s.value == 0:
                continue
            t = int(s.type)
            if t not in (1, 2, 0):  # OBJECT, FUNC, NOTYPE
                continue
            if s.name.startswith(".L") or s.name.startswith("$"):
                continue
            key = (s.name, s.value)
            if key not in syms:
                syms[key] = Symbol(s.name, s.value, s.size, t == 2)
                by_name.setdefault(s.name, s.value)
    symbols = sorted(syms.values(), key=lambda s: (s.value, -s.size))
    functions = [s for s in symbols if s.is_func and s.size]

    relocs: dict[int, Reloc] = {}
    T = lief.ELF.Relocation.TYPE
    relative = {T.X86_64_RELATIVE}
    symbolic = {T.X86_64_64, T.X86_64_GLOB_DAT}
    for r in b.dynamic_relocations:
        sym = r.symbol.name if r.has_symbol and r.symbol is not None and r.symbol.name else None
        if r.type in relative or r.encoding == lief.ELF.Relocation.ENCODING.RELR:
            addend = r.addend & (2**64 - 1) if r.encoding == lief.ELF.Relocation.ENCODING.RELA else None
            relocs[r.address] = Reloc("relative", addend, None)
        elif r.type in symbolic and sym:
            relocs[r.address] = Reloc("symbol", r.addend, sym)
        else:
            relocs[r.address] = Reloc("other", None, sym)
    return {
        "machine": int(hdr.machine_type),
        "is_pie": int(hdr.file_type) == ET_DYN,
        "segments": segs,
        "_seg_starts": [s.vaddr for s in segs],
        "sections": sections,
        "symbols": symbols,
        "_sym_starts": [s.value for s in symbols],
        "functions": functions,
        "_func_starts": [s.value for s in functions],
        "symbol_by_name": by_name,
        "relocs": relocs,
        "has_symtab": any(True for _ in b.symtab_symbols),
        "file_size": size,
        "file_mode": os.stat(path).st_mode & 0o7777,
    }


def section(image: Image, name: str) -> Section | None:
    for s in image.sections:
        if s.name == name:
            return s
    return None
