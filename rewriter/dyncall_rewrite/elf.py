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
import io
import itertools
import struct
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dyncall_rewrite.errors import (
    NoSectionHeadersError,
    NotELFError,
    TruncatedError,
    UnsupportedFormatError,
)
from dyncall_rewrite.files import read_input


def _import_lief() -> Any:
    """``import lief`` with Python's Enum member-reassignment guard
    (``EnumType.__setattr__``, pure Python) bypassed while LIEF's extension
    module registers its ~67,000 enum members: that guard alone is ~40% of
    the import (~0.1-0.2 s of every command).  LIEF never reassigns a member,
    so the guard has nothing to catch; it is restored right after."""
    import enum
    import sys

    if "lief" in sys.modules:
        return sys.modules["lief"]
    guard = enum.EnumType.__dict__.get("__setattr__")
    try:
        if guard is not None:
            del enum.EnumType.__setattr__
        import lief as mod
    finally:
        if guard is not None:
            enum.EnumType.__setattr__ = guard  # type: ignore[method-assign]
    mod.logging.disable()
    return mod


lief = _import_lief()
if TYPE_CHECKING:
    from lief import ELF as LiefELF

PF_X, PF_W, PF_R = 1, 2, 4
PT_LOAD = 1
PT_GNU_RELRO = 0x6474E552
ET_EXEC, ET_DYN = 2, 3
SHT_NOBITS = 8
SHF_ALLOC = 2

_U64 = struct.Struct("<Q")


