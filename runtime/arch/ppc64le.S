/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Common entries of the generated code (ppc64le, ELFv2): a guard stub's
 * miss (learning, checking mode) and a conditional site's discovery.
 * Reached from a region header by `bctr` with
 *     r12  this entry (global entry point: sets up our r2)
 *     r0   &the guard stub's site literal (miss) or the site (discovery)
 *     r11  the pointer the site loaded (static chain)
 *     lr   the return address of the site's call
 * and every argument register live: r3-r10, f1-f13, v2-v13.  r2 is not
 * preserved: every dyncall site restores it after the call (ld r2,24(r1),
 * the TOC saved by the linker's stub; docs/abi.md).  Each saves the
 * argument registers, calls dc_miss or dc_discover, restores, and
 * continues to the slow path (mtctr r11; mr r12, r11; bctr); discovery
 * returns instead (blr, to the site's ld r2) when dc_discover says
 * DC_GO_RETURN: a conditional site that loaded NULL, as its trampoline's
 * `cmpdi r11, 0; beqlr` would.
 */
	.abiversion 2
	.text

#define FRAME 400	/* 32 header + r3-r11 (72) + f1-f13 (104) + v2-v13 (192) */
#define GPR 32
#define FPR 104
#define VR 208

.macro SAVE
	mflr	0
	std	0, 16(1)
	stdu	1, -FRAME(1)
	std	3, GPR+0(1)
	std	4, GPR+8(1)
	std	5, GPR+16(1)
	std	6, GPR+24(1)
	std	7, GPR+32(1)
	std	8, GPR+40(1)
	std	9, GPR+48(1)
	std	10, GPR+56(1)
	std	11, GPR+64(1)
	stfd	1, FPR+0(1)
	stfd	2, FPR+8(1)
	stfd	3, FPR+16(1)
	stfd	4, FPR+24(1)
	stfd	5, FPR+32(1)
	stfd	6, FPR+40(1)
	stfd	7, FPR+48(1)
	stfd	8, FPR+56(1)
	stfd	9, FPR+64(1)
	stfd	10, FPR+72(1)
	stfd	11, FPR+80(1)
	stfd	12, FPR+88(1)
	stfd	13, FPR+96(1)
	.irp	n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	li	0, VR+16*(\n-2)
	stvx	\n, 1, 0
	.endr
.endm

.macro RESTORE
	.irp	n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	li	0, VR+16*(\n-2)
	lvx	\n, 1, 0
	.endr
	lfd	1, FPR+0(1)
	lfd	2, FPR+8(1)
	lfd	3, FPR+16(1)
	lfd	4, FPR+24(1)
	lfd	5, FPR+32(1)
	lfd	6, FPR+40(1)
	lfd	7, FPR+48(1)
	lfd	8, FPR+56(1)
	lfd	9, FPR+64(1)
	lfd	10, FPR+72(1)
	lfd	11, FPR+80(1)
	lfd	12, FPR+88(1)
	lfd	13, FPR+96(1)
	ld	3, GPR+0(1)
	ld	4, GPR+8(1)
	ld	5, GPR+16(1)
	ld	6, GPR+24(1)
	ld	7, GPR+32(1)
	ld	8, GPR+40(1)
	ld	9, GPR+48(1)
	ld	10, GPR+56(1)
	ld	11, GPR+64(1)
	addi	1, 1, FRAME
	ld	0, 16(1)
	mtlr	0
.endm

	.globl	dc_ppc64le_miss_entry
	.hidden	dc_ppc64le_miss_entry
	.type	dc_ppc64le_miss_entry, @function
	.p2align 4
dc_ppc64le_miss_entry:
0:	addis	2, 12, .TOC.-0b@ha
	addi	2, 2, .TOC.-0b@l
	.localentry dc_ppc64le_miss_entry, .-dc_ppc64le_miss_entry
	mr	12, 0			/* &site literal */
	SAVE
	mr	3, 12			/* &site literal of the guard stub */
	ld	4, FRAME+16(1)		/* return address of the site's call */
	mr	5, 11			/* the pointer the site loaded */
	bl	dc_miss
	nop
	RESTORE
	mtctr	11
	mr	12, 11
	bctr
	.size	dc_ppc64le_miss_entry, . - dc_ppc64le_miss_entry

	.globl	dc_ppc64le_discover_entry
	.hidden	dc_ppc64le_discover_entry
	.type	dc_ppc64le_discover_entry, @function
	.p2align 4
dc_ppc64le_discover_entry:
0:	addis	2, 12, .TOC.-0b@ha
	addi	2, 2, .TOC.-0b@l
	.localentry dc_ppc64le_discover_entry, .-dc_ppc64le_discover_entry
	mr	12, 0			/* the site */
	SAVE
	mr	3, 12			/* the site (struct dc_site) */
	ld	4, FRAME+16(1)		/* return address of the site's call */
	mr	5, 11			/* the pointer the site loaded */
	bl	dc_discover
	nop
	mr	12, 3			/* what to do (RESTORE keeps r12) */
	RESTORE
	cmpdi	12, 2			/* DC_GO_RETURN: a conditional site */
	beqlr				/* that loaded NULL calls nothing   */
	mtctr	11
	mr	12, 11
	bctr
	.size	dc_ppc64le_discover_entry, . - dc_ppc64le_discover_entry

	.section .note.GNU-stack, "", @progbits
