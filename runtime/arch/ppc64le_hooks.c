// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * ppc64le (ELFv2) hook-list jump functions (arch.h "Hook lists",
 * docs/hooks.md).
 *
 * Reached through a site's trampoline (`b`, or `bctr` with r12) or an
 * indirect call, with the arguments of the list's prototype: r3..r10,
 * f1..f13, v2..v13 and, past eight doublewords, the parameter save area
 * at 32(r1) of the caller's frame.  It uses neither r2 nor r12 on entry:
 * every caller restores r2 after the call (a site's `ld r2, 24(r1)`, an
 * indirect call's own restore).  The integer arguments are kept in
 * r24..r31 (callee-saved, theirs saved first), f/v arguments and a copy
 * of the parameter save area in the frame; every handler but the first
 * gets them back; each handler is entered at its global entry (r12 = h,
 * bctrl: its TOC is its own); the last one is tail-called (bctr) with the
 * caller's own save area and return address.
 *
 *   jf:  7c0802a6            mflr r0
 *        f8010010            std r0, 16(r1)
 *        f821xxx1            stdu r1, -F(r1)
 *        fb01xxxx ...        std r24+i, ..(r1)       integer args kept
 *        d821xxxx ...        stfd f<j>, ..(r1)       j = 1..nfpr
 *        38000xxx 7c4101ce   li r0, ..; stvx v<k>, r1, r0   k = 2..
 *        7c..1b78            mr r24+i, r3+i
 *      per handler t:
 *        [stack] copy the caller's save area (F + 32(r1)) to 32(r1):
 *                ld/std r0 (<= 64 bytes), else ldu/stdu r0 on r11/r12
 *                counted in ctr
 *        [t > 0] mr r3+i, r24+i; lfd; lvx
 *        [data]  lis/ori/sldi/oris/ori r3, d[t]
 *        lis/ori/sldi/oris/ori r12, h[t]; 7d8903a6 mtctr r12
 *        4e800421            bctrl                   (t < n - 1)
 *      last handler:
 *        ld r24+i back; addi r1, r1, F; ld r0, 16(r1); mtlr r0
 *        4e800420            bctr
 *
 * One handler (the data variant): r3 = d, r12 = h, mtctr, bctr.
 * A frame over 30 KiB (16-bit displacements) is refused: 0 bytes.
 *
 * Unwind information (struct arch_cfi, written with the code): LR at the
 * caller's save word (CFA + 16) after the `std r0`, CFA = r1 + F after the
 * `stdu` and r1 after the `addi`, r24+i at their slots between their `std`
 * and `ld`, LR in the register again after `mtlr` (docs/hooks.md
 * "Unwinding from a handler").
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"
#include "dwarf_cfi.h"

#define INSN_MFLR_R0 0x7c0802a6u
#define INSN_MTLR_R0 0x7c0803a6u
#define INSN_STD 0xf8000000u /* std rs, d(ra) */
#define INSN_LD 0xe8000000u /* ld rt, d(ra) */
#define INSN_STDU_R1 0xf8210001u /* stdu r1, d(r1) */
#define INSN_ADDI 0x38000000u /* addi rt, ra, si (li: ra = 0) */
#define INSN_STFD 0xd8000000u /* stfd fs, d(ra) */
#define INSN_LFD 0xc8000000u /* lfd ft, d(ra) */
#define INSN_STVX_R1_R0 0x7c0101ceu /* stvx vs, r1, r0 */
#define INSN_LVX_R1_R0 0x7c0100ceu /* lvx vt, r1, r0 */
#define INSN_MR 0x7c000378u /* or ra, rs, rs */
#define INSN_LIS 0x3c000000u
#define INSN_ORI 0x60000000u
#define INSN_ORIS 0x64000000u
#define INSN_SLDI32 0x780007c6u /* rldicr ra, rs, 32, 31 */
#define INSN_MTCTR_R12 0x7d8903a6u
#define INSN_MTCTR_R0 0x7c0903a6u
#define INSN_BCTRL 0x4e800421u
#define INSN_BCTR 0x4e800420u
#define INSN_LDU_R0_8_R11 0xe80b0009u /* ldu r0, 8(r11) */
#define INSN_STDU_R0_8_R12 0xf80c0009u /* stdu r0, 8(r12) */
#define INSN_BDNZ 0x42000000u
#define R0 0
#define R1 1
#define R3 3
#define R11 11
#define R12 12
#define SAVED0 24 /* r3 -> r24, ..., r10 -> r31 */
#define DW_PPC64_LR 65 /* DWARF's number of LR (r0..r31 are 0..31) */
#define HEADER 32 /* back chain, CR, LR, TOC save */
#define STACK_UNROLL 64
#define MAX_FRAME 30000

struct jf {
	uint8_t *buf;
	size_t n;
};

static void w(struct jf *j, uint32_t insn)
{
	memcpy(j->buf + j->n, &insn, 4);
	j->n += 4;
}

static uint32_t d_form(uint32_t op, unsigned rt, unsigned ra, int32_t d)
{
	return op | rt << 21 | ra << 16 | ((uint32_t)d & 0xffff);
}

static void mr(struct jf *j, unsigned ra, unsigned rs)
{
	w(j, INSN_MR | rs << 21 | ra << 16 | rs << 11);
}

static void load_imm64(struct jf *j, unsigned r, uint64_t v)
{
	w(j, INSN_LIS | r << 21 | (uint32_t)(v >> 48));
	w(j, INSN_ORI | r << 21 | r << 16 | (uint32_t)((v >> 32) & 0xffff));
	w(j, INSN_SLDI32 | r << 21 | r << 16);
	w(j, INSN_ORIS | r << 21 | r << 16 | (uint32_t)((v >> 16) & 0xffff));
	w(j, INSN_ORI | r << 21 | r << 16 | (uint32_t)(v & 0xffff));
}

static void vec(struct jf *j, unsigned v, uint32_t off, bool load)
{
	w(j, INSN_ADDI | R0 << 21 | off); /* li r0, off */
	w(j, (load ? INSN_LVX_R1_R0 : INSN_STVX_R1_R0) | v << 21);
}

static void copy_stack(struct jf *j, unsigned bytes, uint32_t f)
{
	size_t loop;

	if (bytes <= STACK_UNROLL) {
		for (unsigned o = 0; o < bytes; o += 8) {
			w(j,
			  d_form(INSN_LD, R0, R1, (int32_t)(f + HEADER + o)));
			w(j, d_form(INSN_STD, R0, R1, (int32_t)(HEADER + o)));
		}
		return;
	}
	w(j, d_form(INSN_ADDI, R11, R1, (int32_t)(f + HEADER - 8)));
	w(j, d_form(INSN_ADDI, R12, R1, HEADER - 8));
	w(j, INSN_ADDI | R0 << 21 | bytes / 8); /* li r0, n */
	w(j, INSN_MTCTR_R0);
	loop = j->n;
	w(j, INSN_LDU_R0_8_R11);
	w(j, INSN_STDU_R0_8_R12);
	w(j, INSN_BDNZ | ((uint32_t)(-(int32_t)(j->n - loop)) & 0xfffc));
}

size_t arch_hooks_jf_size(const struct arch_hooks_sig *s, unsigned n)
{
	size_t copy = s->stack <= STACK_UNROLL ? s->stack / 8 * 8 : 28;
	size_t per = copy + 8 * 4 + 13 * 4 + 12 * 8 + 20 + 20 + 8;

	return 12 + 8 * 4 + 13 * 4 + 12 * 8 + 8 * 4 + n * per + 8 * 4 + 16 + 4;
}

size_t arch_hooks_emit_jf(uint8_t *buf, uintptr_t at,
			  const struct arch_hooks_sig *s, const uintptr_t *h,
			  const uintptr_t *d, unsigned n, struct arch_cfi *cfi)
{
	struct jf j = { buf, 0 };
	/* the unwind information, rule by rule as the frame changes (the
	 * CIE's at the entry: CFA = r1, the return address in LR) */
	struct cfi_writer c = { .cfi = cfi, .code_align = 4 };
	unsigned first = s->data ? 1 : 0, ng = s->ngpr > 8 ? 8 : s->ngpr;
	unsigned nf = s->nvec > 13 ? 13 : s->nvec;
	unsigned nv = s->nvec2 > 12 ? 12 : s->nvec2;
	uint32_t v_at = (HEADER + s->stack + 15) & ~15u, f_at = v_at + 16 * nv;
	uint32_t x_at = f_at + 8 * nf,
		 f = (x_at + 8 * (ng - first) + 15) & ~15u;

	(void)at;
	cfi->len = 0;
	if (n == 1) {
		if (s->data)
			load_imm64(&j, R3, d[0]);
		load_imm64(&j, R12, h[0]);
		w(&j, INSN_MTCTR_R12);
		w(&j, INSN_BCTR);
		return j.n;
	}
	if (f + HEADER + s->stack > MAX_FRAME)
		return 0;
	w(&j, INSN_MFLR_R0);
	w(&j, d_form(INSN_STD, R0, R1, 16));
	cfi_at(&c, j.n);
	cfi_saved(&c, DW_PPC64_LR, 16); /* the caller's LR save word */
	w(&j, INSN_STDU_R1 | ((uint32_t)(-(int32_t)f) & 0xfffc));
	cfi_at(&c, j.n);
	cfi_cfa_offset(&c, f);
	for (unsigned i = first; i < ng; i++) {
		w(&j, d_form(INSN_STD, SAVED0 + i, R1,
			     (int32_t)(x_at + 8 * (i - first))));
		cfi_at(&c, j.n);
		cfi_saved(&c, SAVED0 + i,
			  (long)(x_at + 8 * (i - first)) - (long)f);
	}
	for (unsigned k = 0; k < nf; k++)
		w(&j, d_form(INSN_STFD, 1 + k, R1, (int32_t)(f_at + 8 * k)));
	for (unsigned k = 0; k < nv; k++)
		vec(&j, 2 + k, v_at + 16 * k, false);
	for (unsigned i = first; i < ng; i++)
		mr(&j, SAVED0 + i, R3 + i);
	for (unsigned t = 0; t < n; t++) {
		bool last = t + 1 == n;

		if (s->stack && !last)
			copy_stack(&j, s->stack, f);
		if (t > 0) {
			for (unsigned i = first; i < ng; i++)
				mr(&j, R3 + i, SAVED0 + i);
			for (unsigned k = 0; k < nf; k++)
				w(&j, d_form(INSN_LFD, 1 + k, R1,
					     (int32_t)(f_at + 8 * k)));
			for (unsigned k = 0; k < nv; k++)
				vec(&j, 2 + k, v_at + 16 * k, true);
		}
		if (s->data)
			load_imm64(&j, R3, d[t]);
		if (!last) {
			load_imm64(&j, R12, h[t]);
			w(&j, INSN_MTCTR_R12);
			w(&j, INSN_BCTRL);
			continue;
		}
		for (unsigned i = first; i < ng; i++) {
			w(&j, d_form(INSN_LD, SAVED0 + i, R1,
				     (int32_t)(x_at + 8 * (i - first))));
			cfi_at(&c, j.n);
			cfi_restored(&c, SAVED0 + i);
		}
		w(&j, d_form(INSN_ADDI, R1, R1, (int32_t)f));
		cfi_at(&c, j.n);
		cfi_cfa_offset(&c, 0);
		w(&j, d_form(INSN_LD, R0, R1, 16));
		w(&j, INSN_MTLR_R0);
		cfi_at(&c, j.n);
		cfi_restored(&c, DW_PPC64_LR);
		load_imm64(&j, R12, h[t]);
		w(&j, INSN_MTCTR_R12);
		w(&j, INSN_BCTR);
	}
	cfi_done(&c);
	return j.n;
}
