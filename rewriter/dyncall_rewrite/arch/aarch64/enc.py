"""aarch64 encodings: the ABI trampoline and site words and the branch
forms the rewriter recognises (aarch64/backend.py, aarch64/columns.py).
"""

from __future__ import annotations

INSN_B = 0x14000000  # b <imm26>
INSN_BL = 0x94000000  # bl <imm26>
MASK_B = 0xFC000000  # opcode bits of b/bl
IMM26 = 0x03FFFFFF
INSN_MOV_X16_X18 = 0xAA1203F0  # mov x16, x18 (orr x16, xzr, x18)
INSN_BR_X16 = 0xD61F0200  # br x16
INSN_NOP = 0xD503201F  # nop
INSN_CBZ_X18_12 = 0xB4000072  # cbz x18, .+12 (a conditional trampoline's null test)
INSN_RET = 0xD65F03C0  # ret
INSN_BCOND = 0x54000000  # b.<cond> <imm19>
MASK_BCOND = 0xFF000010
MASK_CBZ = 0x7E000000  # cbz/cbnz <imm19>: x011010x
INSN_CBZ = 0x34000000
MASK_TBZ = 0x7E000000  # tbz/tbnz <imm14>: x011011x
INSN_TBZ = 0x36000000
SLOW = INSN_MOV_X16_X18.to_bytes(4, "little") + INSN_BR_X16.to_bytes(4, "little")
TRAMP_SIZE = 12
COND_TRAMP_SIZE = 20  # b slow; cbz x18, 1f; mov x16, x18; br x16; 1: ret
REACH = 1 << 27  # b/bl: +-128 MiB

# Landing pads a function may start with before its patchable-entry NOPs
# (-mbranch-protection=bti/standard: both compilers emit `bti c` first).
INSN_BTI_C = 0xD503245F  # bti c
PROLOGUE_PADS = {INSN_BTI_C: "bti c", 0xD50324DF: "bti jc"}
# The runtime's layout (runtime/arch/aarch64_prologue.c arch_fentry_probe,
# -fpatchable-function-entry=4,2): two NOPs before the entry, its 8-byte
# aligned slot; `bti c` or nothing at the entry, then the two NOPs it
# patches (`mov x9, lr; bl <stub>`).
PROLOGUE_PRE = 8
PROLOGUE_ENTRY = 8
