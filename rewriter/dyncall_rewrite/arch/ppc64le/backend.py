"""ppc64le (ELFv2) backend.

Trampoline (docs/abi.md; runtime/arch/ppc64le.c arch_tramp_slow),
``.localentry tramp, 1`` (does not preserve r2)::

    tramp:  48000004   b slow            <- one aligned 32-bit store retargets it
    slow:   7d6903a6   mtctr r11
            7d6c5b78   mr r12, r11       (a global entry wants r12)
            4e800420   bctr

The compiler emits ``bl tramp; nop``; both linkers turn it into::

    site:   bl   stub                    lld: __toc_save_<tramp>, GNU ld: <n>.long_branch.<tramp>
            ld   r2, 24(r1)              e8410018 (was the nop)
    stub:   std  r2, 24(r1)              f8410018
            b    tramp

so a site "reaches its trampoline" through that stub, and must restore r2
(TOC rule, DC025): a direct ``bl tramp`` or a missing ``ld r2, 24(r1)``
would return to the caller with the callee's TOC.  The site is never
patched (retargeting the ``bl`` would skip the ``std`` and keep the
``ld``), so relax neither fills ``site`` nor rewrites it; whatever the
entry's kind, the site is a ``bl`` (the backend never sibcalls a
trampoline).

Only the trampoline's ``b`` is patched.  A direct ``b`` goes to ``T+8``,
T's local entry, only when T has the global-entry prologue ``addis
r2,r12,..; addi r2,r2,..`` (and lies in this module, which link-time
resolution guarantees: one TOC per module) within +-32 MiB; a branch to
``T+8`` is read back as going to T, as the runtime's arch_branch_read does.
A branch landing on such a global entry (r12 would not hold T) is a TOC
violation (DC053).  Any other T needs the runtime's stub with r12 = T: not
resolvable, and not an error.  A patch point that is the suffix word of a
prefixed instruction (Power10: the word before it, in its 64-byte block,
has primary opcode 1) is never written by the runtime (DC017).
"""

from __future__ import annotations

import capstone

from dyncall_rewrite.arch import Branch, ColumnHooks, Trampoline
from dyncall_rewrite.arch.fixed32.backend import WORD, FixedWidthBackend, sext
from dyncall_rewrite.arch.ppc64le.enc import (
    COND_TRAMP_SIZE,
    INSN_ADD_R2_R2_R12,
    INSN_ADDI_R2_R2,
    INSN_ADDIS_R2_R12,
    INSN_B,
    INSN_BCTR,
    INSN_BEQLR,
    INSN_BL,
    INSN_CMPDI_R11_0,
    INSN_LD_R2,
    INSN_LD_R2_M8_R12,
    INSN_LIS_R2,
    INSN_MR_R12_R11,
    INSN_MTCTR_R11,
    INSN_NOP,
    INSN_STD_R2,
    LI24,
    LOCAL_ENTRY,
    MASK_B,
    MASK_HI16,
    OPCD_BC,
    OPCD_PREFIX,
    PROLOGUE_PADS,
    REACH,
    SLOW,
    TRAMP_SIZE,
)
from dyncall_rewrite.elf import Image


def fits24(at: int, dest: int) -> bool:
    d = dest - at
    return d % 4 == 0 and -REACH <= d < REACH