@dataclass(slots=True, frozen=True)
class Segment:
    vaddr: int
    memsz: int
    offset: int
    filesz: int
    flags: int
    end: int  # vaddr + memsz
    fend: int  # vaddr + filesz: end of the file-backed part


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
        self._last_seg: Segment | None = None
        self._prev_seg: Segment | None = None
        # Lookups alternate between code and tables: try code first.
        self._exec_first = sorted(self.segments, key=lambda g: not g.flags & PF_X)

    # -- construction -------------------------------------------------
    @classmethod
    def load(cls, path: str) -> Image:
        """The regular file ``path`` (files.read_input: anything else is
        DC900); the layout is parsed from the bytes read."""
        data, st = read_input(path)
        layout = _layout(path, data)
        layout["file_mode"] = st.st_mode & 0o7777
        layout["file_stat"] = st
        return cls(path, data, layout)

    def with_data(self, data: bytes | bytearray) -> Image:
        """The same layout over other contents of the same size."""
        assert len(data) == len(self.data)
        return Image(self.path, data, self._layout)

    # -- address space ------------------------------------------------
    # Hot paths (called per table entry): a one-segment cache before the
    # bisect, since consecutive lookups nearly always hit the same segment.
    def segment(self, vaddr: int) -> Segment | None:
        # Two-entry cache: lookups alternate between code and tables.
        s = self._last_seg
        if s is not None and s.vaddr <= vaddr < s.end:
            return s
        t = self._prev_seg
        if t is not None and t.vaddr <= vaddr < t.end:
            self._last_seg, self._prev_seg = t, s
            return t
        for t in self._exec_first:  # few PT_LOADs: a scan beats bisect
            if t.vaddr <= vaddr < t.end:
                self._last_seg, self._prev_seg = t, s
                return t
        return None

    def mapped(self, vaddr: int, n: int = 1) -> Segment | None:
        """The PT_LOAD segment holding [vaddr, vaddr+n) in memory."""
        s = self.segment(vaddr)
        if s is not None and vaddr + n <= s.end:
            return s
        return None

    def is_exec(self, vaddr: int, n: int = 1) -> bool:
        s = self.segment(vaddr)
        return s is not None and s.flags & PF_X != 0 and vaddr + n <= s.fend

    def is_writable(self, vaddr: int, n: int = 1) -> bool:
        s = self.segment(vaddr)
        return s is not None and s.flags & PF_W != 0 and vaddr + n <= s.end

    def in_relro(self, vaddr: int, n: int = 1) -> bool:
        """[vaddr, vaddr+n) meets PT_GNU_RELRO (read-only after loading)."""
        return any(lo < vaddr + n and vaddr < hi for lo, hi in self.__dict__.get("relro", ()))

    def holds_key_cell(self, vaddr: int) -> bool:
        """Can the loader give [vaddr, vaddr+8) its value?  In a PIE or a
        shared object the cell needs a dynamic relocation, so it must be in
        writable (RELRO) data; in a fixed-address executable its value is in
        the file and any non-executable data will do."""
        if vaddr % 8:
            return False
        if self.is_writable(vaddr, 8):
            return True
        return not self.is_pie and self.mapped(vaddr, 8) is not None and not self.is_exec(vaddr, 8)

    def offset(self, vaddr: int, n: int = 1) -> int | None:
        """File offset of [vaddr, vaddr+n) when it is backed by file bytes."""
        s = self.segment(vaddr)
        if s is None or vaddr + n > s.fend:
            return None
        return s.offset + (vaddr - s.vaddr)

    def read(self, vaddr: int, n: int) -> bytes | None:
        s = self.segment(vaddr)
        if s is None or vaddr + n > s.fend:
            return None
        off = s.offset + (vaddr - s.vaddr)
        return bytes(self.data[off : off + n])

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

    # -- columns (numpy) ----------------------------------------------
    @property
    def u8(self) -> np.ndarray:
        """The file bytes as a numpy array (a view: no copy)."""
        v = self.__dict__.get("_u8")
        if v is None:
            v = self.__dict__["_u8"] = np.frombuffer(self.data, np.uint8)
        return v

    def file_offsets(self, addrs: np.ndarray, n: int, exec_only: bool = False) -> np.ndarray:
        """File offset of [a, a+n) for each address (``offset``; with
        ``exec_only``: ``is_exec``), -1 where there is none."""
        out = np.full(len(addrs), -1, np.int64)
        for s in self.segments:
            if exec_only and not s.flags & PF_X:
                continue
            m = (addrs >= s.vaddr) & (addrs + n <= s.fend)
            out[m] = addrs[m] + (s.offset - s.vaddr)
        return out

    def mapped_mask(self, addrs: np.ndarray, n: int = 1, flags: int = 0) -> np.ndarray:
        """``mapped(a, n)`` per address; with ``flags``: the segment has them."""
        out = np.zeros(len(addrs), bool)
        for s in self.segments:
            if s.flags & flags == flags:
                out |= (addrs >= s.vaddr) & (addrs + n <= s.end)
        return out

    # -- symbols ------------------------------------------------------
    # Symbols are kept as parallel sorted lists (value, size, name offset in
    # the file, is-function); names are decoded only when printed.  They are
    # built on first use (a clean ``check`` needs only function starts).
    def __getattr__(self, name: str) -> Any:
        v: Any
        # Kept in the layout too: relax's output image (with_data) shares
        # it, and relax never writes symbol tables.
        if name == "func_starts":
            v = self.__dict__[name] = self._layout[name] = _func_starts(self._raw_syms)
            return v
        if name == "func_starts_array":
            v = self.__dict__[name] = self._layout[name] = _func_starts_array(self._raw_syms)
            return v
        if name in ("_sym_arrays", "_name_ends"):
            v = self.__dict__[name] = self._layout[name] = (
                _sorted_symbol_arrays(self._raw_syms) if name == "_sym_arrays" else _name_ends(self)
            )
            return v
        if name in ("_sym_val", "_sym_size", "_sym_name", "_sym_func"):
            syms = _sorted_symbols(self._sym_arrays)
            self.__dict__.update(syms)
            self._layout.update(syms)
            return syms[name]
        raise AttributeError(name)

    def _name(self, k: int) -> str:
        off = self._sym_name[k]
        end = self.data.find(b"\0", off)
        return bytes(self.data[off:end]).decode("utf-8", "replace")

    def symbolize(self, vaddr: int) -> str | None:
        """``name+0xoff`` of the closest preceding symbol (functions and
        objects) that contains vaddr (or is unsized), or None."""
        vals, sizes = self._sym_val, self._sym_size
        i = bisect.bisect_right(vals, vaddr) - 1
        lo = max(-1, i - 64)
        while i > lo:
            if sizes[i] == 0 or vaddr < vals[i] + sizes[i]:
                off = vaddr - vals[i]
                name = self._name(i)
                return name if off == 0 else f"{name}+0x{off:x}"
            i -= 1
        return None

    def symbolize_many(self, addrs: np.ndarray) -> list[str | None]:
        """``symbolize`` of each address, None for 0 (one vector search;
        an address outside the symbol found first takes the scalar walk)."""
        a = np.asarray(addrs, dtype=np.int64)
        vals, sizes, name_offs, _ = self._sym_arrays
        if not len(vals) or not len(a):
            return [self.symbolize(x) if x else None for x in a.tolist()]
        i = np.searchsorted(vals, a, side="right") - 1
        k = np.maximum(i, 0)
        v, sz = vals[k], sizes[k]
        # v + sz < v: wraps in int64 (not in Python ints): the scalar walk
        hit = (a > 0) & (i >= 0) & ((sz == 0) | ((a < v + sz) & (v + sz >= v)))
        # Each symbol's name decoded once per image, as _name does (one
        # decode for all: NUL never occurs inside a UTF-8 sequence).
        names = self.__dict__.get("_names")
        if names is None:
            names = self.__dict__["_names"] = np.full(len(vals), None, object)
        kh = k[hit]
        need = names[kh] == None  # noqa: E711 (elementwise)
        if need.any():
            ks = np.unique(kh[need])
            d = self.data
            raw = b"\0".join(
                [d[o:e] for o, e in zip(name_offs[ks].tolist(), self._name_ends[ks].tolist(), strict=True)]
            )
            names[ks] = bytes(raw).decode("utf-8", "replace").split("\0")
        texts = [
            n if o == 0 else f"{n}+0x{o:x}"
            for n, o in zip(names[kh].tolist(), (a[hit] - v[hit]).tolist(), strict=True)
        ]
        if len(texts) == len(a):
            return texts
        out: list[str | None] = [None] * len(a)
        for j, t in zip(np.flatnonzero(hit).tolist(), texts, strict=True):
            out[j] = t
        for j in np.flatnonzero(~hit & (a != 0)).tolist():
            out[j] = self.symbolize(int(a[j]))
        return out

    def symbol_address(self, name: str) -> int | None:
        """Value of the first symbol (in address order) called ``name``."""
        want = name.encode() + b"\0"
        best: tuple[int, int] | None = None
        for so, ss, w0, vals, sizes, keep in self._raw_syms:
            # Name offsets spelling ``name`` (string tables share tails).
            offs = []
            p = self.data.find(want, so, so + ss)
            while p >= 0:
                offs.append(p - so)
                p = self.data.find(want, p + 1, so + ss)
            if not offs:
                continue
            for k in keep[np.isin(w0[keep] & 0xFFFFFFFF, np.array(offs, np.uint64))].tolist():
                if best is None or (int(vals[k]), -int(sizes[k])) < best:
                    best = (int(vals[k]), -int(sizes[k]))
        return None if best is None else best[0]

    @property
    def symbols(self) -> list[Symbol]:
        return [
            Symbol(self._name(k), v, self._sym_size[k], self._sym_func[k])
            for k, v in enumerate(self._sym_val)
        ]


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
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = lief.ELF.parse(io.BytesIO(data), _parser_config())
    except Exception as e:  # LIEF raises on some malformed inputs
        raise NotELFError(f"malformed ELF ({e})", path=path) from None
    if b is None:
        raise NotELFError("malformed ELF: LIEF cannot parse it", path=path)
    try:
        with warnings.catch_warnings():
            # nanobind warns about out-of-range enum values in corrupted headers
            warnings.simplefilter("ignore")
            return _extract(path, data, b)
    except (ValueError, TypeError, OverflowError, MemoryError) as e:
        raise NotELFError(f"malformed ELF ({e})", path=path) from None


