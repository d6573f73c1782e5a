/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch-ppc64le.cc - ppc64le (ELFv2) trampoline and module constructor text.
 */
#include "plugin.h"

/*
 * ppc64le ELFv2, static chain r11:
 * tramp:			.localentry tramp, 1
 *	48000004	b slow		<- one aligned 32-bit store retargets it
 * slow:
 *	7d6903a6	mtctr r11
 *	7d6c5b78	mr r12, r11	(a global entry point wants r12)
 *	4e800420	bctr
 * `.localentry tramp, 1` says "r2 is not preserved": the target may use
 * another TOC, so the linker routes every `bl tramp; nop` of a TOC-using
 * caller through a stub that saves r2 (std r2,24(r1)) and turns the nop
 * into `ld r2,24(r1)`.  The site is a non-local call (the trampoline decl
 * is external), so GCC emits that nop and never makes it a sibcall.
 */
void ppc64le_trampoline(std::string &out, const char *n, bool, bool local)
{
	asm_printf(out, "\t.pushsection " TRAMP_SECTION ",\"ax\",@progbits\n");
	asm_printf(out, "\t.p2align 2\n");
	emit_symbol_header(out, n, local);
	asm_printf(out, "\t.localentry %s, 1\n", n);
	asm_printf(out, "\tb 1f\n1:\n\tmtctr 11\n\tmr 12, 11\n\tbctr\n");
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

/* Reached by an indirect call, r12 = its address: the global entry point
 * sets up r2 (the TOC pointer the address computations and the call's
 * linker stub use).  A minimal ELFv2 frame: 32 bytes, LR saved in the
 * caller's frame, the TOC save slot at 24(r1) for the linker stub. */
void ppc64le_register_call(std::string &out, const char *name,
			   const char *callee)
{
	asm_printf(out,
		   "\taddis 2, 12, .TOC.-%s@ha\n"
		   "\taddi 2, 2, .TOC.-%s@l\n"
		   "\t.localentry %s, .-%s\n",
		   name, name, name, name);
	asm_printf(out,
		   "\tmflr 0\n"
		   "\tstd 0, 16(1)\n"
		   "\tstdu 1, -32(1)\n"
		   "\taddis 3, 2, " SITES_START "@got@ha\n"
		   "\tld 3, " SITES_START "@got@l(3)\n"
		   "\taddis 4, 2, " SITES_STOP "@got@ha\n"
		   "\tld 4, " SITES_STOP "@got@l(4)\n"
		   "\taddis 5, 2, " KEYS_START "@got@ha\n"
		   "\tld 5, " KEYS_START "@got@l(5)\n"
		   "\taddis 6, 2, " KEYS_STOP "@got@ha\n"
		   "\tld 6, " KEYS_STOP "@got@l(6)\n"
		   "\tbl %s\n"
		   "\tnop\n"
		   "\taddi 1, 1, 32\n"
		   "\tld 0, 16(1)\n"
		   "\tmtlr 0\n"
		   "\tblr\n",
		   callee);
}
