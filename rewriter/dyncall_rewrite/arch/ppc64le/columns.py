"""ppc64le column hooks: the rules of ppc64le/backend.py over numpy columns
(trampoline_fast with DC017/DC053, decode_site through the TOC-save stub,
the TOC rule DC025 of site_alignment_problem, encode_branch to a local
entry, find_branches_to with its stubs).  Sites are never patched
(``patches_sites`` is False), so relax over columns only writes
trampolines and flags."""

from __future__ import annotations

import numpy as np

from dyncall_rewrite.arch import TrampColumns
from dyncall_rewrite.arch.fixed32.backend import WORD
from dyncall_rewrite.arch.fixed32.columns import (
    OP_CALL,
    OP_JMP,
    OP_NONE,
    OP_OTHER,
    Fixed32Columns,
    fits_branch,
    sext,
)
from dyncall_rewrite.arch.ppc64le.enc import (
    INSN_ADD_R2_R2_R12,
    INSN_ADDI_R2_R2,
    INSN_ADDIS_R2_R12,
    INSN_B,
    INSN_BCTR,
    INSN_BL,
    INSN_LD_R2,
    INSN_LD_R2_M8_R12,
    INSN_LIS_R2,
    INSN_MR_R12_R11,
    INSN_MTCTR_R11,
    INSN_STD_R2,
    LI24,
    LOCAL_ENTRY,
    MASK_B,
    MASK_HI16,
    OPCD_BC,
    OPCD_PREFIX,
    REACH,
    TRAMP_SIZE,
)
from dyncall_rewrite.vec import isin_sorted, le_bytes


