/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * dyncall ABI, the assembly half: the names and the per-arch instruction
 * text the compiler plugins emit around the tables of <dyncall/abi.h>
 * (docs/abi.md, "Trampolines", "Registration"; docs/arches.md).  The one
 * copy: the GCC plugin (gcc-plugin/arch-*.cc, ipa.cc), the LLVM pass
 * (llvm-pass/Trampolines.cpp), the runtime tests' hand-written sites
 * (test/runtime/Inputs/dyncall_test.h) and the rewriter's test generator
 * (rewriter/tests/dcgen.py, through rewriter/tests/abi_header.py) all use
 * these strings.  A consumer adds only what depends on a symbol's name: its
 * .globl/.hidden/.type/label lines, ppc64le's .localentry and the .size.
 *
 * Every macro is a plain string literal (or a concatenation of literals
 * and other macros of this header and abi.h): C, C++ and the Python reader
 * of the rewriter's tests see the same text.  GNU as syntax; the `@` type
 * prefixes are accepted by the aarch64 and ppc64 assemblers too.
 */
#ifndef DYNCALL_ABI_ASM_H
#define DYNCALL_ABI_ASM_H

#include "abi.h"

/* Names the plugins and the runtime agree on, besides those of abi.h. */
#define DYNCALL_TRAMP_SECTION ".text.__dyncall_tramp" /* every trampoline */
#define DYNCALL_KEYCELL_SECTION ".data.rel.ro" /* key cells        */
#define DYNCALL_NAMES_SECTION ".rodata.__dyncall_names" /* key names (GCC) */
#define DYNCALL_MODULE_CTOR "__dyncall_module_ctor" /* hidden, COMDAT      */
#define DYNCALL_MODULE_DTOR "__dyncall_module_dtor"
/* The public API of include/dyncall.h: takes keys by address, stores none. */
#define DYNCALL_RUNTIME_API_PREFIX "dyncall_"
/* The bounds the module constructor passes to DYNCALL_REGISTER_FN. */
#define DYNCALL_SITES_START "__start_" DYNCALL_SITES_SECTION
#define DYNCALL_SITES_STOP "__stop_" DYNCALL_SITES_SECTION
#define DYNCALL_KEYS_START "__start_" DYNCALL_KEYS_SECTION
#define DYNCALL_KEYS_STOP "__stop_" DYNCALL_KEYS_SECTION

/* Opens the trampolines' section (closed by "\t.popsection\n"). */
#define DYNCALL_ASM_TRAMP_PUSHSECTION \
	"\t.pushsection " DYNCALL_TRAMP_SECTION ",\"ax\",@progbits\n"

/*
 * x86_64, static chain r10; the entry at 8k+3 behind three int3, so the
 * rel32 of the patchable jmp is 4-byte aligned:
 *	cc cc cc	int3 x3
 * tramp:
 *	e9 <rel32>	jmp slow	(spelled as bytes: never relaxed to jmp8)
 * slow:
 *	41 ff e2	jmp *%r10
 *	e9 <rel32>	jmp __dyncall_retpoline_r10	(retpoline builds)
 */
#define DYNCALL_ASM_X86_64_TRAMP_ALIGN "\t.p2align 3\n\t.byte 0xcc,0xcc,0xcc\n"
#define DYNCALL_ASM_X86_64_TRAMP_ENTRY "\t.byte 0xe9\n\t.long 1f - . - 4\n1:\n"
#define DYNCALL_ASM_X86_64_TRAMP_SLOW "\tjmp *%r10\n"
#define DYNCALL_ASM_X86_64_TRAMP_SLOW_RETPOLINE \
	"\t.byte 0xe9\n\t.long " DYNCALL_RETPOLINE_THUNK " - . - 4\n"
/* A conditional site's trampoline (DYNCALL_KIND_COND): before the
 * slow branch, test %r10,%r10 and je over it (3 bytes for jmp *%r10, 5 for
 * the retpoline's jmp rel32) to a ret: a null chain calls nothing. */
#define DYNCALL_ASM_X86_64_TRAMP_COND_SKIP \
	"\t.byte 0x4d, 0x85, 0xd2\n\t.byte 0x74, 3\n"
