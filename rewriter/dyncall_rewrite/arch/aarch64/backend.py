"""aarch64 backend.

Trampoline (docs/abi.md, include/dyncall/abi.h; runtime/arch/aarch64.c
arch_tramp_slow), 4-byte aligned, no padding::

    tramp:  14000001   b slow            <- one aligned 32-bit store retargets it
    slow:   aa1203f0   mov x16, x18      (a `bti c` pad accepts br x16, not br x18)
            d61f0200   br x16

or, for a conditional site (DYNCALL_KIND_COND, docs/hooks.md), the null
test first::

    slow:   b4000072   cbz x18, 1f
            aa1203f0   mov x16, x18
            d61f0200   br x16
    1:      d65f03c0   ret

A site is ``bl tramp`` (call) or ``b tramp`` (tail), imm26: +-128 MiB.  GCC
labels its sites; Clang leaves ``site == 0`` and the runtime discovers the
``bl`` from ``x30 - 4``.  Every word is aligned, so there is no alignment
condition beyond that and no NOP padding.

Link-time resolution writes ``b T`` at the trampoline and ``bl T`` / ``b T``
at the site, only when T is within +-128 MiB (beyond, the runtime's far
stub ``ldr x16, lit; br x16`` is needed, so the entry stays slow and that is
not an error).  BTI: trampolines, sites and a resolved T are all entered by
direct branches, which BTI does not check, so no landing pad is required
anywhere on these paths (T's own `bti c` / `paciasp`, if any, is a NOP for
a direct branch); the slow path's ``br x16`` is accepted by T's `bti c`.
"""

from __future__ import annotations

import capstone

from dyncall_rewrite.arch import Branch, ColumnHooks, Trampoline
from dyncall_rewrite.arch.aarch64.enc import (
    COND_TRAMP_SIZE,
    IMM26,
    INSN_B,
    INSN_BCOND,
    INSN_BL,
    INSN_BR_X16,
    INSN_BTI_C,
    INSN_CBZ,
    INSN_CBZ_X18_12,
    INSN_MOV_X16_X18,
    INSN_NOP,
    INSN_RET,
    INSN_TBZ,
    MASK_B,
    MASK_BCOND,
    MASK_CBZ,
    MASK_TBZ,
    PROLOGUE_ENTRY,
    PROLOGUE_PADS,
    PROLOGUE_PRE,
    REACH,
    SLOW,
    TRAMP_SIZE,
)
from dyncall_rewrite.arch.fixed32.backend import WORD, FixedWidthBackend, sext
from dyncall_rewrite.elf import Image

_CS_ARCH = getattr(capstone, "CS_ARCH_ARM64", None) or capstone.CS_ARCH_AARCH64


def fits26(at: int, dest: int) -> bool:
    d = dest - at
    return d % 4 == 0 and -REACH <= d < REACH


