/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Common entries of the generated code (x86-64).
 *
 * Both are reached from a trampoline's destination through a region
 * header entry, with the caller's frame exactly as at the trampoline plus
 * one pushed word:
 *
 *     0(%rsp)  site (discovery) or &the guard stub's site literal (miss)
 *     8(%rsp)  the return address pushed by the site's call (CALL sites)
 *
 * and every argument register live.  They save what a callee may not
 * clobber here (the argument registers, %rax for varargs, %r10 the loaded
 * pointer), call the C handler with a 16-byte aligned stack, restore, drop
 * the pushed word and continue to the slow path, the loaded pointer in
 * %r10, so the call completes as if nothing happened.  The handler's
 * return value chooses the slow path: 0 jmp *%r10, 1 a retpoline, 2 a
 * return to the site's caller without a call (a conditional site that
 * loaded NULL: what its trampoline's slow path does, abi.h).
 */
	.text

#define FRAME 224	/* xmm0-7 (128) + 9 GPRs (72) + flavor, 16-aligned */
#define GPR 128
#define FLAVOR 200

.macro SAVE
	push	%rbp
	mov	%rsp, %rbp
	and	$-16, %rsp
	sub	$FRAME, %rsp
	movaps	%xmm0, 0(%rsp)
	movaps	%xmm1, 16(%rsp)
	movaps	%xmm2, 32(%rsp)
	movaps	%xmm3, 48(%rsp)
	movaps	%xmm4, 64(%rsp)
	movaps	%xmm5, 80(%rsp)
	movaps	%xmm6, 96(%rsp)
	movaps	%xmm7, 112(%rsp)
	mov	%rdi, GPR+0(%rsp)
	mov	%rsi, GPR+8(%rsp)
	mov	%rdx, GPR+16(%rsp)
	mov	%rcx, GPR+24(%rsp)
	mov	%r8, GPR+32(%rsp)
	mov	%r9, GPR+40(%rsp)
	mov	%rax, GPR+48(%rsp)
	mov	%r10, GPR+56(%rsp)
	mov	%r11, GPR+64(%rsp)
.endm

.macro RESTORE_AND_GO
	mov	%eax, FLAVOR(%rsp)
	movaps	0(%rsp), %xmm0
	movaps	16(%rsp), %xmm1
	movaps	32(%rsp), %xmm2
	movaps	48(%rsp), %xmm3
	movaps	64(%rsp), %xmm4
	movaps	80(%rsp), %xmm5
	movaps	96(%rsp), %xmm6
	movaps	112(%rsp), %xmm7
	mov	GPR+0(%rsp), %rdi
	mov	GPR+8(%rsp), %rsi
	mov	GPR+16(%rsp), %rdx
	mov	GPR+24(%rsp), %rcx
	mov	GPR+32(%rsp), %r8
	mov	GPR+40(%rsp), %r9
	mov	GPR+48(%rsp), %rax
	mov	GPR+56(%rsp), %r10
	mov	FLAVOR(%rsp), %r11d
	mov	%rbp, %rsp
	pop	%rbp
	lea	8(%rsp), %rsp		/* drop the pushed word, keep flags */
	cmp	$2, %r11d
	jne	4f
	ret				/* conditional site, NULL: no call */
4:	test	%r11d, %r11d
	jnz	1f
	jmp	*%r10
1:	call	3f			/* retpoline on %r10 */
2:	pause
	lfence
	jmp	2b
3:	mov	%r10, (%rsp)
	ret
.endm

	.globl	dc_x86_64_discover_entry
	.hidden	dc_x86_64_discover_entry
	.type	dc_x86_64_discover_entry, @function
	.p2align 4
dc_x86_64_discover_entry:
	.byte	0xf3, 0x0f, 0x1e, 0xfa	/* endbr64: reached by jmp *lit */
	SAVE
	mov	8(%rbp), %rdi		/* site */
	mov	16(%rbp), %rsi		/* return address of the call */
	mov	%r10, %rdx		/* the pointer the site loaded */
	call	dc_discover
	RESTORE_AND_GO
	.size	dc_x86_64_discover_entry, . - dc_x86_64_discover_entry

	.globl	dc_x86_64_miss_entry
	.hidden	dc_x86_64_miss_entry
	.type	dc_x86_64_miss_entry, @function
	.p2align 4
dc_x86_64_miss_entry:
	.byte	0xf3, 0x0f, 0x1e, 0xfa	/* endbr64 */
	SAVE
	mov	8(%rbp), %rdi		/* &site literal of the guard stub */
	mov	16(%rbp), %rsi		/* return address (CALL sites) */
	mov	%r10, %rdx		/* the pointer the site loaded */
	call	dc_miss
	RESTORE_AND_GO
	.size	dc_x86_64_miss_entry, . - dc_x86_64_miss_entry

	.section .note.GNU-stack, "", @progbits
