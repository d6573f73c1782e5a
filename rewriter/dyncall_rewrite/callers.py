"""The caller table of a linked image: which of its direct calls and jumps
reach a patchable function, from the relocations ``--emit-relocs`` kept.

This is the rule of the runtime's caller table (runtime/prologue.c
``rela_sites`` with arch_caller_reloc and arch_branch_read of
runtime/arch/x86_64.c, aarch64.c and ppc64le.c; docs/prologues.md "Where
the call sites come from: the linker's relocations"), written once here
for ``list --prologues``:

1. every non-alloc ``SHT_RELA`` section whose ``sh_info`` section is
   executable and whose ``sh_link`` is a symbol table;
2. a relocation counts when its symbol is defined (not ``SHN_UNDEF``, not
   a reserved index), the bytes around its field lie in an executable
   segment, and
   - x86-64: its type is ``R_X86_64_PC32``, ``_PLT32``, ``_GOTPCRELX`` or
     ``_REX_GOTPCRELX`` and the byte before the field is ``e8`` (call) or
     ``e9`` (jmp): the site is that byte, and the branch must go to
     exactly S + A + 4;
   - aarch64: its type is ``R_AARCH64_CALL26`` or ``_JUMP26`` and the word
     at the field is a ``bl`` or ``b`` going to exactly S + A;
   - ppc64le: its type is ``R_PPC64_REL24`` (not ``_REL24_NOTOC``), the
     field is 4-aligned and not the suffix word of a prefixed instruction,
     the word there is a ``bl`` or ``b`` (AA = 0), and where it goes, read
     as the runtime reads it (a branch to g + 8 right after g's TOC
     set-up, ppc64le_gep.h, goes to "g"), is exactly S + A.  So a call the
     linker sent to f's local entry (the caller shares f's TOC) counts; a
     call through a linker stub (PLT, another TOC group, out of reach) does
     not, nor one into a global entry after a TOC set-up;
3. the destination is a patchable function the runtime registers with
   status OK (``caller_callees``: the ``hookable`` records);
4. one site per address (two relocations of one field count once).

``caller_counts`` returns None for an image linked without the
relocations (the runtime's ``DYNCALL_ERR_NORELOCS``).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

from dyncall_rewrite.elf import PF_X, SHF_ALLOC, SHT_DYNSYM, SHT_SYMTAB, Image

if TYPE_CHECKING:
    from dyncall_rewrite.arch import Backend
    from dyncall_rewrite.model import Analysis

SHT_RELA = 4
SHF_EXECINSTR = 4
SHN_LORESERVE = 0xFF00
_SHDR = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_RELA = np.dtype([("offset", "<u8"), ("info", "<u8"), ("addend", "<i8")])
_SYM = np.dtype(
    [("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"), ("value", "<u8"), ("size", "<u8")]
)

# x86-64 (runtime/arch/x86_64.c arch_caller_reloc)
_X86_TYPES = (2, 4, 41, 42)  # R_X86_64_PC32, _PLT32, _GOTPCRELX, _REX_GOTPCRELX
_X86_CALL, _X86_JMP = 0xE8, 0xE9
# aarch64 (runtime/arch/aarch64.c arch_caller_reloc)
_A64_TYPES = (282, 283)  # R_AARCH64_JUMP26, _CALL26
_A64_MASK_B, _A64_BL, _A64_B = 0xFC000000, 0x94000000, 0x14000000
# ppc64le (runtime/arch/ppc64le.c arch_caller_reloc, arch_branch_read)
_PPC_REL24 = 10  # R_PPC64_REL24
_PPC_MASK_B, _PPC_BL, _PPC_B = 0xFC000003, 0x48000001, 0x48000000  # opcode, AA, LK
_PPC_LI24 = 0x03FFFFFC
_PPC_PREFIX = 1  # primary opcode of a prefixed instruction's prefix word
_PPC_LOCAL_ENTRY = 8  # past a global entry's TOC set-up

_M64 = (1 << 64) - 1


def _shdrs(img: Image) -> list[tuple[int, ...]]:
    data = img.data
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shentsize = int.from_bytes(data[0x3A:0x3C], "little")
    shnum = int.from_bytes(data[0x3C:0x3E], "little")
    if shentsize != _SHDR.size or shoff + shnum * _SHDR.size > len(data):
        return []
    return [_SHDR.unpack_from(data, shoff + i * _SHDR.size) for i in range(shnum)]


def _exec_mask(img: Image, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """[lo, hi) inside one executable PT_LOAD segment's file-backed part."""
    ok = np.zeros(len(lo), bool)
    for s in img.segments:
        if s.flags & PF_X:
            ok |= (lo >= s.vaddr) & (hi <= s.fend)
    return ok


