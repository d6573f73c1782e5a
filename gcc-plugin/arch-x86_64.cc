/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch-x86_64.cc - the x86_64 trampoline and module constructor, from the
 * text of <dyncall/abi-asm.h> (the byte diagram is there).
 */
#include "plugin.h"

/* A conditional site's trampoline tests the chain first: test %r10; je
 * over the slow branch to a ret (the bytes the runtime and the rewriter
 * match, the Clang pass's). */
void x86_64_trampoline(std::string &out, const char *n, bool retpoline,
		       bool local, bool cond)
{
	asm_printf(out, "%s%s", DYNCALL_ASM_TRAMP_PUSHSECTION,
		   DYNCALL_ASM_X86_64_TRAMP_ALIGN);
	emit_symbol_header(out, n, local);
	asm_printf(out, "%s", DYNCALL_ASM_X86_64_TRAMP_ENTRY);
	if (cond)
		asm_printf(
			out, "%s",
			retpoline ?
				DYNCALL_ASM_X86_64_TRAMP_COND_SKIP_RETPOLINE :
				DYNCALL_ASM_X86_64_TRAMP_COND_SKIP);
	asm_printf(out, "%s",
		   retpoline ? DYNCALL_ASM_X86_64_TRAMP_SLOW_RETPOLINE :
			       DYNCALL_ASM_X86_64_TRAMP_SLOW);
	if (cond)
		asm_printf(out, "%s", DYNCALL_ASM_X86_64_TRAMP_COND_RET);
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

void x86_64_register_call(std::string &out, const char *, const char *callee)
{
	if (dyncall_ibt_enabled())
		asm_printf(out, "%s", DYNCALL_ASM_X86_64_ENDBR64);
	asm_printf(out, "%s%s%s%s%s", DYNCALL_ASM_X86_64_CTOR_ARGS,
		   DYNCALL_ASM_X86_64_CTOR_CALL, callee,
		   DYNCALL_ASM_X86_64_CTOR_CALL_END,
		   DYNCALL_ASM_X86_64_CTOR_RETURN);
}
