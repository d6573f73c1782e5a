/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * x86-64 function-entry patching: the common trampoline every jump
 * function enters (x86_64_prologue.c, docs/prologues.md).
 *
 * Entered by a jmp with %r11 = the jump function's descriptor
 * { calls, resume, fn } and the stack as at the hooked function's entry
 * (its caller's return address at (%rsp)).  Saves the argument registers
 * in a struct dyncall_regs on the stack, runs the handlers (desc->calls,
 * generated: direct calls to each) unless this thread is already inside
 * a handler (dc_fentry_busy, the recursion guard), restores the argument
 * registers (as the handlers left them) and jumps to desc->resume: the
 * function's body, or a redirect target.
 *
 * The stack is realigned, not assumed: GCC calls a function it knows
 * needs no alignment (-fipa-stack-alignment) with %rsp 16-aligned at the
 * call, i.e. 8 off at the entry the trampoline is reached from.
 */
#define REGS_ARG 0      /* struct dyncall_regs: arg[6]   */
#define REGS_RAX 48     /*                      rax      */
#define REGS_RET 56     /*                      ret      */
#define REGS_VEC 64     /*                      vec[8][2] */
#define F_DESC 192      /* the descriptor, saved          */
#define FRAME 208       /* a multiple of 16               */
#define D_CALLS 0
#define D_RESUME 8

	.text
	.globl	dc_fentry_tramp
	.hidden	dc_fentry_tramp
	.type	dc_fentry_tramp, @function
	.p2align 4
dc_fentry_tramp:
	.cfi_startproc
	endbr64
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	subq	$FRAME, %rsp
	movq	%rdi, REGS_ARG+0(%rsp)
	movq	%rsi, REGS_ARG+8(%rsp)
	movq	%rdx, REGS_ARG+16(%rsp)
	movq	%rcx, REGS_ARG+24(%rsp)
	movq	%r8, REGS_ARG+32(%rsp)
	movq	%r9, REGS_ARG+40(%rsp)
	movq	%rax, REGS_RAX(%rsp)
	movq	8(%rbp), %rax
	movq	%rax, REGS_RET(%rsp)
	movaps	%xmm0, REGS_VEC+0(%rsp)
	movaps	%xmm1, REGS_VEC+16(%rsp)
	movaps	%xmm2, REGS_VEC+32(%rsp)
	movaps	%xmm3, REGS_VEC+48(%rsp)
	movaps	%xmm4, REGS_VEC+64(%rsp)
	movaps	%xmm5, REGS_VEC+80(%rsp)
	movaps	%xmm6, REGS_VEC+96(%rsp)
	movaps	%xmm7, REGS_VEC+112(%rsp)
	movq	%r11, F_DESC(%rsp)
	/* the guard: initial-exec TLS, one compare */
	movq	dc_fentry_busy@GOTTPOFF(%rip), %rax
	cmpl	$0, %fs:(%rax)
	jne	1f
	movl	$1, %fs:(%rax)
	movq	%rsp, %rdi
	call	*D_CALLS(%r11)
	movq	dc_fentry_busy@GOTTPOFF(%rip), %rax
	movl	$0, %fs:(%rax)
1:	movq	REGS_ARG+0(%rsp), %rdi
	movq	REGS_ARG+8(%rsp), %rsi
	movq	REGS_ARG+16(%rsp), %rdx
	movq	REGS_ARG+24(%rsp), %rcx
	movq	REGS_ARG+32(%rsp), %r8
	movq	REGS_ARG+40(%rsp), %r9
	movaps	REGS_VEC+0(%rsp), %xmm0
	movaps	REGS_VEC+16(%rsp), %xmm1
	movaps	REGS_VEC+32(%rsp), %xmm2
	movaps	REGS_VEC+48(%rsp), %xmm3
	movaps	REGS_VEC+64(%rsp), %xmm4
	movaps	REGS_VEC+80(%rsp), %xmm5
	movaps	REGS_VEC+96(%rsp), %xmm6
	movaps	REGS_VEC+112(%rsp), %xmm7
	movq	F_DESC(%rsp), %r11
	movq	REGS_RAX(%rsp), %rax
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	jmp	*D_RESUME(%r11)
	.cfi_endproc
	.size	dc_fentry_tramp, .-dc_fentry_tramp

	.section .note.GNU-stack,"",@progbits