def _extract(path: str, data: bytes, b: LiefELF.Binary) -> dict[str, Any]:
    hdr = b.header
    size = len(data)
    if hdr.program_header_offset + hdr.numberof_segments * 56 > size:
        raise TruncatedError("program headers extend beyond the end of the file", path=path)
    shoff, shnum = hdr.section_header_offset, hdr.numberof_sections
    if shoff == 0 or shnum == 0:
        raise NoSectionHeadersError(
            "no section headers (sstrip'ed?): the dyncall tables cannot be located", path=path
        )
    if shoff + shnum * 64 > size:
        raise TruncatedError("section headers extend beyond the end of the file", path=path)
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
        va, ms, fs = s.virtual_address, s.virtual_size, s.physical_size
        segs.append(Segment(va, ms, s.file_offset, fs, int(s.flags), va + ms, va + fs))
    segs.sort(key=lambda s: s.vaddr)
    for a, c in itertools.pairwise(segs):
        if a.end > c.vaddr:
            raise NotELFError(f"overlapping PT_LOAD segments at 0x{c.vaddr:x}", path=path)
    sections = []
    for sec in b.sections:
        if not sec.name and int(sec.type) == 0:
            continue
        if int(sec.type) != SHT_NOBITS and sec.size and sec.offset + sec.size > size:
            raise TruncatedError(f"section {sec.name!r} extends beyond the end of the file", path=path)
        sections.append(
            Section(_text(sec.name), sec.virtual_address, sec.size, sec.offset, int(sec.type), int(sec.flags))
        )

    raw_syms, has_symtab = _symbols(b, data)

    relocs: dict[int, Reloc] = {}
    # R_<arch>_RELATIVE; absolute 64-bit and GLOB_DAT against a symbol
    # (x86_64, aarch64, ppc64le; LIEF's enum values are arch-qualified).
    relative = _reloc_types("X86_64_RELATIVE", "AARCH64_RELATIVE", "PPC64_RELATIVE")
    symbolic = _reloc_types(
        "X86_64_64", "X86_64_GLOB_DAT", "AARCH64_ABS64", "AARCH64_GLOB_DAT", "PPC64_ADDR64", "PPC64_GLOB_DAT"
    )
    for r in b.dynamic_relocations:
        sym = _symbol_name(r)
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
        "_raw_syms": raw_syms,
        "relocs": relocs,
        "has_symtab": has_symtab,
        "file_size": size,
        "relro": [
            (s.virtual_address, s.virtual_address + s.virtual_size)
            for s in b.segments
            if int(s.type) == PT_GNU_RELRO
        ],
    }


