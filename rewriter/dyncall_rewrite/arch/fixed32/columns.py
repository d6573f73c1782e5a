"""Column hooks shared by aarch64 and ppc64le: the rules of fixed32/backend.py over
whole numpy columns (see columns.py for the contract).

Instructions are 4-byte little-endian words, so nothing is decoded: an
instruction boundary is a 4-aligned address of file-backed executable code
(ppc64le: not the suffix word of a prefixed instruction), words are read
with vector gathers, and branches are found by the top byte of every word
of the code (FixedWidthBackend.branch_words, with the backend's own
top-byte class).  The per-arch rules (templates, decode_site,
site_alignment_problem, encode_branch) are in aarch64/columns.py and
ppc64le/columns.py.

Reads go through ``Image.file_offsets``, which equals the object path's
``Image.segment``-based reads only when the PT_LOAD segments are disjoint
and none has more file than memory bytes: otherwise every trampoline is
refused (the object path decides).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from dyncall_rewrite.arch import INSN_RECORD, CodeFacts, ColumnHooks, UnknownBranches
from dyncall_rewrite.arch.fixed32.backend import WORD
from dyncall_rewrite.vec import unique_sorted

if TYPE_CHECKING:
    from dyncall_rewrite.arch.fixed32.backend import FixedWidthBackend

INSN = INSN_RECORD
OP_NONE, OP_CALL, OP_JMP, OP_OTHER = 0, 1, 2, 3  # OP_OTHER: a direct branch that is not patchable
_SANE = 1 << 62  # addresses beyond this are never mapped (and a + n cannot wrap)


def sext(v: np.ndarray, bits: int) -> np.ndarray:
    """fixed32.sext over a column."""
    v = v & ((1 << bits) - 1)
    return v - ((v >> (bits - 1)) << bits)


def fits_branch(at: np.ndarray, dest: np.ndarray, reach: int) -> np.ndarray:
    """A word-aligned displacement in [-reach, reach): the fits26/fits24
    of aarch64/backend.py/ppc64le/backend.py over columns."""
    d = dest - at
    return (d % 4 == 0) & (d >= -reach) & (d < reach)


class Fixed32Columns(ColumnHooks):
    """The fixed-width parts; subclasses give the arch's rules."""

    # Does a word's boundary depend on the word before it (ppc64le's
    # prefixed instructions)?
    prefixed = False

    def __init__(self, be: FixedWidthBackend) -> None:
        self.be = be
        self.image = be.image
        self._u32: np.ndarray | None = None  # the file as words (when read at aligned offsets)
        segs = sorted(self.image.segments, key=lambda s: s.vaddr)
        self.exact = all(s.fend <= s.end for s in segs) and all(
            a.end <= b.vaddr for a, b in itertools.pairwise(segs)
        )
        # The top bytes FixedWidthBackend.branch_words looks at (its own
        # regular expression applied to every byte value).
        self._top = np.zeros(256, bool)
        for m in be.top_re.finditer(bytes(range(256))):
            self._top[m.start()] = True

    # -- words --------------------------------------------------------------
    def words(self, addr: np.ndarray, n: int, exec_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(readable, words): the n words at each address when file-backed
        (FixedWidthBackend.words / word; ``exec_only``: Image.is_exec),
        as an (len, n) int64 column of unsigned words."""
        addr = np.asarray(addr, np.int64)
        safe = np.where((addr >= 0) & (addr < _SANE), addr, -1)
        o = self.image.file_offsets(safe, WORD * n, exec_only)
        ok = o >= 0
        o = np.where(ok, o, 0)
        if not (o % WORD).any():  # aligned in the file too (the usual case): one gather of words
            if self._u32 is None:
                d = self.image.data
                self._u32 = np.frombuffer(d, "<u4", len(d) // WORD)
            w = self._u32[(o // WORD)[:, None] + np.arange(n)] if n > 1 else self._u32[o // WORD][:, None]
            return ok, w.astype(np.int64)
        raw = self.image.u8[o[:, None] + np.arange(WORD * n)]
        return ok, raw.view("<u4").astype(np.int64)

    def is_code_word(self, addr: np.ndarray) -> np.ndarray:
        """FixedWidthBackend.is_code_word per address."""
        ok, _ = self.words(addr, 1, exec_only=True)
        return ok & (addr % WORD == 0)

    # -- ColumnHooks ----------------------------------------------------------
    def site_lengths(self, op: np.ndarray) -> np.ndarray:
        return np.full(len(op), WORD, np.int64)

    def decode_functions(self, queries: np.ndarray, lengths: np.ndarray) -> CodeFacts | None:
        """FixedWidthBackend.decode_ranges / instruction_boundaries: a query
        is an instruction start when it is a code word.  A labelled site's
        range starts at its ``func``, which check_columns requires to be the
        function symbol before it: that start must be 4-aligned (else the
        object path's range is not ok), so a query after an unaligned
        function start is refused."""
        if not self.exact:
            return None
        fs = self.image.func_starts_array
        if len(fs) and len(queries):
            k = np.searchsorted(fs, queries, side="right") - 1
            if ((k >= 0) & (fs[np.maximum(k, 0)] % WORD != 0)).any():
                return None
        asked = unique_sorted(queries)
        starts = asked[self.is_code_word(asked)]
        insns = np.zeros(len(starts), INSN)
        insns["address"] = starts
        insns["size"] = WORD
        return CodeFacts(self.is_code_word(queries), insns, self, UnknownBranches(), asked)

    def nop_paddings(self, facts: CodeFacts, site: np.ndarray, func: np.ndarray) -> tuple[np.ndarray, ...]:
        """FixedWidthBackend.nop_padding: never any."""
        return site.copy(), np.zeros(len(site), np.int64)

    def decode_bytes(self, code: bytes, addr: int) -> np.ndarray | None:
        return None  # only asked about rewritten NOP runs, which these arches never have

    def rewrite_keeps_decode(
        self, facts: CodeFacts, addr: np.ndarray, old: np.ndarray, new: np.ndarray
    ) -> bool:
        """A boundary is a code word (address and segments only), and on
        ppc64le not the word after a prefix (primary opcode 1, the top 6
        bits of the word): a write keeping the top 6 bits of every word it
        touches changes none; on aarch64 no write does."""
        if not self.prefixed:
            return True
        top = (addr[:, None] + np.arange(old.shape[1])) % WORD == WORD - 1
        return bool(((old >> 2) == (new >> 2))[top].all())

    def table_writes_keep_decode(self, facts: CodeFacts, writes: list[tuple[np.ndarray, ...]]) -> bool:
        """The same rule for the writes to the table fields (GNU ld puts
        the tables in the text segment)."""
        return all(self.rewrite_keeps_decode(facts, a, o, n) for a, o, n in writes)

    # -- code search ----------------------------------------------------------
    def branch_words(self) -> tuple[np.ndarray, np.ndarray]:
        """FixedWidthBackend.branch_words as (address, word) columns."""
        a_l, w_l = [], []
        for base, code in self.be.exec_regions():
            w = np.frombuffer(code, "<u4").astype(np.int64)
            sel = np.flatnonzero(self._top[w >> 24])
            a_l.append(base + WORD * sel)
            w_l.append(w[sel])
        if not a_l:
            z = np.zeros(0, np.int64)
            return z, z
        return np.concatenate(a_l), np.concatenate(w_l)

    @staticmethod
    def _sorted(a: np.ndarray, op: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, ...]:
        order = np.argsort(a, kind="stable")
        return a[order], op[order].astype(np.int8), t[order]
