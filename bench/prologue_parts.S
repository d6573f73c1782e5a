/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * prologue_parts: copies of the x86-64 jump function (runtime/arch/
 * x86_64_prologue.c) with parts left out, to see what each part of a
 * hooked call costs (prologue_parts.c, docs/prologues.md "Measured
 * numbers").  Each variant is entered like a jump function (by a jmp, here
 * a call from the loop straight to it), calls pp_handler(fn, ret, data,
 * regs) and jumps to pp_body, the trivial function (lea 1(%rdi), %rax).
 *
 *   JF_OLD  the jump function before 2026-11-27: push %rbp first after the
 *           guard, 16-byte aligned regs, r10 at 192(%rsp)
 *           G: the guard (0 without its two stores, the test kept)
 *           S: the 7 argument saves and their reloads
 *           V: the xmm0-7 saves and reloads
 *   JF_NEW  the current one: its stores paired by 64-byte line
 *           V: the vector saves and reloads (0, xmm0 only, xmm0-7)
 *           Z: vzeroupper before them (a function with a record, on a
 *              CPU with AVX)
 *           G: the guard's two stores (0: left out, the test kept)
 *           A: 6, every argument register and %rax saved and reloaded;
 *              1, only %rdi (what a record of the integer argument
 *              registers would allow for f(long): not implemented)
 */
	.text
	.globl	pp_body
	.p2align 4
pp_body:
	lea	1(%rdi), %rax
	ret

	.macro	JF_OLD name, G, S, V
	.globl	\name
	.p2align 4
\name:
	endbr64
	cmpl	$0, %fs:pp_busy@tpoff
	jne	pp_body
	.if \G
	movl	$1, %fs:pp_busy@tpoff
	.endif
	push	%rbp
	mov	%rsp, %rbp
	and	$-16, %rsp
	sub	$208, %rsp
	.if \S
	mov	%rdi, (%rsp)
	mov	%rsi, 8(%rsp)
	mov	%rdx, 16(%rsp)
	mov	%rcx, 24(%rsp)
	mov	%r8, 32(%rsp)
	mov	%r9, 40(%rsp)
	mov	%rax, 48(%rsp)
	.endif
	mov	%r10, 192(%rsp)
	mov	8(%rbp), %rsi
	mov	%rsi, 56(%rsp)
	.if \V
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm1, 80(%rsp)
	movaps	%xmm2, 96(%rsp)
	movaps	%xmm3, 112(%rsp)
	movaps	%xmm4, 128(%rsp)
	movaps	%xmm5, 144(%rsp)
	movaps	%xmm6, 160(%rsp)
	movaps	%xmm7, 176(%rsp)
	.endif
	movabs	$pp_body, %rdi
	movabs	$pp_count, %rdx
	mov	%rsp, %rcx
	call	pp_handler
	.if \G
	movl	$0, %fs:pp_busy@tpoff
	.endif
	.if \S
	mov	(%rsp), %rdi
	mov	8(%rsp), %rsi
	mov	16(%rsp), %rdx
	mov	24(%rsp), %rcx
	mov	32(%rsp), %r8
	mov	40(%rsp), %r9
	mov	48(%rsp), %rax
	.endif
	mov	192(%rsp), %r10
	.if \V
	movaps	64(%rsp), %xmm0
	movaps	80(%rsp), %xmm1
	movaps	96(%rsp), %xmm2
	movaps	112(%rsp), %xmm3
	movaps	128(%rsp), %xmm4
	movaps	144(%rsp), %xmm5
	movaps	160(%rsp), %xmm6
	movaps	176(%rsp), %xmm7
	.endif
	mov	%rbp, %rsp
	pop	%rbp
	jmp	pp_body
	.endm

	.macro	JF_NEW name, V, Z=0, G=1, A=6
	.globl	\name
	.p2align 4