class PPC64LE(FixedWidthBackend):
    name = "ppc64le"
    has_cond = True
    patches_sites = False
    far_target_is_error = False
    op_names = {"call": "bl <TOC-save stub>; ld r2, 24(r1)", "jmp": "b"}  # noqa: RUF012
    nop = INSN_NOP
    prologue_pads = PROLOGUE_PADS
    # b/bl (opcode 18: 0x48-0x4b) and bc (opcode 16: 0x40-0x43).
    branch_top_bytes = b"\x48-\x4b\x40-\x43"
    _cs_arch = capstone.CS_ARCH_PPC
    _cs_mode = capstone.CS_MODE_64 | capstone.CS_MODE_LITTLE_ENDIAN

    def __init__(self, image: Image) -> None:
        super().__init__(image)

    def column_hooks(self) -> ColumnHooks:
        from dyncall_rewrite.arch.ppc64le.columns import PPC64LEColumns

        return PPC64LEColumns(self)

    def site_op(self, kind: int) -> str:
        return "call"  # `bl tramp; nop` whatever the kind (abi.md)

    # -- patchable prologues ---------------------------------------------
    # The runtime's slot is beside its out-of-line stub, not in the
    # prologue: a record needs no more than an instruction start.
    prologue_slot_align = WORD
    prologue_entry_bytes = WORD  # the one `nop` <-> `b stub`

    def prologue_hookable(self, rec: int, f: int, body: int) -> bool:
        """Does arch_fentry_probe (runtime/arch/ppc64le_prologue.c) register
        the function as ``f``, with the record's `nop` where every call
        enters it?  The runtime takes the two words before the record, if
        they are a TOC set-up, as the global entry; so the record must be
        f's local entry after its TOC set-up (f + 8), or f itself when no
        TOC set-up precedes it.  A record before the function (GCC 12's
        own ``=2,1``: f - 4) would be registered as a function at f - 4
        whose `nop` no call runs."""
        if rec == f:
            return self.local_entry(rec - LOCAL_ENTRY) != rec
        return self.local_entry(f) == rec

    # -- TOC and prefix rules ---------------------------------------------
    def has_toc_prologue(self, f: int) -> bool:
        """Does f start with a global-entry prologue (local entry at f+8):
        `addis r2,r12,..; addi r2,r2,..`, GNU ld's `lis r2,..; addi r2,r2,..`
        of a non-PIC executable, or -mcmodel=large's `ld r2,-8(r12); add
        r2,r2,r12` (runtime/arch/ppc64le_gep.h)?"""
        w = self.words(f, 2) if f % WORD == 0 else None
        if w is None:
            return False
        if w[0] == INSN_LD_R2_M8_R12:
            return w[1] == INSN_ADD_R2_R2_R12
        return w[0] & MASK_HI16 in (INSN_ADDIS_R2_R12, INSN_LIS_R2) and w[1] & MASK_HI16 == INSN_ADDI_R2_R2

    def local_entry(self, f: int) -> int | None:
        return f + LOCAL_ENTRY if self.has_toc_prologue(f) else None

    def is_suffix(self, addr: int) -> bool:
        """Is the word at addr the suffix of a prefixed instruction?  (A
        prefixed instruction never crosses a 64-byte boundary.)"""
        if addr % 64 == 0:
            return False
        w = self.word(addr - WORD)
        return w is not None and w >> 26 == OPCD_PREFIX

    def is_code_word(self, addr: int) -> bool:
        return super().is_code_word(addr) and not self.is_suffix(addr)

    def _stub_target(self, stub: int) -> int | None:
        """The trampoline a linker TOC-save stub `std r2,24(r1); b tramp`
        at ``stub`` branches to, or None."""
        w = self.words(stub, 2) if stub % WORD == 0 else None
        if w is None or w[0] != INSN_STD_R2 or w[1] & MASK_B != INSN_B:
            return None
        return stub + WORD + sext(w[1] & LI24, 26)

    # -- trampolines ----------------------------------------------------
    def _read_cond_trampoline(self, t: Trampoline) -> Trampoline:
        """A conditional trampoline's slow path: after `cmpdi r11, 0;
        beqlr`, the plain slow path."""
        t.cond, t.size = True, COND_TRAMP_SIZE
        w = self.words(t.addr + 3 * WORD, 3)
        if w is not None and w == (INSN_MTCTR_R11, INSN_MR_R12_R11, INSN_BCTR):
            t.slow = "plain"
        else:
            t.problems.append(
                (
                    "DC013",
                    "conditional slow path is not `cmpdi r11, 0; beqlr; mtctr r11; mr r12, r11; bctr`"
                    " (2c2b0000 4d820020 7d6903a6 7d6c5b78 4e800420)",
                )
            )
        return t

    def _read_target(self, at: int, w: int) -> int:
        """Where the b at ``at`` goes, T for T+8 after a TOC prologue (as
        runtime/arch/ppc64le.c arch_branch_read reports it)."""
        d = at + sext(w & LI24, 26)
        if self.has_toc_prologue(d - LOCAL_ENTRY):
            return d - LOCAL_ENTRY
        return d

    def read_trampoline(self, addr: int, retpoline_thunk: int | None) -> Trampoline:
        problems: list[tuple[str, str]] = []
        t = Trampoline(addr, TRAMP_SIZE, None, addr + WORD, None, None, problems)
        if addr % WORD:
            problems.append(("DC011", f"trampoline entry 0x{addr:x} is not 4-byte aligned"))
            return t
        if self.is_suffix(addr):
            problems.append(
                (
                    "DC017",
                    "the trampoline's patchable branch is the suffix of a prefixed instruction"
                    " (the word before it has primary opcode 1): the runtime never patches it",
                )
            )
        w = self.words(addr, 4)
        if w is None or w[0] & MASK_B != INSN_B:
            problems.append(("DC014", f"patchable branch is `{self.describe(addr)}`, not `b` (48xxxxx0)"))
            return t
        t.branch_target = self._read_target(addr, w[0])
        raw = addr + sext(w[0] & LI24, 26)
        if raw != addr + WORD and self.has_toc_prologue(raw):
            problems.append(
                (
                    "DC053",
                    f"trampoline branch enters the global entry of 0x{raw:x} with r12 not set to it"
                    f" (TOC rule: a direct branch goes to the local entry 0x{raw + LOCAL_ENTRY:x})",
                )
            )
        if w[1:3] == (INSN_CMPDI_R11_0, INSN_BEQLR):
            return self._read_cond_trampoline(t)
        if w[1:] == (INSN_MTCTR_R11, INSN_MR_R12_R11, INSN_BCTR):
            t.slow = "plain"
        else:
            k = next(i for i, x in enumerate((INSN_MTCTR_R11, INSN_MR_R12_R11, INSN_BCTR), 1) if w[i] != x)
            problems.append(
                (
                    "DC013",
                    f"slow path has `{self.describe(addr + k * WORD)}`, not"
                    " `mtctr r11; mr r12, r11; bctr` (7d6903a6 7d6c5b78 4e800420)",
                )
            )
        return t

    def trampoline_fast(self, addr: int, retpoline_thunk: int | None) -> Trampoline | None:
        w = self.tramp_branch_word(addr, TRAMP_SIZE, SLOW, MASK_B, INSN_B)
        if w is None or self.is_suffix(addr):
            return None
        raw = addr + sext(w & LI24, 26)
        if raw != addr + WORD and self.has_toc_prologue(raw):
            return None
        return Trampoline(addr, TRAMP_SIZE, self._read_target(addr, w), addr + WORD, "plain", None, [])

    # -- sites ------------------------------------------------------------
    def decode_site(self, addr: int) -> Branch | None:
        """The bl at ``addr``; its target is the trampoline behind the
        linker's TOC-save stub when it calls one."""
        if addr % WORD or self.is_suffix(addr):
            return None
        w = self.word(addr)
        if w is None or w & 0xFC000002 != INSN_B:  # opcode 18, AA = 0
            return None
        t = addr + sext(w & LI24, 26)
        if w & 1:
            via = self._stub_target(t)
            return Branch(addr, WORD, "call", via if via is not None else t)
        return Branch(addr, WORD, "jmp", t)

    def site_alignment_problem(self, site: int, compiler_labelled: bool) -> tuple[str, str] | None:
        """Alignment, and the TOC rule: ``bl <stub: std r2,24(r1); b
        tramp>`` followed by ``ld r2, 24(r1)``."""
        p = super().site_alignment_problem(site, compiler_labelled)
        if p is not None:
            return p
        w = self.words(site, 2)
        if w is None:
            return None
        if w[0] & MASK_B == INSN_BL and self._stub_target(site + sext(w[0] & LI24, 26)) is None:
            return (
                "DC025",
                "site calls its trampoline without the linker's TOC-save stub (std r2, 24(r1)):"
                " the trampoline may reach a function with another TOC",
            )
        if w[0] & MASK_B == INSN_B:
            return ("DC025", "site branches to its trampoline (b): r2 cannot be restored after the call")
        if w[1] != INSN_LD_R2:
            return (
                "DC025",
                f"the instruction after the site is `{self.describe(site + WORD)}`, not"
                " `ld r2, 24(r1)` (e8410018): the caller's TOC is not restored",
            )
        return None

    def encode_branch(self, op: str, at: int, target: int) -> bytes | None:
        """`b T+8` (local entry of a function with the TOC prologue) within
        +-32 MiB; None for anything else."""
        if at % WORD or not self.has_toc_prologue(target):
            return None
        dest = target + LOCAL_ENTRY
        if not fits24(at, dest):
            return None
        opc = INSN_BL if op == "call" else INSN_B
        return (opc | (dest - at) & LI24).to_bytes(4, "little")

    def resolve_problem(self, at: int, target: int) -> str | None:
        if not self.has_toc_prologue(target):
            return (
                "the target has no global-entry TOC prologue (addis r2,r12; addi r2,r2, or the lis"
                " and ld forms): it is only entered at its global entry with r12 set, through the"
                " runtime's stub"
            )
        if not fits24(at, target + LOCAL_ENTRY):
            d = target + LOCAL_ENTRY - at
            return f"its local entry is beyond the +-32 MiB of `b` (0x{d:x} bytes away)"
        return None

    # -- code search ----------------------------------------------------
    def find_branches_to(self, targets: set[int]) -> dict[int, list[Branch]]:
        """Callers of each trampoline: ``bl`` to a TOC-save stub that
        branches to it (the linked form), and any other direct branch to
        it (a bl/b/bc straight to the trampoline: TOC rule, DC025/DC027).
        Suffix words of prefixed instructions are not instructions."""
        out: dict[int, list[Branch]] = {}
        if not targets:
            return out
        words = self.branch_words()
        stubs: dict[int, int] = {}
        for a, w in words:
            opcd = w >> 26
            if opcd == 18 and not w & 2:
                t, op = a + sext(w & LI24, 26), "call" if w & 1 else "jmp"
            elif opcd == OPCD_BC and not w & 2:
                t, op = a + sext(w & 0xFFFC, 16), "bc"
            else:
                continue
            if t not in targets or self.is_suffix(a):
                continue
            if op == "jmp" and self.word(a - WORD) == INSN_STD_R2:
                stubs[a - WORD] = t  # the linker's stub, not a site
            else:
                out.setdefault(t, []).append(Branch(a, WORD, op, t))
        if stubs:
            for a, w in words:
                if w & MASK_B == INSN_BL:
                    s = a + sext(w & LI24, 26)
                    if s in stubs and not self.is_suffix(a):
                        out.setdefault(stubs[s], []).append(Branch(a, WORD, "call", stubs[s]))
        return out
