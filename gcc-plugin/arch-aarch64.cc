/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch-aarch64.cc - the aarch64 trampoline and module constructor, from the
 * text of <dyncall/abi-asm.h> (the byte diagram is there).  The static
 * chain is x18: GCC's STATIC_CHAIN_REGNUM, LLVM's `nest` (gcc-compat.h).
 */
#include "plugin.h"

void aarch64_trampoline(std::string &out, const char *n, bool, bool local,
			bool cond)
{
	asm_printf(out, "%s%s", DYNCALL_ASM_TRAMP_PUSHSECTION,
		   DYNCALL_ASM_AARCH64_TRAMP_ALIGN);
	emit_symbol_header(out, n, local);
	asm_printf(out, "%s",
		   cond ? DYNCALL_ASM_AARCH64_TRAMP_COND_ENTRY :
			  DYNCALL_ASM_AARCH64_TRAMP_ENTRY);
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

/* Reached from .init_array/.fini_array by an indirect call: `bti c` (a
 * hint, a NOP on cores and in objects without BTI; always emitted, so the
 * COMDAT copy the linker keeps is right whatever unit it comes from). */
void aarch64_register_call(std::string &out, const char *, const char *callee)
{
	asm_printf(out, "%s%s%s%s%s", DYNCALL_ASM_AARCH64_CTOR_ARGS,
		   DYNCALL_ASM_AARCH64_CTOR_CALL, callee,
		   DYNCALL_ASM_AARCH64_CTOR_CALL_END,
		   DYNCALL_ASM_AARCH64_CTOR_RETURN);
}