#define DYNCALL_ASM_X86_64_TRAMP_COND_SKIP_RETPOLINE \
	"\t.byte 0x4d, 0x85, 0xd2\n\t.byte 0x74, 5\n"
#define DYNCALL_ASM_X86_64_TRAMP_COND_RET "\t.byte 0xc3\n"

/* The retpoline on r10 (the static chain) the retpoline slow path jumps
 * to, hidden and COMDAT (.text.<thunk>, group <thunk>): the sequence the
 * compilers use for their own thunks on r11. */
#define DYNCALL_ASM_X86_64_RETPOLINE_ALIGN "\t.p2align 4\n"
#define DYNCALL_ASM_X86_64_RETPOLINE_BODY \
	"\tcall 1f\n"                     \
	"2:\n"                            \
	"\tpause\n"                       \
	"\tlfence\n"                      \
	"\tjmp 2b\n"                      \
	"1:\n"                            \
	"\tmov %r10, (%rsp)\n"            \
	"\tret\n"

/*
 * aarch64, static chain x18:
 * tramp:
 *	14000001	b slow		<- one aligned 32-bit store retargets it
 * slow:
 *	aa1203f0	mov x16, x18	(a `bti c` pad accepts br x16, not br x18)
 *	d61f0200	br x16
 * Only direct branches reach a trampoline: no landing pad of its own.
 */
#define DYNCALL_ASM_AARCH64_TRAMP_ALIGN "\t.p2align 2\n"
#define DYNCALL_ASM_AARCH64_TRAMP_ENTRY "\tb 1f\n1:\n\tmov x16, x18\n\tbr x16\n"
/* A conditional site's (DYNCALL_KIND_COND) trampoline: a null chain
 * returns to the site's caller (x30 untouched: PAC is unaffected):
 * tramp:
 *	14000001	b slow		<- patched as above
 * slow:
 *	b4000072	cbz x18, 1f
 *	aa1203f0	mov x16, x18
 *	d61f0200	br x16
 * 1:	d65f03c0	ret */
#define DYNCALL_ASM_AARCH64_TRAMP_COND_ENTRY \
	"\tb 1f\n1:\n\tcbz x18, 2f\n\tmov x16, x18\n\tbr x16\n2:\n\tret\n"

/*
 * ppc64le ELFv2, static chain r11; after `.localentry tramp, 1` (r2 not
 * preserved: the linker routes every `bl tramp; nop` through a stub that
 * saves the TOC pointer):
 * tramp:
 *	48000004	b slow		<- one aligned 32-bit store retargets it
 * slow:
 *	7d6903a6	mtctr r11
 *	7d6c5b78	mr r12, r11	(a global entry point wants r12)
 *	4e800420	bctr
 */
#define DYNCALL_ASM_PPC64LE_TRAMP_ALIGN "\t.p2align 2\n"
#define DYNCALL_ASM_PPC64LE_TRAMP_LOCALENTRY "1"
#define DYNCALL_ASM_PPC64LE_TRAMP_ENTRY \
	"\tb 1f\n1:\n\tmtctr 11\n\tmr 12, 11\n\tbctr\n"
/* A conditional site's (DYNCALL_KIND_COND) trampoline: a null chain
 * returns to the site's `ld r2, 24(r1)` (the linker's stub saved r2):
 * tramp:
 *	48000004	b slow		<- patched as above
 * slow:
 *	2c2b0000	cmpdi r11, 0
 *	4d820020	beqlr
 *	7d6903a6	mtctr r11
 *	7d6c5b78	mr r12, r11
 *	4e800420	bctr */
#define DYNCALL_ASM_PPC64LE_TRAMP_COND_ENTRY \
	"\tb 1f\n1:\n\tcmpdi 11, 0\n\tbeqlr\n\tmtctr 11\n\tmr 12, 11\n\tbctr\n"

/*
 * The module constructor and destructor (GCC; the LLVM pass builds them as
 * IR functions that make the same call): DYNCALL_MODULE_CTOR calls
 * DYNCALL_REGISTER_FN, DYNCALL_MODULE_DTOR DYNCALL_UNREGISTER_FN, with the
 * bounds of the two sections, loaded from the GOT (an undefined weak
 * hidden bound is 0 only through the GOT), from .init_array/.fini_array at
 * priority DYNCALL_CTOR_PRIORITY.  Per arch: the arguments (_ARGS), the
 * call (the callee's name between _CALL and _CALL_END), the return
 * (_RETURN).
 */
