/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Common entries of the generated code (aarch64).
 *
 * Both are reached from a region header entry by `br x16`, with the
 * caller's state exactly as at the trampoline:
 *     x17  site (discovery) or &a guard stub's site literal (miss)
 *     x18  the pointer the site loaded (static chain)
 *     x30  the return address of the site's `bl tramp` (CALL sites)
 * and every argument register live (x0-x7, x8 indirect result, q0-q7).
 * They save those, call the C handler, restore, and continue to the slow
 * path (`mov x16, x18; br x16`), so the call completes as if nothing had
 * happened; when the handler returns DC_GO_RETURN (a conditional site
 * that loaded NULL, as its trampoline's `cbz x18` would) they `ret`.  x30 is saved and restored unchanged, never signed: the
 * site's return address belongs to the site's caller (PAC is unaffected).
 * SVE argument state beyond q0-q7 (the upper bits of z0-z7, p0-p3) is
 * not preserved across the handler: do not annotate calls that pass SVE
 * vectors (docs/arches.md).
 */
	.text

#define FRAME 224	/* x29/x30, x0-x8, x18 (96) + q0-q7 (128) */

/* BTI landing pad for `br x16` (a hint: a NOP without BTI). */
#define BTI_C hint #34

.macro SAVE
	sub	sp, sp, #FRAME
	.cfi_adjust_cfa_offset FRAME
	stp	x29, x30, [sp, #0]
	.cfi_rel_offset x29, 0
	.cfi_rel_offset x30, 8
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x8, x18, [sp, #80]
	stp	q0, q1, [sp, #96]
	stp	q2, q3, [sp, #128]
	stp	q4, q5, [sp, #160]
	stp	q6, q7, [sp, #192]
.endm

.macro RESTORE_AND_GO
	ldp	q6, q7, [sp, #192]
	ldp	q4, q5, [sp, #160]
	ldp	q2, q3, [sp, #128]
	ldp	q0, q1, [sp, #96]
	ldp	x8, x18, [sp, #80]
	ldp	x6, x7, [sp, #64]
	ldp	x4, x5, [sp, #48]
	ldp	x2, x3, [sp, #32]
	ldp	x0, x1, [sp, #16]
	ldp	x29, x30, [sp, #0]
	add	sp, sp, #FRAME
	.cfi_adjust_cfa_offset -FRAME
	cmp	w16, #2			/* DC_GO_RETURN: a conditional site */
	b.ne	1f			/* that loaded NULL calls nothing   */
	ret
1:	mov	x16, x18
	br	x16
.endm

	.globl	dc_aarch64_discover_entry
	.hidden	dc_aarch64_discover_entry
	.type	dc_aarch64_discover_entry, %function
	.p2align 4
dc_aarch64_discover_entry:
	.cfi_startproc
	BTI_C
	SAVE
	mov	x0, x17			/* site */
	mov	x1, x30			/* return address of the bl */
	mov	x2, x18			/* the pointer the site loaded */
	bl	dc_discover
	mov	w16, w0			/* the slow path's flavor */
	RESTORE_AND_GO
	.cfi_endproc
	.size	dc_aarch64_discover_entry, . - dc_aarch64_discover_entry

	.globl	dc_aarch64_miss_entry
	.hidden	dc_aarch64_miss_entry
	.type	dc_aarch64_miss_entry, %function
	.p2align 4
dc_aarch64_miss_entry:
	.cfi_startproc
	BTI_C
	SAVE
	mov	x0, x17			/* &site literal of the guard stub */
	mov	x1, x30			/* return address (CALL sites) */
	mov	x2, x18			/* the pointer the site loaded */
	bl	dc_miss
	mov	w16, w0			/* the slow path's flavor */
	RESTORE_AND_GO
	.cfi_endproc
	.size	dc_aarch64_miss_entry, . - dc_aarch64_miss_entry

	.section .note.GNU-stack, "", %progbits

#include "aarch64_property.h"