def _text(name: str | bytes) -> str:
    """A LIEF name (typed str | bytes; str in practice)."""
    return name.decode("utf-8", "replace") if isinstance(name, bytes) else name


def _symbol_name(r: LiefELF.Relocation) -> str | None:
    """The name of a relocation's symbol (None: none, or unnamed)."""
    if not r.has_symbol or r.symbol is None:
        return None
    return _text(r.symbol.name) or None


def _reloc_types(*names: str) -> set[LiefELF.Relocation.TYPE]:
    """The LIEF relocation types of those names (a name this LIEF lacks is skipped)."""
    T = lief.ELF.Relocation.TYPE
    return {getattr(T, n) for n in names if hasattr(T, n)}


def section(image: Image, name: str) -> Section | None:
    for s in image.sections:
        if s.name == name:
            return s
    return None


_SYM = struct.Struct("<IBBHQQ")  # Elf64_Sym: name, info, other, shndx, value, size
SHT_SYMTAB, SHT_DYNSYM = 2, 11
STT_NOTYPE, STT_OBJECT, STT_FUNC = 0, 1, 2


# One symbol table's records as numpy columns: (string table offset, its
# size, first quadword (st_name | st_info << 32 | st_other << 40 | st_shndx
# << 48), st_value, st_size, indexes of the records kept).
RawSyms = list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


def _parser_config() -> Any:
    """LIEF parses headers, sections, segments, dynamic symbols and
    relocations; not .symtab (read in bulk by _symbols: 10^5 LIEF symbol
    objects cost ~0.1 s), notes, symbol versions or the overlay."""
    c = lief.ELF.ParserConfig()
    c.parse_symtab_symbols = False
    c.parse_notes = False
    c.parse_symbol_versions = False
    c.parse_overlay = False
    return c


