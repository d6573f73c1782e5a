"""x86-64 encodings: the ABI trampoline and site bytes, the canonical NOPs,
and the capstone decode layout shared by x86_64/backend.py and x86_64/columns.py."""

from __future__ import annotations

import ctypes

import capstone
from capstone import x86_const

OP_CALL_REL32 = 0xE8  # call rel32
OP_JMP_REL32 = 0xE9  # jmp rel32
OP_INT3 = 0xCC  # int3
OP_NOP = 0x90  # nop
TRAMP_PAD = b"\xcc\xcc\xcc"  # int3 x3 before the entry
SLOW_PLAIN = b"\x41\xff\xe2"  # jmp *%r10
# A conditional trampoline's slow path starts with: test %r10,%r10; je
COND_TEST = b"\x4d\x85\xd2\x74"
OP_RET = 0xC3  # ret
TRAMP_ALIGN = 8
TRAMP_ENTRY_MOD = 3  # entry at 8k+3: rel32 at 8k+4
BRANCH_SIZE = 5  # e8/e9 + rel32
# The GCC plugin pads a site with `.p2align 2` (0-3 bytes of assembler NOP
# fill) followed by a 3-byte NOP, so its padding is the run of NOP
# instructions of at most 6 bytes right before the call (nothing can be
# emitted between them: no label, hence no branch target, inside).
MAX_SITE_PADDING = 6

# Canonical NOPs (Intel SDM vol. 2B, "NOP": recommended multi-byte sequence).
CANONICAL_NOPS = {
    1: b"\x90",  # nop
    2: b"\x66\x90",  # xchg %ax,%ax
    3: b"\x0f\x1f\x00",  # nopl (%rax)
    4: b"\x0f\x1f\x40\x00",  # nopl 0(%rax)
    5: b"\x0f\x1f\x44\x00\x00",  # nopl 0(%rax,%rax,1)
    6: b"\x66\x0f\x1f\x44\x00\x00",  # nopw 0(%rax,%rax,1)
    7: b"\x0f\x1f\x80\x00\x00\x00\x00",  # nopl 0L(%rax)
    8: b"\x0f\x1f\x84\x00\x00\x00\x00\x00",  # nopl 0L(%rax,%rax,1)
    9: b"\x66\x0f\x1f\x84\x00\x00\x00\x00\x00",  # nopw 0L(%rax,%rax,1)
}

# Patchable prologues: the landing pad a function may start with before its
# entry NOPs (-fcf-protection), and the runtime's layout (docs/prologues.md:
# -fpatchable-function-entry=29,24: 24 bytes before the entry, the first 8
# of them the slot the runtime replaces with one aligned 8-byte store; 5
# at the entry).
ENDBR64 = b"\xf3\x0f\x1e\xfa"
PROLOGUE_PRE = 24
PROLOGUE_ENTRY = 5
PROLOGUE_SLOT_ALIGN = 8
# What the runtime's probe accepts (runtime/arch/x86_64_prologue.c): 24
# bytes 0x90 before the entry; at it (after an endbr64) GCC's five 0x90 or
# Clang's nopl 8(%rax,%rax) (or with disp8 0).
PROLOGUE_PRE_BYTES = b"\x90" * PROLOGUE_PRE
PROLOGUE_ENTRY_FORMS = (b"\x90" * PROLOGUE_ENTRY, b"\x0f\x1f\x44\x00\x08", b"\x0f\x1f\x44\x00\x00")

# Concatenated code is decoded at this base plus its buffer offset: capstone
# prints a direct branch's target in decimal below 10 and wraps a target
# below 0 to 16 hex digits; at this base every target of a rel32 branch is
# printed as "0x" and 11 hex digits.
DECODE_BIAS = 1 << 40

# capstone's cs_insn record: its size, the offset of op_str; code is
# decoded in chunks of CHUNK bytes.
INSN_SIZE = ctypes.sizeof(capstone._cs_insn)
OPSTR_OFF = capstone._cs_insn.op_str.offset
CHUNK = 1 << 16
# capstone instruction ids of the direct branches.
BRANCH_IDS = frozenset(
    v
    for k, v in vars(x86_const).items()
    if k.startswith("X86_INS_J") or k in ("X86_INS_CALL", "X86_INS_LOOP", "X86_INS_LOOPE", "X86_INS_LOOPNE")
)