def _file_offsets(img: Image, addrs: np.ndarray) -> np.ndarray:
    """File offsets of addresses known to be in executable segments."""
    off = np.zeros(len(addrs), np.int64)
    for s in img.segments:
        if s.flags & PF_X:
            m = (addrs >= s.vaddr) & (addrs < s.fend)
            off[m] = (addrs[m] - s.vaddr + s.offset).astype(np.int64)
    return off


def has_relocs(img: Image) -> bool:
    """Does the image keep relocations of its code (``--emit-relocs``)?"""
    shs = _shdrs(img)
    return any(_code_rela(shs, i) for i in range(len(shs)))


def _code_rela(shs: list[tuple[int, ...]], i: int) -> bool:
    _, typ, flags, _, _, _, link, info, _, entsize = shs[i]
    return (
        typ == SHT_RELA
        and not flags & SHF_ALLOC
        and entsize == _RELA.itemsize
        and info < len(shs)
        and bool(shs[info][2] & SHF_EXECINSTR)
        and link < len(shs)
        and shs[link][1] in (SHT_SYMTAB, SHT_DYNSYM)
    )


def caller_callees(an: Analysis) -> set[int]:
    """The functions a listed site may call (rule 3): those the runtime
    registers with status OK, the records its probe accepts (``hookable``,
    the backends' prologue_hookable: x86-64, aarch64 and ppc64le's
    ``__patchable_function_entries`` layouts, ppc64le's XRay entry sleds)."""
    return {p.function for p in an.prologues if p.function is not None and p.state == "ok" and p.hookable}