\name:
	endbr64
	cmpl	$0, %fs:pp_busy@tpoff
	jne	pp_body
	push	%rbp
	mov	%rsp, %rbp
	.if \G
	movl	$1, %fs:pp_busy@tpoff
	.endif
	and	$-64, %rsp
	sub	$272, %rsp
	mov	%rdi, 16(%rsp)
	.if \A > 1
	mov	%rsi, 24(%rsp)
	mov	%rdx, 32(%rsp)
	mov	%rcx, 40(%rsp)
	mov	%r8, 48(%rsp)
	mov	%r9, 56(%rsp)
	mov	%rax, 64(%rsp)
	.endif
	mov	8(%rbp), %rsi
	mov	%rsi, 72(%rsp)
	.if \Z
	vzeroupper
	.endif
	.if \V
	movaps	%xmm0, 80(%rsp)
	.endif
	.if \V > 1
	movaps	%xmm1, 96(%rsp)
	movaps	%xmm2, 112(%rsp)
	movaps	%xmm3, 128(%rsp)
	movaps	%xmm4, 144(%rsp)
	movaps	%xmm5, 160(%rsp)
	movaps	%xmm6, 176(%rsp)
	movaps	%xmm7, 192(%rsp)
	.endif
	mov	%r10, 8(%rsp)
	movabs	$pp_body, %rdi
	movabs	$pp_count, %rdx
	lea	16(%rsp), %rcx
	call	pp_handler
	.if \G
	movl	$0, %fs:pp_busy@tpoff
	.endif
	mov	16(%rsp), %rdi
	.if \A > 1
	mov	24(%rsp), %rsi
	mov	32(%rsp), %rdx
	mov	40(%rsp), %rcx
	mov	48(%rsp), %r8
	mov	56(%rsp), %r9
	mov	64(%rsp), %rax
	.endif
	mov	8(%rsp), %r10
	.if \V
	movaps	80(%rsp), %xmm0
	.endif
	.if \V > 1
	movaps	96(%rsp), %xmm1
	movaps	112(%rsp), %xmm2
	movaps	128(%rsp), %xmm3
	movaps	144(%rsp), %xmm4
	movaps	160(%rsp), %xmm5
	movaps	176(%rsp), %xmm6
	movaps	192(%rsp), %xmm7
	.endif
	mov	%rbp, %rsp
	pop	%rbp
	jmp	pp_body
	.endm

/* the handler call alone, on an aligned stack: no guard, no saves */
	.globl	pp_call_only
	.p2align 4
pp_call_only:
	sub	$8, %rsp
	movabs	$pp_body, %rdi
	movabs	$pp_count, %rdx
	mov	%rsp, %rcx
	call	pp_handler
	add	$8, %rsp
	jmp	pp_body

/*
 * The floor: the branches a hook's path cannot do without and nothing
 * else.  The patched NOP jumps to the jump function, which calls the
 * handler and jumps back to the body; here the handler is empty (a ret)
 * and there is no guard, no save, no argument:
 *
 *   pp_floor:  jmp 1f          the patched NOP (e9 rel32)
 *          1:  call pp_empty   the handler call  -> ret
 *              jmp pp_body     resume (the body: lea; ret)
 *
 * Every jump function has this skeleton, so a machine on which this row
 * costs more than a goal over "the function alone" cannot meet the goal
 * with any jump function (docs/prologues.md "The floor on Zen 3").
 */
	.globl	pp_empty
	.p2align 4
pp_empty:
	ret

	.globl	pp_empty_call
	.p2align 4
pp_empty_call:
	sub	$8, %rsp
	movabs	$pp_body, %rdi
	movabs	$pp_count, %rdx
	mov	%rsp, %rcx
	call	pp_empty
	add	$8, %rsp
	jmp	pp_body

	.globl	pp_floor
	.p2align 4
pp_floor:
	jmp	1f
	.p2align 4
1:	call	pp_empty
	jmp	pp_body

	.globl	pp_new_1arg_entry
	.p2align 4
pp_new_1arg_entry:
	jmp	pp_new_novec_1arg

	JF_OLD	pp_old_novec, 1, 1, 0
	JF_OLD	pp_old_novec_noguard, 0, 1, 0
	JF_OLD	pp_old_novec_nosaves, 1, 0, 0
	JF_OLD	pp_old_vec, 1, 1, 1
	JF_NEW	pp_new_novec, 0
	JF_NEW	pp_new_vec, 8
	JF_NEW	pp_new_vec1, 1
	JF_NEW	pp_new_novec_vzu, 0, 1
	JF_NEW	pp_new_vec1_vzu, 1, 1
	JF_NEW	pp_new_novec_noguard, 0, 1, 0
	JF_NEW	pp_new_novec_1arg, 0, 1, 1, 1
	JF_NEW	pp_new_vec1_1arg, 1, 1, 1, 1

	.section .tbss,"awT",@nobits
	.p2align 2
pp_busy:
	.zero	4
	.section .note.GNU-stack,"",@progbits
