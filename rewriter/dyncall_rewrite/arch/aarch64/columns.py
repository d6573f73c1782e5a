"""aarch64 column hooks: the rules of aarch64/backend.py over numpy columns
(trampoline_fast, decode_site, site_alignment_problem, encode_branch,
find_branches_to)."""

from __future__ import annotations

import numpy as np

from dyncall_rewrite.arch import TrampColumns
from dyncall_rewrite.arch.aarch64.enc import (
    IMM26,
    INSN_B,
    INSN_BCOND,
    INSN_BL,
    INSN_BR_X16,
    INSN_CBZ,
    INSN_MOV_X16_X18,
    INSN_TBZ,
    MASK_B,
    MASK_BCOND,
    MASK_CBZ,
    MASK_TBZ,
    REACH,
    TRAMP_SIZE,
)
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
from dyncall_rewrite.vec import isin_sorted, le_bytes


class AArch64Columns(Fixed32Columns):
    def trampolines(self, tramp: np.ndarray, thunk: int | None) -> TrampColumns:
        """AArch64.trampoline_fast: `b <any>; mov x16, x18; br x16`."""
        ok, w = self.words(tramp, TRAMP_SIZE // WORD, exec_only=True)
        ok &= self.exact & (tramp % WORD == 0)
        ok &= (w[:, 1] == INSN_MOV_X16_X18) & (w[:, 2] == INSN_BR_X16)
        ok &= w[:, 0] & MASK_B == INSN_B
        branch = tramp + (sext(w[:, 0], 26) << 2)
        n = len(tramp)
        zero = np.zeros(n, np.int64)
        return TrampColumns(
            ok, np.full(n, TRAMP_SIZE, np.int64), tramp + WORD, branch, zero.astype(np.int8), zero
        )

    def sites(self, site: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """AArch64.decode_site where sites_fast calls it: bl (call) / b (jmp)."""
        ok, w = self.words(site, 1, exec_only=True)
        w = w[:, 0]
        ok &= (site != 0) & (site % WORD == 0)
        op = np.where(
            ok & (w & MASK_B == INSN_BL), OP_CALL, np.where(ok & (w & MASK_B == INSN_B), OP_JMP, OP_NONE)
        )
        return op.astype(np.int8), site + (sext(w, 26) << 2)

    def site_alignment_ok(self, site: np.ndarray, labelled: np.ndarray) -> np.ndarray:
        """FixedWidthBackend.site_alignment_problem: 4-byte aligned."""
        return site % WORD == 0

    def branch_in_range(self, at: np.ndarray, target: np.ndarray) -> np.ndarray:
        """AArch64.encode_branch is not None: aligned, within +-128 MiB."""
        return (at % WORD == 0) & fits_branch(at, target, REACH)

    def encode_branches(
        self, op: np.ndarray, at: np.ndarray, target: np.ndarray, old: np.ndarray
    ) -> np.ndarray:
        """AArch64.encode_branch: bl (call) / b (jmp) imm26."""
        opc = np.where(op == OP_CALL, INSN_BL, INSN_B)
        return le_bytes(opc | ((target - at) >> 2) & IMM26, WORD)

    def find_branches_to(self, targets: np.ndarray) -> tuple[np.ndarray, ...]:
        """AArch64.find_branches_to: b/bl (patchable), b.cond, cbz/cbnz,
        tbz/tbnz (OP_OTHER) whose target is in ``targets``."""
        a, w = self.branch_words()
        isb = w & MASK_B == INSN_B
        isbl = w & MASK_B == INSN_BL
        bcond = ~(isb | isbl) & (w & MASK_BCOND == INSN_BCOND)
        cbz = ~(isb | isbl | bcond) & (w & MASK_CBZ == INSN_CBZ)
        tbz = ~(isb | isbl | bcond | cbz) & (w & MASK_TBZ == INSN_TBZ)
        t = np.where(
            isb | isbl,
            a + (sext(w, 26) << 2),
            np.where(tbz, a + (sext(w >> 5, 14) << 2), a + (sext(w >> 5, 19) << 2)),
        )
        op = np.where(isbl, OP_CALL, np.where(isb, OP_JMP, OP_OTHER))
        m = (isb | isbl | bcond | cbz | tbz) & isin_sorted(t, targets)
        return self._sorted(a[m], op[m], t[m])
