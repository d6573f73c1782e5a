/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * x86-64 function-entry patching: the thread-pointer offset of the
 * recursion guard (x86_64_prologue.c, docs/prologues.md).
 *
 * Jump functions are self-contained (x86_64_prologue.c arch_fentry_emit_jf):
 * they test and set dc_fentry_busy themselves with one %fs-relative
 * access, `cmpl $0, %fs:tp`.  tp is the variable's offset from the thread
 * pointer, the same in every thread for initial-exec TLS: the value the
 * GOT slot of its R_X86_64_TPOFF64 relocation holds, which the dynamic
 * loader filled in.  Read here once, by the same instruction the compiler
 * emits for an initial-exec access.
 */
	.text
	.globl	dc_fentry_tpoff
	.hidden	dc_fentry_tpoff
	.type	dc_fentry_tpoff, @function
	.p2align 4
dc_fentry_tpoff:
	.cfi_startproc
	endbr64
	movq	dc_fentry_busy@GOTTPOFF(%rip), %rax
	ret
	.cfi_endproc
	.size	dc_fentry_tpoff, .-dc_fentry_tpoff

	.section .note.GNU-stack,"",@progbits
