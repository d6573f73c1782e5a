/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch-x86_64.cc - x86-64 trampoline and module constructor text.
 */
#include "plugin.h"

/*
 * x86-64, static chain r10; entry at 8k+3 behind three int3:
 *	cc cc cc	int3 x3
 * tramp:
 *	e9 <rel32>	jmp slow	(spelled as bytes: never relaxed to jmp8)
 * slow:
 *	41 ff e2	jmp *%r10
 *	e9 <rel32>	jmp __dyncall_retpoline_r10	(-mindirect-branch=thunk*)
 */
void x86_64_trampoline(std::string &out, const char *n, bool retpoline,
		       bool local)
{
	asm_printf(out, "\t.pushsection " TRAMP_SECTION ",\"ax\",@progbits\n");
	asm_printf(out, "\t.p2align 3\n\t.byte 0xcc,0xcc,0xcc\n");
	emit_symbol_header(out, n, local);
	asm_printf(out, "\t.byte 0xe9\n\t.long 1f - . - 4\n1:\n");
	if (retpoline)
		asm_printf(out, "\t.byte 0xe9\n\t.long " DYNCALL_RETPOLINE_THUNK
				" - . - 4\n");
	else
		asm_printf(out, "\tjmp *%%r10\n");
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

#define X86_64_ENDBR64 ".byte 0xf3,0x0f,0x1e,0xfa" /* endbr64 */

void x86_64_register_call(std::string &out, const char *, const char *callee)
{
	if (dyncall_ibt_enabled())
		asm_printf(out, "\t" X86_64_ENDBR64 "\n");
	asm_printf(out,
		   "\tsubq $8, %%rsp\n"
		   "\tmovq " SITES_START "@GOTPCREL(%%rip), %%rdi\n"
		   "\tmovq " SITES_STOP "@GOTPCREL(%%rip), %%rsi\n"
		   "\tmovq " KEYS_START "@GOTPCREL(%%rip), %%rdx\n"
		   "\tmovq " KEYS_STOP "@GOTPCREL(%%rip), %%rcx\n"
		   "\tcall %s@PLT\n"
		   "\taddq $8, %%rsp\n\tret\n",
		   callee);
}
