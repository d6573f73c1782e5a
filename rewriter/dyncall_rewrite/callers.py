"""The caller table of a linked image: which of its direct calls and jumps
reach a patchable function, from the relocations ``--emit-relocs`` kept.

This is the rule of the runtime's caller table (runtime/prologue.c
``rela_sites`` with arch_caller_reloc of runtime/arch/x86_64.c and
aarch64.c; docs/prologues.md "Where the call sites come from: the
linker's relocations"), written once here for ``list --prologues``:

1. every non-alloc ``SHT_RELA`` section whose ``sh_info`` section is
   executable and whose ``sh_link`` is a symbol table;
2. a relocation counts when its symbol is defined (not ``SHN_UNDEF``, not
   a reserved index), the bytes around its field lie in an executable
   segment, and, on x86-64, its type is ``R_X86_64_PC32``, ``_PLT32``,
   ``_GOTPCRELX`` or ``_REX_GOTPCRELX`` and the byte before the field is
   ``e8`` (call) or ``e9`` (jmp): the site is that byte, and the branch
   must go to exactly S + A + 4; on aarch64, its type is
   ``R_AARCH64_CALL26`` or ``_JUMP26`` and the word at the field is a
   ``bl`` or ``b`` going to exactly S + A;
3. the destination is a patchable function the runtime registers with
   status OK (``caller_callees``);
4. one site per address (two relocations of one field count once).

ppc64le has no caller table (the runtime's ``dyncall_fn_callers`` says
``DYNCALL_ERR_UNSUPPORTED``): ``caller_counts`` returns None there, as it
does for an image linked without the relocations.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

from dyncall_rewrite.elf import PF_X, SHF_ALLOC, SHT_DYNSYM, SHT_SYMTAB, Image

if TYPE_CHECKING:
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
    registers with status OK.  x86-64: the valid records of its layout
    (``hookable``); aarch64: every valid record (the records of another
    layout fail check, and the rewriter keeps ``hookable`` for x86-64's
    layout only)."""
    return {
        p.function
        for p in an.prologues
        if p.function is not None and p.state == "ok" and (p.hookable or an.backend.name == "aarch64")
    }


def caller_sites(img: Image, arch: str, functions: set[int]) -> dict[int, int] | None:
    """The listed caller sites of the image: site address -> callee, for
    the callees in ``functions`` (the hookable patchable functions).  None
    when the image has no caller table: no relocations of its code, or an
    arch without one (ppc64le)."""
    if arch not in ("x86_64", "aarch64"):
        return None
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
            rel = np.zeros(len(off), np.int64)
            for k in range(4):
                rel |= u8[off + 1 + k].astype(np.int64) << (8 * k)
            rel = np.where(rel >= 1 << 31, rel - (1 << 32), rel)
            dest = (site.astype(np.int64) + 5 + rel).astype(np.uint64)
            bias = 4
        else:
            ok &= np.isin(typ, _A64_TYPES) & (field % np.uint64(4) == 0)
            ok &= _exec_mask(img, field, field + np.uint64(4))
            site, sym, addend = field[ok], sym[ok], r["addend"][ok]
            off = _file_offsets(img, site)
            word = np.zeros(len(off), np.int64)
            for k in range(4):
                word |= u8[off + k].astype(np.int64) << (8 * k)
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


def caller_counts(img: Image, arch: str, functions: set[int]) -> dict[int, int] | None:
    """Listed caller sites per function (every one of ``functions`` present,
    0 if none), or None when the image has no caller table."""
    sites = caller_sites(img, arch, functions)
    if sites is None:
        return None
    counts = dict.fromkeys(functions, 0)
    for callee in sites.values():
        counts[callee] += 1
    return counts