class AArch64(FixedWidthBackend):
    name = "aarch64"
    has_cond = True
    far_target_is_error = False
    op_names = {"call": "bl", "jmp": "b"}  # noqa: RUF012
    nop = INSN_NOP
    prologue_pads = PROLOGUE_PADS
    # b/bl (0x14-0x17, 0x94-0x97), b.cond (0x54), cbz/cbnz and tbz/tbnz
    # (0x34-0x37, 0xb4-0xb7): the direct branches that can reach a trampoline.
    branch_top_bytes = b"\x14-\x17\x94-\x97\x54\x34-\x37\xb4-\xb7"
    _cs_arch = _CS_ARCH
    _cs_mode = capstone.CS_MODE_ARM

    def __init__(self, image: Image) -> None:
        super().__init__(image)

    def column_hooks(self) -> ColumnHooks:
        from dyncall_rewrite.arch.aarch64.columns import AArch64Columns

        return AArch64Columns(self)

    # -- patchable prologues ---------------------------------------------
    prologue_entry_bytes = PROLOGUE_ENTRY

    def prologue_hookable(self, rec: int, f: int, body: int) -> bool:
        """What arch_fentry_probe accepts (runtime/arch/aarch64_prologue.c):
        two NOPs at an 8-aligned record (the slot: one aligned store), the
        function right after them, `bti c` (not `bti jc`) or nothing at its
        entry, then two NOPs.  A misaligned record is refused by the
        runtime (DYNCALL_ERR_ALIGN) but is no error of the file: plain
        Clang aligns functions to 4 and another patcher may not need 8
        (dyncall-cc adds -falign-functions=8; the GCC plugin aligns cold
        functions too), so it is ``hookable=no``, not DC062 as on x86-64."""
        nops = (INSN_NOP, INSN_NOP)
        return (
            f - rec == PROLOGUE_PRE
            and rec % self.prologue_slot_align == 0
            and self.words(rec, 2) == nops
            and (body == f or self.word(f) == INSN_BTI_C)
            and self.words(body, 2) == nops
        )

    # -- trampolines ----------------------------------------------------
    def read_trampoline(self, addr: int, retpoline_thunk: int | None) -> Trampoline:
        problems: list[tuple[str, str]] = []
        t = Trampoline(addr, TRAMP_SIZE, None, addr + WORD, None, None, problems)
        if addr % WORD:
            problems.append(("DC011", f"trampoline entry 0x{addr:x} is not 4-byte aligned"))
            return t
        w = self.words(addr, 3)
        if w is None or w[0] & MASK_B != INSN_B:
            problems.append(("DC014", f"patchable branch is `{self.describe(addr)}`, not `b` (14xxxxxx)"))
            return t
        t.branch_target = addr + (sext(w[0], 26) << 2)
        if w[1] == INSN_CBZ_X18_12:
            return self._read_cond_trampoline(t)
        if w[1] == INSN_MOV_X16_X18 and w[2] == INSN_BR_X16:
            t.slow = "plain"
        else:
            bad = addr + WORD if w[1] != INSN_MOV_X16_X18 else addr + 2 * WORD
            problems.append(
                (
                    "DC013",
                    f"slow path has `{self.describe(bad)}`, not `mov x16, x18; br x16`"
                    " (aa1203f0 d61f0200: a BTI landing pad accepts br x16, not br x18)",
                )
            )
        return t

    def _read_cond_trampoline(self, t: Trampoline) -> Trampoline:
        """A conditional trampoline's slow path: after its `cbz x18`, the
        plain slow path, then `ret`."""
        t.cond, t.size = True, COND_TRAMP_SIZE
        w = self.words(t.addr + 2 * WORD, 3)
        if w is not None and list(w) == [INSN_MOV_X16_X18, INSN_BR_X16, INSN_RET]:
            t.slow = "plain"
        else:
            t.problems.append(
                (
                    "DC013",
                    "conditional slow path is not `cbz x18, 1f; mov x16, x18; br x16; 1: ret`"
                    " (b4000072 aa1203f0 d61f0200 d65f03c0)",
                )
            )
        return t

    def trampoline_fast(self, addr: int, retpoline_thunk: int | None) -> Trampoline | None:
        w = self.tramp_branch_word(addr, TRAMP_SIZE, SLOW, MASK_B, INSN_B)
        if w is None:
            return None
        return Trampoline(addr, TRAMP_SIZE, addr + (sext(w, 26) << 2), addr + WORD, "plain", None, [])

    # -- sites ------------------------------------------------------------
    def decode_site(self, addr: int) -> Branch | None:
        if addr % WORD:
            return None
        w = self.word(addr)
        if w is None:
            return None
        op = w & MASK_B
        if op not in (INSN_B, INSN_BL):
            return None
        return Branch(addr, WORD, "call" if op == INSN_BL else "jmp", addr + (sext(w, 26) << 2))

    def encode_branch(self, op: str, at: int, target: int) -> bytes | None:
        if at % WORD or not fits26(at, target):
            return None
        opc = INSN_BL if op == "call" else INSN_B
        return (opc | ((target - at) >> 2) & IMM26).to_bytes(4, "little")

    def resolve_problem(self, at: int, target: int) -> str | None:
        if not fits26(at, target):
            return f"beyond the +-128 MiB of `b` (0x{target - at:x} bytes away)"
        return None

    # -- code search ----------------------------------------------------
    def find_branches_to(self, targets: set[int]) -> dict[int, list[Branch]]:
        """Every b/bl (patchable) and b.cond/cbz/cbnz/tbz/tbnz (not
        patchable: DC027) whose target is a trampoline."""
        out: dict[int, list[Branch]] = {}
        if not targets:
            return out
        for a, w in self.branch_words():
            top = w & MASK_B
            if top in (INSN_B, INSN_BL):
                t, op = a + (sext(w, 26) << 2), "call" if top == INSN_BL else "jmp"
            elif w & MASK_BCOND == INSN_BCOND:
                t, op = a + (sext(w >> 5, 19) << 2), "bcond"
            elif w & MASK_CBZ == INSN_CBZ:
                t, op = a + (sext(w >> 5, 19) << 2), "cbz"
            elif w & MASK_TBZ == INSN_TBZ:
                t, op = a + (sext(w >> 5, 14) << 2), "tbz"
            else:
                continue
            if t in targets:
                out.setdefault(t, []).append(Branch(a, WORD, op, t))
        return out