def _symbols(b: LiefELF.Binary, data: bytes) -> tuple[RawSyms, bool]:
    """The defined function/object symbols of .symtab and .dynsym, as
    columns of their Elf64_Sym records (see RawSyms).

    LIEF locates the symbol tables (section, entry size, linked string
    table); their fixed-size records are then read in bulk as numpy columns
    and filtered without building an object per symbol."""
    out: RawSyms = []
    secs = list(b.sections)
    has_symtab = False
    found = False
    u8 = np.frombuffer(data, np.uint8)
    for sec in secs:
        t = int(sec.type)
        if t not in (SHT_SYMTAB, SHT_DYNSYM) or sec.entry_size != _SYM.size:
            continue
        if not 0 <= sec.link < len(secs):
            continue
        strtab = secs[sec.link]
        so, ss = strtab.offset, strtab.size
        if sec.offset + sec.size > len(data) or so + ss > len(data) or not ss:
            continue
        if data[so + ss - 1] != 0:
            continue  # unterminated string table: names could run off
        found = True
        has_symtab |= t == SHT_SYMTAB
        n = sec.size // _SYM.size
        q = np.frombuffer(data, np.uint64, count=n * 3, offset=sec.offset).reshape(n, 3)
        w0, vals, sizes = q[:, 0], q[:, 1], q[:, 2]
        noff = (w0 & 0xFFFFFFFF).astype(np.int64)
        # defined (shndx != 0), named, NOTYPE/OBJECT/FUNC, value != 0
        keep = (w0 >> 48 != 0) & (noff > 0) & (noff < ss) & ((w0 >> 32) & 0xF <= STT_FUNC) & (vals != 0)
        # ".L" local labels; "$x", "$d": aarch64 mapping symbols, not names
        first = u8[so + np.minimum(noff, ss - 1)]
        second = u8[np.minimum(so + noff + 1, len(data) - 1)]
        keep &= (first != 0x24) & ~((first == 0x2E) & (second == 0x4C))
        out.append((so, ss, w0, vals.astype(np.int64), sizes.astype(np.int64), np.flatnonzero(keep)))
    return out, has_symtab or found


def _func_starts(raw: RawSyms) -> list[int]:
    """Sorted start addresses of the sized function symbols."""
    return _func_starts_array(raw).tolist()


def _func_starts_array(raw: RawSyms) -> np.ndarray:
    parts = [
        vals[keep][(sizes[keep] != 0) & ((w0[keep] >> 32) & 0xF == STT_FUNC)]
        for _so, _ss, w0, vals, sizes, keep in raw
    ]
    return np.sort(np.concatenate(parts)) if parts else np.zeros(0, np.int64)


def _sorted_symbol_arrays(raw: RawSyms) -> tuple[np.ndarray, ...]:
    """Columns sorted by (value, -size): value, size, file offset of the
    name, is-function."""
    vals = np.concatenate([v[k] for _so, _ss, _w, v, _s, k in raw]) if raw else np.zeros(0, np.uint64)
    sizes = np.concatenate([s[k] for _so, _ss, _w, _v, s, k in raw]) if raw else np.zeros(0, np.uint64)
    names = (
        np.concatenate([so + (w[k] & 0xFFFFFFFF).astype(np.int64) for so, _ss, w, _v, _s, k in raw])
        if raw
        else np.zeros(0, np.int64)
    )
    funcs = (
        np.concatenate([(w[k] >> 32) & 0xF == STT_FUNC for _so, _ss, w, _v, _s, k in raw])
        if raw
        else np.zeros(0, bool)
    )
    order = np.lexsort((-sizes, vals))
    return vals[order], sizes[order], names[order], funcs[order]


def _name_ends(img: Image) -> np.ndarray:
    """File offset of the NUL ending each symbol's name (every string
    table is NUL-terminated: _symbols checks it)."""
    names = img._sym_arrays[2]
    ends = np.zeros(len(names), np.int64)
    for so, ss, *_ in img._raw_syms:
        m = (names >= so) & (names < so + ss)
        nul = so + np.flatnonzero(img.u8[so : so + ss] == 0)
        ends[m] = nul[np.searchsorted(nul, names[m])]
    return ends


def _sorted_symbols(arrays: tuple[np.ndarray, ...]) -> dict[str, list[Any]]:
    """_sorted_symbol_arrays as parallel lists; plus the indexes of the
    sized functions."""
    vals, sizes, names, funcs = arrays
    return {
        "_sym_val": vals.tolist(),
        "_sym_size": sizes.tolist(),
        "_sym_name": names.tolist(),
        "_sym_func": funcs.tolist(),
    }
