/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch-aarch64.cc - aarch64 trampoline and module constructor text.
 */
#include "plugin.h"

/*
 * aarch64, static chain x18 (GCC's STATIC_CHAIN_REGNUM, LLVM's `nest`):
 * tramp:
 *	14000001	b slow		<- one aligned 32-bit store retargets it
 * slow:
 *	aa1203f0	mov x16, x18	(a `bti c` pad accepts br x16, not br x18)
 *	d61f0200	br x16
 * Only direct branches reach a trampoline: no landing pad of its own.
 */
void aarch64_trampoline(std::string &out, const char *n, bool, bool local)
{
	asm_printf(out, "\t.pushsection " TRAMP_SECTION ",\"ax\",@progbits\n");
	asm_printf(out, "\t.p2align 2\n");
	emit_symbol_header(out, n, local);
	asm_printf(out, "\tb 1f\n1:\n\tmov x16, x18\n\tbr x16\n");
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

/* Reached from .init_array/.fini_array by an indirect call: `bti c` (a
 * hint, a NOP on cores and in objects without BTI; always emitted, so the
 * COMDAT copy the linker keeps is right whatever unit it comes from). */
void aarch64_register_call(std::string &out, const char *, const char *callee)
{
	asm_printf(out,
		   "\thint #34\n" /* bti c */
		   "\tstp x29, x30, [sp, #-16]!\n"
		   "\tmov x29, sp\n"
		   "\tadrp x0, :got:" SITES_START "\n"
		   "\tldr x0, [x0, :got_lo12:" SITES_START "]\n"
		   "\tadrp x1, :got:" SITES_STOP "\n"
		   "\tldr x1, [x1, :got_lo12:" SITES_STOP "]\n"
		   "\tadrp x2, :got:" KEYS_START "\n"
		   "\tldr x2, [x2, :got_lo12:" KEYS_START "]\n"
		   "\tadrp x3, :got:" KEYS_STOP "\n"
		   "\tldr x3, [x3, :got_lo12:" KEYS_STOP "]\n"
		   "\tbl %s\n"
		   "\tldp x29, x30, [sp], #16\n"
		   "\tret\n",
		   callee);
}