def _ppc_sites(
    img: Image,
    be: Backend,
    u8: np.ndarray,
    field: np.ndarray,
    typ: np.ndarray,
    ok: np.ndarray,
    fns: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """ppc64le (rule 2): the kept relocations' sites, where each goes as the
    runtime reads it, and which of ``field`` they are (a mask).  The TOC
    set-up before a destination is read only where the destination or the
    word 8 bytes before it is one of ``fns`` (no other site can count)."""
    ok = ok & (typ == _PPC_REL24) & (field % np.uint64(4) == 0)
    ok &= _exec_mask(img, field, field + np.uint64(4))
    idx = np.flatnonzero(ok)
    site = field[idx]
    off = _file_offsets(img, site)
    word = _u32(u8, off)
    keep = ((word & _PPC_MASK_B) == _PPC_BL) | ((word & _PPC_MASK_B) == _PPC_B)
    # the suffix of a prefixed instruction (one never crosses 64 bytes)
    inner = (site % np.uint64(64) != 0) & _exec_mask(img, site - np.uint64(4), site)
    prev = _u32(u8, np.where(inner, off - 4, off))
    keep &= ~(inner & ((prev >> 26) == _PPC_PREFIX))
    idx, site, word = idx[keep], site[keep], word[keep]
    li = word & _PPC_LI24
    li = np.where(li >= 1 << 25, li - (1 << 26), li)
    raw = (site.astype(np.int64) + li).astype(np.uint64)
    dest = raw.copy()
    g = raw - np.uint64(_PPC_LOCAL_ENTRY)
    near = (raw >= _PPC_LOCAL_ENTRY) & (np.isin(raw, fns) | np.isin(g, fns))
    for k in np.flatnonzero(near).tolist():
        if be.local_entry(int(g[k])) == int(raw[k]):
            dest[k] = g[k]
    mask = np.zeros(len(field), bool)
    mask[idx] = True
    return site, dest, mask


def _u32(u8: np.ndarray, off: np.ndarray) -> np.ndarray:
    """The little-endian words at file offsets ``off``."""
    w = np.zeros(len(off), np.int64)
    for k in range(4):
        w |= u8[off + k].astype(np.int64) << (8 * k)
    return w


def caller_sites(img: Image, be: Backend, functions: set[int]) -> dict[int, int] | None:
    """The listed caller sites of the image: site address -> callee, for
    the callees in ``functions`` (the hookable patchable functions).  None
    when the image has no caller table (no relocations of its code)."""
    arch = be.name
    shs = _shdrs(img)
    data = img.data
    u8 = np.frombuffer(data, np.uint8)
    found = False
    sites: dict[int, int] = {}
    fns = np.array(sorted(functions), np.uint64)
    for i in range(len(shs)):
        if not _code_rela(shs, i):
            continue
        found = True
        _, _, _, _, roff, rsize, link, _, _, _ = shs[i]
        _, _, _, _, soff, ssize, _, _, _, _ = shs[link]
        if roff + rsize > len(data) or soff + ssize > len(data):
            continue
        r = np.frombuffer(data, _RELA, count=rsize // _RELA.itemsize, offset=roff)
        syms = np.frombuffer(data, _SYM, count=ssize // _SYM.itemsize, offset=soff)
        sym = (r["info"] >> np.uint64(32)).astype(np.int64)
        typ = (r["info"] & np.uint64(0xFFFFFFFF)).astype(np.int64)
        ok = (sym != 0) & (sym < len(syms))
        sym = np.where(ok, sym, 0)
        shndx = syms["shndx"][sym]
        ok &= (shndx != 0) & (shndx < SHN_LORESERVE)
        field = r["offset"]
        if arch == "x86_64":
            ok &= np.isin(typ, _X86_TYPES)
            site = field - np.uint64(1)
            ok &= _exec_mask(img, site, field + np.uint64(4))
            site, field, sym, addend = site[ok], field[ok], sym[ok], r["addend"][ok]
            off = _file_offsets(img, site)
            op = u8[off]
            keep = (op == _X86_CALL) | (op == _X86_JMP)
            site, off, sym, addend = site[keep], off[keep], sym[keep], addend[keep]
            rel = _u32(u8, off + 1)
            rel = np.where(rel >= 1 << 31, rel - (1 << 32), rel)
            dest = (site.astype(np.int64) + 5 + rel).astype(np.uint64)
            bias = 4
        elif arch == "ppc64le":
            site, dest, kept = _ppc_sites(img, be, u8, field, typ, ok, fns)
            sym, addend = sym[kept], r["addend"][kept]
            bias = 0
        else:
            ok &= np.isin(typ, _A64_TYPES) & (field % np.uint64(4) == 0)
            ok &= _exec_mask(img, field, field + np.uint64(4))
            site, sym, addend = field[ok], sym[ok], r["addend"][ok]
            word = _u32(u8, _file_offsets(img, site))
            keep = ((word & _A64_MASK_B) == _A64_BL) | ((word & _A64_MASK_B) == _A64_B)
            site, word, sym, addend = site[keep], word[keep], sym[keep], addend[keep]
            imm = word & 0x3FFFFFF
            imm = np.where(imm >= 1 << 25, imm - (1 << 26), imm)
            dest = (site.astype(np.int64) + 4 * imm).astype(np.uint64)
            bias = 0
        want = (syms["value"][sym] + addend.astype(np.uint64) + np.uint64(bias)) & np.uint64(_M64)
        keep = (dest == want) & np.isin(dest, fns)
        for s, d in zip(site[keep].tolist(), dest[keep].tolist(), strict=True):
            sites[s] = d
    return sites if found else None


def caller_counts(img: Image, be: Backend, functions: set[int]) -> dict[int, int] | None:
    """Listed caller sites per function (every one of ``functions`` present,
    0 if none), or None when the image has no caller table."""
    sites = caller_sites(img, be, functions)
    if sites is None:
        return None
    counts = dict.fromkeys(functions, 0)
    for callee in sites.values():
        counts[callee] += 1
    return counts
