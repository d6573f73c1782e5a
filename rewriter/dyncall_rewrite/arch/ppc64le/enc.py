"""ppc64le encodings: the ABI trampoline words, the linkers' TOC-save stub
and restore, the global-entry prologue and the branch forms the rewriter
recognises (ppc64le/backend.py, ppc64le/columns.py).
"""

from __future__ import annotations

INSN_B = 0x48000000  # b <li24>
INSN_BL = 0x48000001  # bl <li24>
MASK_B = 0xFC000003  # opcode, AA, LK
LI24 = 0x03FFFFFC
INSN_MTCTR_R11 = 0x7D6903A6  # mtctr r11
INSN_MR_R12_R11 = 0x7D6C5B78  # mr r12, r11
INSN_BCTR = 0x4E800420  # bctr
INSN_NOP = 0x60000000  # nop (ori r0, r0, 0)
INSN_STD_R2 = 0xF8410018  # std r2, 24(r1)   (TOC save, linker stub)
INSN_LD_R2 = 0xE8410018  # ld r2, 24(r1)    (TOC restore, after the bl)
INSN_CMPDI_R11_0 = 0x2C2B0000  # cmpdi r11, 0 (a conditional trampoline's null test)
INSN_BEQLR = 0x4D820020  # beqlr
INSN_ADDIS_R2_R12 = 0x3C4C0000  # addis r2, r12, <imm16>
INSN_ADDI_R2_R2 = 0x38420000  # addi r2, r2, <imm16>
INSN_LIS_R2 = 0x3C400000  # lis r2, <imm16> (GNU ld's rewrite of addis r2,r12 in a non-PIC executable)
INSN_LD_R2_M8_R12 = 0xE84CFFF8  # ld r2, -8(r12)  (-mcmodel=large: .TOC.-f in the literal at f-8)
INSN_ADD_R2_R2_R12 = 0x7C426214  # add r2, r2, r12
MASK_HI16 = 0xFFFF0000
OPCD_BC = 16  # bc (conditional, bd14)
OPCD_PREFIX = 1  # primary opcode of a prefix word
SLOW = b"".join(w.to_bytes(4, "little") for w in (INSN_MTCTR_R11, INSN_MR_R12_R11, INSN_BCTR))
TRAMP_SIZE = 16
COND_TRAMP_SIZE = 24  # b slow; cmpdi r11, 0; beqlr; mtctr r11; mr r12, r11; bctr
REACH = 1 << 25  # b: +-32 MiB
LOCAL_ENTRY = 8  # past `addis r2,r12; addi r2,r2` (or `lis r2; addi r2,r2`, `ld r2,-8(r12); add r2,r2,r12`)

# No landing pads on ppc64le; a function with a TOC prologue is entered by
# direct calls at its local entry (LOCAL_ENTRY bytes after the global one).
PROLOGUE_PADS: dict[int, str] = {}
