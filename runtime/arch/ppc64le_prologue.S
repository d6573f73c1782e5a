/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * ppc64le (ELFv2) function-entry patching: the common trampoline every
 * jump function enters (ppc64le_prologue.c, docs/prologues.md).
 *
 * Entered by bctr from a jump function with r12 = dc_fentry_tramp (so
 * this global entry computes libdyncall's TOC), r0 = the descriptor
 * { resume, fn, n, (handler, data) x n }, and the registers as at the
 * hooked function's entry: LR = its caller's return address, r1 the
 * caller's stack, r2 the function's TOC.  Saves the argument registers in
 * a struct dyncall_regs, calls each handler (bctrl, r12 = handler) unless
 * this thread is already inside a handler (dc_fentry_busy, the recursion
 * guard), restores the argument registers (as the handlers left them), r2,
 * r11 (the static chain) and LR, pops its frame and continues at
 * desc->resume with bctr and r12 = resume: the function's body past the
 * entry nop, or a redirect target (its global entry).
 * dc_fentry_tramp_novec is the same without the f1-f13 and v2-v13 saves,
 * for jump functions whose handlers were all hooked with
 * DYNCALL_FN_NO_VEC or whose function's record says it takes no
 * floating-point or vector argument: regs->fpr and regs->vec are then not
 * filled in, and writing them has no effect.  dc_fentry_tramp_f2, _f4,
 * _f8, _f13 save f1 up to that register and no vector register, for a
 * function whose record counts that many FPRs and no VR (abi.h
 * DYNCALL_FN_REC_VEC2_COUNT): regs->fpr past them and regs->vec are not
 * filled in.  dc_fentry_tramp_f<f>_r<r> (f: 0, 2, 4, 8, 13; r: 0, 1, 2, 4,
 * 8) save f1..f(f) and r3..r(r+2) only, and not r11: for a function whose
 * record also counts its integer argument registers
 * (DYNCALL_FN_REC_INT_COUNT, never with a static chain), rounded up to r;
 * regs->arg past them is not filled in.
 */
#define HDR 96          /* back chain, CR, LR, TOC save, param save area */
#define REGS HDR        /* struct dyncall_regs                           */
#define R_RET 64        /*   ret                                         */
#define R_FPR 72        /*   fpr[13]: f1..f13                            */
#define R_VEC 176       /*   vec[12][2]: v2..v13                         */
#define F_TOC (REGS+368)  /* the function's r2                           */
#define F_DESC (REGS+376)
#define F_R11 (REGS+384)
#define F_R29 (REGS+392)
#define F_R30 (REGS+400)
#define F_R31 (REGS+408)
#define FRAME (REGS+416)  /* 512, a multiple of 16                       */
#define D_RESUME 0
#define D_FN 8
#define D_N 16
#define D_HANDLERS 24

	.abiversion 2
	.text
/* The argument registers to or from the struct dyncall_regs: op (std or
 * ld) r3..r(ints+2), fop (stfd or lfd) f1..f(fpr), vop (stvx or lvx)
 * v2..v13 when vr is 1 (r0 the offset) */
	.macro	ARG_REGS op, fop, vop, fpr, vr, ints
	.set	i, 0
	.rept	\ints
	\op	3+i, REGS+8*i(1)
	.set	i, i+1
	.endr
	.set	i, 1
	.rept	\fpr
	\fop	i, REGS+R_FPR+8*(i-1)(1)
	.set	i, i+1
	.endr
	.if \vr
	.set	i, 2
	.rept	12
	li	0, REGS+R_VEC+16*(i-2)
	\vop	i, 1, 0
	.set	i, i+1
	.endr
	.endif
	.endm

/* The trampoline; fpr: f1..f(fpr) saved and restored (0-13), vr: v2..v13
 * too (0 or 1), ints: r3..r(ints+2) (0-8), r11: the static chain too (0
 * or 1: 0 only when the record counts the integer registers, which it
 * never does for a function with a static chain). */
	.macro	FENTRY_TRAMP name, fpr, vr, ints=8, r11=1
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	stdu	1, -FRAME(1)
	.cfi_def_cfa_offset FRAME
	std	2, F_TOC(1)
	addis	2, 12, (.TOC.-\name)@ha
	addi	2, 2, (.TOC.-\name)@l
	std	0, F_DESC(1)
	mflr	0
	std	0, FRAME+16(1)
	.cfi_offset lr, 16
	std	0, REGS+R_RET(1)
	.if \r11
	std	11, F_R11(1)
	.endif
	std	29, F_R29(1)
	std	30, F_R30(1)
	std	31, F_R31(1)
	ARG_REGS std, stfd, stvx, \fpr, \vr, \ints
	std	2, 24(1)		/* libdyncall's TOC, across the calls */
	/* the guard: initial-exec TLS */
	addis	9, 2, dc_fentry_busy@got@tprel@ha
	ld	9, dc_fentry_busy@got@tprel@l(9)
	add	9, 9, dc_fentry_busy@tls
	lwz	10, 0(9)
	cmpwi	10, 0
	bne	2f
	li	10, 1
	stw	10, 0(9)
	ld	31, F_DESC(1)
	ld	30, D_N(31)
	addi	29, 31, D_HANDLERS
	cmpdi	30, 0
	beq	1f
0:	ld	3, D_FN(31)
	ld	4, REGS+R_RET(1)
	ld	5, 8(29)
	addi	6, 1, REGS
	ld	12, 0(29)
	mtctr	12
	bctrl
	ld	2, 24(1)
	addi	29, 29, 16
	addic.	30, 30, -1
	bne	0b
1:	addis	9, 2, dc_fentry_busy@got@tprel@ha
	ld	9, dc_fentry_busy@got@tprel@l(9)
	add	9, 9, dc_fentry_busy@tls
	li	10, 0
	stw	10, 0(9)
2:	ARG_REGS ld, lfd, lvx, \fpr, \vr, \ints
	.if \r11
	ld	11, F_R11(1)
	.endif
	ld	29, F_R29(1)
	ld	30, F_R30(1)
	ld	31, F_R31(1)
	ld	12, F_DESC(1)
	ld	12, D_RESUME(12)
	mtctr	12
	ld	2, F_TOC(1)
	ld	0, FRAME+16(1)
	mtlr	0
	addi	1, 1, FRAME
	.cfi_def_cfa_offset 0
	bctr
	.cfi_endproc
	.size	\name, .-\name
	.endm

	FENTRY_TRAMP dc_fentry_tramp, 13, 1
	FENTRY_TRAMP dc_fentry_tramp_novec, 0, 0
	FENTRY_TRAMP dc_fentry_tramp_f2, 2, 0
	FENTRY_TRAMP dc_fentry_tramp_f4, 4, 0
	FENTRY_TRAMP dc_fentry_tramp_f8, 8, 0
	FENTRY_TRAMP dc_fentry_tramp_f13, 13, 0
	/* with the first 0, 1, 2, 4 or 8 of r3-r10 and not r11 (a record's
	 * integer count, DYNCALL_FN_REC_INT_COUNT, rounded up):
	 * dc_fentry_tramp_f<FPRs>_r<GPRs> */
	.irp	f, 0, 2, 4, 8, 13
	.irp	r, 0, 1, 2, 4, 8
	FENTRY_TRAMP dc_fentry_tramp_f\f\()_r\r, \f, 0, \r, 0
	.endr
	.endr

/* The symbol Clang's XRay entry sleds call (`bl __xray_FunctionEntry`,
 * ppc64le_prologue.c arch_fentry_probe_xray): the sled's first word
 * branches over that call, and patching replaces only that word, so it is
 * never executed; it is defined so that modules built for the Clang route
 * link and load without compiler-rt's XRay runtime (dyncall-cc links
 * none).  Were it ever reached, returning is what the sled expects. */
	.globl	__xray_FunctionEntry
	.type	__xray_FunctionEntry, @function
	.p2align 4
__xray_FunctionEntry:
	blr
	.size	__xray_FunctionEntry, .-__xray_FunctionEntry

	.section .note.GNU-stack,"",@progbits