class PPC64LEColumns(Fixed32Columns):
    prefixed = True

    # -- TOC and prefix rules (PPC64LE.has_toc_prologue, is_suffix, _stub_target)
    def has_toc_prologue(self, f: np.ndarray) -> np.ndarray:
        ok, w = self.words(f, 2)
        hi = w[:, 0] & MASK_HI16
        addi = ((hi == INSN_ADDIS_R2_R12) | (hi == INSN_LIS_R2)) & (w[:, 1] & MASK_HI16 == INSN_ADDI_R2_R2)
        large = (w[:, 0] == INSN_LD_R2_M8_R12) & (w[:, 1] == INSN_ADD_R2_R2_R12)
        return ok & (f % WORD == 0) & (addi | large)

    def is_suffix(self, addr: np.ndarray) -> np.ndarray:
        ok, w = self.words(addr - WORD, 1)
        return (addr % 64 != 0) & ok & (w[:, 0] >> 26 == OPCD_PREFIX)

    def is_code_word(self, addr: np.ndarray) -> np.ndarray:
        return super().is_code_word(addr) & ~self.is_suffix(addr)

    def stub_target(self, stub: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(is a stub, its trampoline) of `std r2,24(r1); b tramp` at each address."""
        ok, w = self.words(stub, 2)
        ok &= (stub % WORD == 0) & (w[:, 0] == INSN_STD_R2) & (w[:, 1] & MASK_B == INSN_B)
        return ok, stub + WORD + sext(w[:, 1] & LI24, 26)

    # -- ColumnHooks ------------------------------------------------------------
    def trampolines(self, tramp: np.ndarray, thunk: int | None) -> TrampColumns:
        """PPC64LE.trampoline_fast: `b <any>; mtctr r11; mr r12, r11; bctr`,
        not a prefix's suffix, not branching onto a global entry; the
        branch to T+8 after a TOC prologue read back as T."""
        ok, w = self.words(tramp, TRAMP_SIZE // WORD, exec_only=True)
        ok &= self.exact & (tramp % WORD == 0)
        ok &= (w[:, 1] == INSN_MTCTR_R11) & (w[:, 2] == INSN_MR_R12_R11) & (w[:, 3] == INSN_BCTR)
        ok &= (w[:, 0] & MASK_B == INSN_B) & ~self.is_suffix(tramp)
        raw = tramp + sext(w[:, 0] & LI24, 26)
        ok &= ~((raw != tramp + WORD) & self.has_toc_prologue(raw))
        branch = np.where(self.has_toc_prologue(raw - LOCAL_ENTRY), raw - LOCAL_ENTRY, raw)
        n = len(tramp)
        zero = np.zeros(n, np.int64)
        return TrampColumns(
            ok, np.full(n, TRAMP_SIZE, np.int64), tramp + WORD, branch, zero.astype(np.int8), zero
        )

    def sites(self, site: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """PPC64LE.decode_site where sites_fast calls it: a bl is a call
        (to the trampoline behind its TOC-save stub when there is one), a
        b a jmp."""
        ok, w = self.words(site, 1, exec_only=True)
        w = w[:, 0]
        ok &= (site != 0) & (site % WORD == 0) & ~self.is_suffix(site) & (w & 0xFC000002 == INSN_B)
        t = site + sext(w & LI24, 26)
        lk = w & 1 != 0
        via_ok, via = self.stub_target(t)
        op = np.where(ok, np.where(lk, OP_CALL, OP_JMP), OP_NONE)
        return op.astype(np.int8), np.where(lk & via_ok, via, t)

    def site_ops(self, kind: np.ndarray) -> np.ndarray:
        """PPC64LE.site_op: `bl` whatever the kind."""
        return np.full(len(kind), OP_CALL, np.int64)

    def site_alignment_ok(self, site: np.ndarray, labelled: np.ndarray) -> np.ndarray:
        """PPC64LE.site_alignment_problem is None: aligned, and (when the two
        words are readable) the TOC rule DC025: a bl to a TOC-save stub,
        not a b, followed by `ld r2, 24(r1)`."""
        ok, w = self.words(site, 2)
        w0, w1 = w[:, 0], w[:, 1]
        stub_ok, _ = self.stub_target(site + sext(w0 & LI24, 26))
        problem = (w0 & MASK_B == INSN_BL) & ~stub_ok
        problem |= w0 & MASK_B == INSN_B
        problem |= w1 != INSN_LD_R2
        return (site % WORD == 0) & ~(ok & problem)

    def branch_in_range(self, at: np.ndarray, target: np.ndarray) -> np.ndarray:
        """PPC64LE.encode_branch is not None: T has the TOC prologue and its
        local entry T+8 is within +-32 MiB."""
        return (at % WORD == 0) & self.has_toc_prologue(target) & fits_branch(at, target + LOCAL_ENTRY, REACH)

    def encode_branches(
        self, op: np.ndarray, at: np.ndarray, target: np.ndarray, old: np.ndarray
    ) -> np.ndarray:
        """PPC64LE.encode_branch: b (jmp) / bl (call) to T+8."""
        opc = np.where(op == OP_CALL, INSN_BL, INSN_B)
        return le_bytes(opc | (target + LOCAL_ENTRY - at) & LI24, WORD)

    def find_branches_to(self, targets: np.ndarray) -> tuple[np.ndarray, ...]:
        """PPC64LE.find_branches_to: the b/bl/bc (AA = 0) to a target that
        are not a TOC-save stub's b, and every bl to such a stub."""
        a, w = self.branch_words()
        opcd = w >> 26
        is18 = (opcd == 18) & (w & 2 == 0)
        is16 = (opcd == OPCD_BC) & (w & 2 == 0)
        t = np.where(is18, a + sext(w & LI24, 26), a + sext(w & 0xFFFC, 16))
        op = np.where(is18, np.where(w & 1 != 0, OP_CALL, OP_JMP), OP_OTHER)
        m = np.flatnonzero((is18 | is16) & isin_sorted(t, targets))
        m = m[~self.is_suffix(a[m])]
        am, opm, tm = a[m], op[m], t[m]
        prev_ok, prev = self.words(am - WORD, 1)
        stub = (opm == OP_JMP) & prev_ok & (prev[:, 0] == INSN_STD_R2)
        ca, cop, ct = [am[~stub]], [opm[~stub]], [tm[~stub]]
        if stub.any():
            keys, first = np.unique(am[stub] - WORD, return_index=True)
            vals = tm[stub][first]
            s = a + sext(w & LI24, 26)
            hit = np.flatnonzero((w & MASK_B == INSN_BL) & isin_sorted(s, keys))
            hit = hit[~self.is_suffix(a[hit])]
            ca.append(a[hit])
            cop.append(np.full(len(hit), OP_CALL, np.int64))
            ct.append(vals[np.searchsorted(keys, s[hit])])
        return self._sorted(np.concatenate(ca), np.concatenate(cop), np.concatenate(ct))
