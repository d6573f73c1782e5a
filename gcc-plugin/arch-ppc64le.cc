/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch-ppc64le.cc - the ppc64le (ELFv2) trampoline and module constructor,
 * from the text of <dyncall/abi-asm.h> (the byte diagram is there).
 *
 * `.localentry tramp, 1` says "r2 is not preserved": the target may use
 * another TOC, so the linker routes every `bl tramp; nop` of a TOC-using
 * caller through a stub that saves r2 (std r2,24(r1)) and turns the nop
 * into `ld r2,24(r1)`.  The site is a non-local call (the trampoline decl
 * is external), so GCC emits that nop and never makes it a sibcall.
 */
#include "plugin.h"

void ppc64le_trampoline(std::string &out, const char *n, bool, bool local,
			bool cond)
{
	asm_printf(out, "%s%s", DYNCALL_ASM_TRAMP_PUSHSECTION,
		   DYNCALL_ASM_PPC64LE_TRAMP_ALIGN);
	emit_symbol_header(out, n, local);
	asm_printf(out, "\t.localentry %s, %s\n%s", n,
		   DYNCALL_ASM_PPC64LE_TRAMP_LOCALENTRY,
		   cond ? DYNCALL_ASM_PPC64LE_TRAMP_COND_ENTRY :
			  DYNCALL_ASM_PPC64LE_TRAMP_ENTRY);
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

/* Reached by an indirect call, r12 = its address: the global entry point
 * sets up r2 (the TOC pointer the address computations and the call's
 * linker stub use), then the frame and call of abi-asm.h. */
void ppc64le_register_call(std::string &out, const char *name,
			   const char *callee)
{
	asm_printf(out,
		   "\taddis 2, 12, .TOC.-%s@ha\n"
		   "\taddi 2, 2, .TOC.-%s@l\n"
		   "\t.localentry %s, .-%s\n",
		   name, name, name, name);
	asm_printf(out, "%s%s%s%s%s", DYNCALL_ASM_PPC64LE_CTOR_ARGS,
		   DYNCALL_ASM_PPC64LE_CTOR_CALL, callee,
		   DYNCALL_ASM_PPC64LE_CTOR_CALL_END,
		   DYNCALL_ASM_PPC64LE_CTOR_RETURN);
}
