"""What aarch64 and ppc64le share: 4-byte, 4-aligned little-endian
instruction words.

Instruction boundaries are then arithmetic (a 4-aligned address in
executable code; ppc64le also excludes the suffix word of a prefixed
instruction), so nothing is decoded from a function start: a labelled
site's "stream" is just its own word.  Code is searched for branches by
looking at the top byte of every word (``code[3::4]``, where the primary
opcode lives) with a regular expression, then decoding the few words it
matches.  capstone only renders instructions for messages.
"""

from __future__ import annotations

import re
import struct

import capstone

from dyncall_rewrite.arch import PROLOGUE_SCAN, Backend, Stream
from dyncall_rewrite.elf import PF_X, Image

WORD = 4
_U32 = struct.Struct("<I")
SHF_ALLOC, SHF_EXECINSTR, SHT_NOBITS = 0x2, 0x4, 8


def sext(v: int, bits: int) -> int:
    """Sign-extend the low ``bits`` bits of v."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


class FixedWidthBackend(Backend):
    """Backend helpers for a 4-byte fixed-width ISA (not a backend itself)."""

    site_size = WORD
    nop: int  # the canonical NOP word
    # Top bytes of the words find_branches_to decodes (primary opcodes of
    # the arch's direct branches), as a regular-expression character class.
    branch_top_bytes: bytes
    _cs_arch: int
    _cs_mode: int

    def __init__(self, image: Image) -> None:
        super().__init__(image)
        self._md = capstone.Cs(self._cs_arch, self._cs_mode)
        self.top_re = re.compile(b"[" + self.branch_top_bytes + b"]")

    # -- trampolines -------------------------------------------------------
    def tramp_branch_word(self, addr: int, size: int, slow: bytes, mask: int, insn: int) -> int | None:
        """The fast proof's first look at a trampoline: ``addr`` aligned, the
        ``size`` bytes in one executable segment, its slow path the ``slow``
        bytes after the branch word; the branch word when it is
        ``insn`` under ``mask``, else None."""
        img = self.image
        s = img.segment(addr)
        if s is None or not s.flags & PF_X or addr % WORD or addr + size > s.fend:
            return None
        off = s.offset + addr - s.vaddr
        d = img.data
        if d[off + WORD : off + WORD + len(slow)] != slow:
            return None
        w = int.from_bytes(d[off : off + WORD], "little")
        return w if w & mask == insn else None

    # -- patchable prologues ---------------------------------------------
    prologue_align = WORD
    prologue_pads: dict[int, str]  # landing-pad words: their names

    def prologue_run(self, addr: int) -> list[tuple[int, int, str]]:
        out: list[tuple[int, int, str]] = []
        if addr % WORD:
            return out
        for a in range(addr, addr + PROLOGUE_SCAN, WORD):
            w = self.word(a) if self.image.is_exec(a, WORD) else None
            if w == self.nop:
                out.append((a, WORD, "nop"))
            elif w is not None and w in self.prologue_pads:
                out.append((a, WORD, self.prologue_pads[w]))
            else:
                break
        return out

    # -- words ------------------------------------------------------------
    def word(self, addr: int) -> int | None:
        """The instruction word at addr (None when unmapped)."""
        b = self.image.read(addr, WORD)
        return None if b is None else _U32.unpack(b)[0]

    def words(self, addr: int, n: int) -> tuple[int, ...] | None:
        b = self.image.read(addr, WORD * n)
        return None if b is None else struct.unpack(f"<{n}I", b)

    def is_code_word(self, addr: int) -> bool:
        """Is addr the start of an instruction word of executable code?"""
        return addr % WORD == 0 and self.image.is_exec(addr, WORD)

    def exec_regions(self) -> list[tuple[int, bytes]]:
        """(vaddr, bytes) of executable code, from a 4-aligned start:
        SHF_EXECINSTR sections when section headers exist, else PF_X
        segments."""
        img = self.image
        out = []
        for s in img.sections:
            if s.flags & SHF_EXECINSTR and s.flags & SHF_ALLOC and s.type != SHT_NOBITS and s.size:
                b = img.read(s.addr, s.size)
                if b is not None and img.is_exec(s.addr, s.size):
                    out.append((s.addr, b))
        if not out:
            for seg in img.segments:
                if seg.flags & PF_X and seg.filesz:
                    out.append((seg.vaddr, bytes(img.data[seg.offset : seg.offset + seg.filesz])))
        aligned = []
        for base, code in out:
            skip = -base % WORD
            code = code[skip:]
            aligned.append((base + skip, code[: len(code) - len(code) % WORD]))
        return aligned

    def branch_words(self) -> list[tuple[int, int]]:
        """(address, word) of every word of executable code whose top byte
        is a branch opcode (``branch_top_bytes``)."""
        out = []
        unpack = _U32.unpack_from
        for base, code in self.exec_regions():
            for m in self.top_re.finditer(code[3::4]):
                off = m.start() * WORD
                out.append((base + off, unpack(code, off)[0]))
        return out

    # -- Backend contract, fixed-width parts ----------------------------
    def instruction_boundaries(self, addrs: list[int]) -> set[int]:
        return {a for a in addrs if self.is_code_word(a)}

    def decode_ranges(self, ranges: list[tuple[int, int]]) -> list[Stream]:
        """Every [func, site + 4) range becomes a stream holding only its
        last word: with fixed-width instructions, "site is an instruction
        boundary of its function" is "site is a code word" (plus, on
        ppc64le, not the suffix of a prefixed instruction)."""
        out = []
        for start, end in ranges:
            last = end - WORD
            ok = start % WORD == 0 and start <= last and self.instruction_boundaries([last]) == {last}
            out.append(Stream(start, end, [(0, last, WORD)] if ok else [], ok))
        return out

    def nop_padding(self, stream: Stream, site: int) -> tuple[int, int] | None:
        return None  # no compiler padding: every site is aligned by construction

    def branch_targets(self, stream: Stream) -> set[int]:
        return set()

    def canonical_nops(self, n: int) -> bytes:
        return _U32.pack(self.nop) * (n // WORD)

    def site_alignment_problem(self, site: int, compiler_labelled: bool) -> tuple[str, str] | None:
        if site % WORD:
            return ("DC023", f"site 0x{site:x} is not 4-byte aligned: it cannot be an instruction")
        return None

    def describe(self, addr: int, n: int = 16) -> str:
        b = self.image.read(addr, WORD)
        if b is None:
            return "<unmapped>"
        for _, _, mn, ops in self._md.disasm_lite(b, addr, 1):
            return f"{mn} {ops}".strip()
        return f"invalid word {_U32.unpack(b)[0]:08x}"