#define DYNCALL_ASM_X86_64_ENDBR64 "\t.byte 0xf3,0x0f,0x1e,0xfa\n" /* IBT */
#define DYNCALL_ASM_X86_64_CTOR_ARGS                            \
	"\tsubq $8, %rsp\n"                                     \
	"\tmovq " DYNCALL_SITES_START "@GOTPCREL(%rip), %rdi\n" \
	"\tmovq " DYNCALL_SITES_STOP "@GOTPCREL(%rip), %rsi\n"  \
	"\tmovq " DYNCALL_KEYS_START "@GOTPCREL(%rip), %rdx\n"  \
	"\tmovq " DYNCALL_KEYS_STOP "@GOTPCREL(%rip), %rcx\n"
#define DYNCALL_ASM_X86_64_CTOR_CALL "\tcall "
#define DYNCALL_ASM_X86_64_CTOR_CALL_END "@PLT\n"
#define DYNCALL_ASM_X86_64_CTOR_RETURN "\taddq $8, %rsp\n\tret\n"

/* aarch64: `bti c` (hint #34, a NOP without BTI) first: reached by an
 * indirect call from .init_array. */
#define DYNCALL_ASM_AARCH64_CTOR_ARGS                         \
	"\thint #34\n"                                        \
	"\tstp x29, x30, [sp, #-16]!\n"                       \
	"\tmov x29, sp\n"                                     \
	"\tadrp x0, :got:" DYNCALL_SITES_START "\n"           \
	"\tldr x0, [x0, :got_lo12:" DYNCALL_SITES_START "]\n" \
	"\tadrp x1, :got:" DYNCALL_SITES_STOP "\n"            \
	"\tldr x1, [x1, :got_lo12:" DYNCALL_SITES_STOP "]\n"  \
	"\tadrp x2, :got:" DYNCALL_KEYS_START "\n"            \
	"\tldr x2, [x2, :got_lo12:" DYNCALL_KEYS_START "]\n"  \
	"\tadrp x3, :got:" DYNCALL_KEYS_STOP "\n"             \
	"\tldr x3, [x3, :got_lo12:" DYNCALL_KEYS_STOP "]\n"
#define DYNCALL_ASM_AARCH64_CTOR_CALL "\tbl "
#define DYNCALL_ASM_AARCH64_CTOR_CALL_END "\n"
#define DYNCALL_ASM_AARCH64_CTOR_RETURN "\tldp x29, x30, [sp], #16\n\tret\n"

/* ppc64le: after the global entry point's TOC setup from r12 (which names
 * the function), a minimal ELFv2 frame: 32 bytes, LR saved in the caller's
 * frame, the TOC save slot at 24(r1) for the call's linker stub. */
#define DYNCALL_ASM_PPC64LE_CTOR_ARGS                    \
	"\tmflr 0\n"                                     \
	"\tstd 0, 16(1)\n"                               \
	"\tstdu 1, -32(1)\n"                             \
	"\taddis 3, 2, " DYNCALL_SITES_START "@got@ha\n" \
	"\tld 3, " DYNCALL_SITES_START "@got@l(3)\n"     \
	"\taddis 4, 2, " DYNCALL_SITES_STOP "@got@ha\n"  \
	"\tld 4, " DYNCALL_SITES_STOP "@got@l(4)\n"      \
	"\taddis 5, 2, " DYNCALL_KEYS_START "@got@ha\n"  \
	"\tld 5, " DYNCALL_KEYS_START "@got@l(5)\n"      \
	"\taddis 6, 2, " DYNCALL_KEYS_STOP "@got@ha\n"   \
	"\tld 6, " DYNCALL_KEYS_STOP "@got@l(6)\n"
#define DYNCALL_ASM_PPC64LE_CTOR_CALL "\tbl "
#define DYNCALL_ASM_PPC64LE_CTOR_CALL_END "\n\tnop\n"
#define DYNCALL_ASM_PPC64LE_CTOR_RETURN \
	"\taddi 1, 1, 32\n"             \
	"\tld 0, 16(1)\n"               \
	"\tmtlr 0\n"                    \
	"\tblr\n"

#endif /* DYNCALL_ABI_ASM_H */
