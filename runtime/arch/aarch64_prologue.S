/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * aarch64 function-entry patching: the common trampoline every jump
 * function enters (aarch64_prologue.c, docs/prologues.md).
 *
 * Entered by `br x16` with x17 = the jump function's descriptor
 * { calls, resume, fn } and the registers as at the hooked function's
 * entry (x30 = its caller's return address).  Saves the argument
 * registers in a struct dyncall_regs on the stack, runs the handlers
 * (desc->calls, generated: direct calls to each) unless this thread is
 * already inside a handler (dc_fentry_busy, the recursion guard),
 * restores the argument registers (as the handlers left them) and
 * continues at desc->resume with `ret x16`: the function's body (no BTI
 * landing pad: RET is not checked) or a redirect target.  x30 is the
 * caller's return address again by then.
 *
 * Uses x9-x11, x16, x17 (temporaries at a call boundary).
 * dc_fentry_tramp_novec is the same without the q0-q7 saves, for jump
 * functions whose handlers were all hooked with DYNCALL_FN_NO_VEC or
 * whose function's record says it takes no argument in v0-v7;
 * dc_fentry_tramp_v2, _v4 and _v6 save q0-q1, q0-q3 and q0-q5 only
 * (a record's count of vector argument registers, rounded up to a pair:
 * one stp/ldp each).  dc_fentry_tramp_q<v>_x<x> save v pairs of q0-q7
 * and x pairs of x0-x7 (0 to 3; the forms above save all four): a
 * record's count of integer argument registers (DYNCALL_FN_REC_INT_COUNT)
 * rounded up to a pair; x8 is saved always (it shares its stp with x30).
 */
#define REGS 16         /* struct dyncall_regs, above the frame record */
#define R_X8 64         /*   x8, then ret                              */
#define R_VEC 80        /*   vec[8][2]                                 */
#define F_DESC 224      /* the descriptor, saved                       */
#define FRAME 240       /* a multiple of 16                            */
#define D_CALLS 0
#define D_RESUME 8

/* The trampoline; vec: the pairs of q0-q7 saved (0: none, 4: all); ints:
 * the pairs of x0-x7 saved (4: all; x8 always, beside x30). */
	.macro	FENTRY_TRAMP name, vec, ints=4
	.globl	\name
	.hidden	\name
	.type	\name, %function
	.p2align 4
\name:
	.cfi_startproc
	bti	c
	stp	x29, x30, [sp, #-FRAME]!
	.cfi_def_cfa_offset FRAME
	.cfi_offset x29, -FRAME
	.cfi_offset x30, -FRAME+8
	mov	x29, sp
	.if \ints >= 1
	stp	x0, x1, [sp, #REGS+0]
	.endif
	.if \ints >= 2
	stp	x2, x3, [sp, #REGS+16]
	.endif
	.if \ints >= 3
	stp	x4, x5, [sp, #REGS+32]
	.endif
	.if \ints >= 4
	stp	x6, x7, [sp, #REGS+48]
	.endif
	stp	x8, x30, [sp, #REGS+R_X8]
	.if \vec >= 1
	stp	q0, q1, [sp, #REGS+R_VEC]
	.endif
	.if \vec >= 2
	stp	q2, q3, [sp, #REGS+R_VEC+32]
	.endif
	.if \vec >= 3
	stp	q4, q5, [sp, #REGS+R_VEC+64]
	.endif
	.if \vec >= 4
	stp	q6, q7, [sp, #REGS+R_VEC+96]
	.endif
	str	x17, [sp, #F_DESC]
	/* the guard: initial-exec TLS */
	mrs	x9, tpidr_el0
	adrp	x10, :gottprel:dc_fentry_busy
	ldr	x10, [x10, #:gottprel_lo12:dc_fentry_busy]
	add	x10, x9, x10
	ldr	w11, [x10]
	cbnz	w11, \@f
	mov	w11, #1
	str	w11, [x10]
	add	x0, sp, #REGS
	ldr	x16, [x17, #D_CALLS]
	blr	x16
	mrs	x9, tpidr_el0
	adrp	x10, :gottprel:dc_fentry_busy
	ldr	x10, [x10, #:gottprel_lo12:dc_fentry_busy]
	str	wzr, [x9, x10]
\@:
	.if \ints >= 1
	ldp	x0, x1, [sp, #REGS+0]
	.endif
	.if \ints >= 2
	ldp	x2, x3, [sp, #REGS+16]
	.endif
	.if \ints >= 3
	ldp	x4, x5, [sp, #REGS+32]
	.endif
	.if \ints >= 4
	ldp	x6, x7, [sp, #REGS+48]
	.endif
	ldr	x8, [sp, #REGS+R_X8]
	.if \vec >= 1
	ldp	q0, q1, [sp, #REGS+R_VEC]
	.endif
	.if \vec >= 2
	ldp	q2, q3, [sp, #REGS+R_VEC+32]
	.endif
	.if \vec >= 3
	ldp	q4, q5, [sp, #REGS+R_VEC+64]
	.endif
	.if \vec >= 4
	ldp	q6, q7, [sp, #REGS+R_VEC+96]
	.endif
	ldr	x17, [sp, #F_DESC]
	ldr	x16, [x17, #D_RESUME]
	ldp	x29, x30, [sp], #FRAME
	.cfi_def_cfa_offset 0
	.cfi_restore x29
	.cfi_restore x30
	ret	x16
	.cfi_endproc
	.size	\name, .-\name
	.endm

	.text
	FENTRY_TRAMP dc_fentry_tramp, 4
	FENTRY_TRAMP dc_fentry_tramp_novec, 0
	FENTRY_TRAMP dc_fentry_tramp_v2, 1
	FENTRY_TRAMP dc_fentry_tramp_v4, 2
	FENTRY_TRAMP dc_fentry_tramp_v6, 3
	/* with the first 0, 2, 4 or 6 of x0-x7 only (a record's integer
	 * count, DYNCALL_FN_REC_INT_COUNT, rounded up to a pair):
	 * dc_fentry_tramp_q<vec pairs>_x<int pairs> */
	.irp	v, 0, 1, 2, 3, 4
	.irp	x, 0, 1, 2, 3
	FENTRY_TRAMP dc_fentry_tramp_q\v\()_x\x, \v, \x
	.endr
	.endr

	.section .note.GNU-stack,"",%progbits

#include "aarch64_property.h"
