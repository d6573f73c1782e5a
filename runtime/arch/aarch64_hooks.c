// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * aarch64 hook-list jump functions (arch.h "Hook lists", docs/hooks.md).
 *
 * Entered by `bl jf` from a site (or `br x16` from its trampoline), with
 * the AAPCS64 arguments of the list's prototype: x0..x7, q0..q7 and the
 * stack arguments at sp.  The integer arguments are kept in x19..x26
 * (callee-saved, theirs saved first), q0..q7 and a fresh copy of the
 * stack arguments in the frame; every handler but the first gets them
 * back before its call; the last is tail-called with the caller's own
 * stack arguments, which no handler touched.
 *
 *   jf:  d503245f                 bti c
 *        d10003ff | F << 10       sub sp, sp, #F
 *        f90003fe | ...           str x30, [sp, #lr]
 *        f90003f3 | ...           str x19+i, [sp, #...]   integer args kept
 *        3d8003e0 | ...           str q<j>, [sp, #...]    j < nvec
 *        aa0003f3 | i << 16 ...   mov x19+i, x<i>
 *      per handler t:
 *        [stack] copy from sp + F to sp: ldr/str x16 (<= 64 bytes), else
 *                a post-indexed ldr/str x10 loop on x16/x17 counted in x9
 *                (temporaries, no argument register)
 *        [t > 0] mov x<i>, x19+i; ldr q<j>, [sp, #...]
 *        [data]  movz/movk x0, #d[t] (4 instructions)
 *        94000000 | imm26         bl h[t]                  (t < n - 1)
 *      last handler:
 *        ldr x19+i / x30 back, add sp, sp, #F
 *        14000000 | imm26         b h[n-1]
 *   Out of reach (+-128 MiB): movz/movk x16, #h; blr x16 / br x16 (the
 *   handler's `bti c` accepts both).
 *
 * One handler (the data variant): bti c; movz/movk x0, #d; b h.
 * A frame over 16 KiB (stack arguments) is refused: 0 bytes.
 *
 * Unwind information (struct arch_cfi, written with the code): the CFA
 * moves with each `sub`/`add` of sp, x30 and x19+i are saved at their
 * slots after their `str` and the caller's again after their `ldr`
 * (docs/hooks.md "Unwinding from a handler").
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"
#include "dwarf_cfi.h"

#define INSN_BTI_C 0xd503245fu
#define INSN_SUB_SP 0xd10003ffu /* sub sp, sp, #imm12 */
#define INSN_ADD_SP 0x910003ffu /* add sp, sp, #imm12 */
#define INSN_STR_X_SP 0xf90003e0u /* str xt, [sp, #imm12 * 8] */
#define INSN_LDR_X_SP 0xf94003e0u /* ldr xt, [sp, #imm12 * 8] */
#define INSN_STR_Q_SP 0x3d8003e0u /* str qt, [sp, #imm12 * 16] */
#define INSN_LDR_Q_SP 0x3dc003e0u /* ldr qt, [sp, #imm12 * 16] */
#define INSN_MOV_X 0xaa0003e0u /* mov xd, xm (orr xd, xzr, xm) */
#define INSN_ADD_X_SP 0x910003e0u /* add xd, sp, #imm12 */
#define INSN_MOVZ_X 0xd2800000u /* movz xd, #imm16, lsl #16*hw */
#define INSN_MOVK_X 0xf2800000u /* movk xd, #imm16, lsl #16*hw */
#define INSN_LDR_X10_X16_POST 0xf840860au /* ldr x10, [x16], #8 */
#define INSN_STR_X10_X17_POST 0xf800862au /* str x10, [x17], #8 */
#define INSN_SUBS_X9_1 0xf1000529u /* subs x9, x9, #1 */
#define INSN_BNE 0x54000001u /* b.ne <imm19> */
#define INSN_BL 0x94000000u
#define INSN_B 0x14000000u
#define INSN_BLR_X16 0xd63f0200u
#define INSN_BR_X16 0xd61f0200u
#define IMM26 0x03ffffffu
#define X30 30
#define X16 16
#define X17 17
#define X9 9
#define SAVED0 19 /* x0 -> x19, ..., x7 -> x26 */
#define STACK_UNROLL 64
#define MAX_FRAME 16384

struct jf {
	uint8_t *buf;
	uintptr_t at;
	size_t n; /* bytes written */
};

static void w(struct jf *j, uint32_t insn)
{
	memcpy(j->buf + j->n, &insn, 4);
	j->n += 4;
}

static void str_x(struct jf *j, unsigned rt, uint32_t off, bool load)
{
	w(j, (load ? INSN_LDR_X_SP : INSN_STR_X_SP) | (off / 8) << 10 | rt);
}

static void str_q(struct jf *j, unsigned rt, uint32_t off, bool load)
{
	w(j, (load ? INSN_LDR_Q_SP : INSN_STR_Q_SP) | (off / 16) << 10 | rt);
}

static void mov_x(struct jf *j, unsigned d, unsigned m)
{
	w(j, INSN_MOV_X | m << 16 | d);
}

static void mov_imm64(struct jf *j, unsigned d, uint64_t v)
{
	w(j, INSN_MOVZ_X | (uint32_t)(v & 0xffff) << 5 | d);
	for (unsigned hw = 1; hw < 4; hw++)
		w(j, INSN_MOVK_X | hw << 21 |
			     (uint32_t)((v >> (16 * hw)) & 0xffff) << 5 | d);
}

/* sp -= f (sub) or += f (add); the CFA's offset from sp after each
 * instruction: cfa_at_end - what is left of the change (sub), or
 * cfa_at_end + what is left (add). */
static void sp_adjust(struct jf *j, uint32_t f, bool add, struct cfi_writer *c,
		      uint32_t cfa_at_end)
{
	uint32_t op = add ? INSN_ADD_SP : INSN_SUB_SP;
	uint32_t left = f & 0xfff;

	if (f >> 12) {
		w(j, op | 1u << 22 | (f >> 12) << 10); /* lsl #12 */
		cfi_at(c, j->n);
		cfi_cfa_offset(c, add ? cfa_at_end + left : cfa_at_end - left);
	}
	if (f & 0xfff) {
		w(j, op | (f & 0xfff) << 10);
		cfi_at(c, j->n);
		cfi_cfa_offset(c, cfa_at_end);
	}
}

/* bl/b h, direct when in reach */
static void branch(struct jf *j, uintptr_t h, bool call)
{
	intptr_t d = (intptr_t)(h - (j->at + j->n));

	if (d >= -(128L << 20) && d < (128L << 20)) {
		w(j, (call ? INSN_BL : INSN_B) | ((uint32_t)(d >> 2) & IMM26));
		return;
	}
	mov_imm64(j, X16, h);
	w(j, call ? INSN_BLR_X16 : INSN_BR_X16);
}

static void copy_stack(struct jf *j, unsigned bytes, uint32_t src)
{
	size_t loop;

	if (bytes <= STACK_UNROLL) {
		for (unsigned o = 0; o < bytes; o += 8) {
			str_x(j, X16, src + o, true);
			str_x(j, X16, o, false);
		}
		return;
	}
	w(j,
	  INSN_ADD_X_SP | (src >> 12 ? 1u << 22 | (src >> 12) << 10 : 0) | X16);
	if (src & 0xfff)
		w(j, 0x91000000u | (src & 0xfff) << 10 | X16 << 5 | X16);
	w(j, INSN_ADD_X_SP | X17); /* add x17, sp, #0 */
	w(j, INSN_MOVZ_X | (bytes / 8) << 5 | X9);
	loop = j->n;
	w(j, INSN_LDR_X10_X16_POST);
	w(j, INSN_STR_X10_X17_POST);
	w(j, INSN_SUBS_X9_1);
	w(j, INSN_BNE | ((uint32_t)(-(int32_t)(j->n - loop) / 4) & 0x7ffff)
				<< 5);
}

size_t arch_hooks_jf_size(const struct arch_hooks_sig *s, unsigned n)
{
	size_t copy = s->stack <= STACK_UNROLL ? s->stack / 8 * 8 : 36;
	size_t per = copy + 8 * 4 + 8 * 4 + 16 + 20;

	return 4 + 8 + 4 + 8 * 4 + 8 * 4 + 8 * 4 + n * per + 8 * 4 + 4 + 8 + 20;
}

size_t arch_hooks_emit_jf(uint8_t *buf, uintptr_t at,
			  const struct arch_hooks_sig *s, const uintptr_t *h,
			  const uintptr_t *d, unsigned n, struct arch_cfi *cfi)
{
	struct jf j = { buf, at, 0 };
	/* the unwind information, rule by rule as the frame changes (the
	 * CIE's at the entry: CFA = sp, the return address in x30) */
	struct cfi_writer c = { .cfi = cfi, .code_align = 4 };
	unsigned first = s->data ? 1 : 0, ng = s->ngpr > 8 ? 8 : s->ngpr;
	unsigned nv = s->nvec > 8 ? 8 : s->nvec;
	uint32_t st = (s->stack + 15) & ~15u, q_at = st;
	uint32_t x_at = q_at + 16 * nv, lr = x_at + 8 * (ng - first);
	uint32_t f = (lr + 8 + 15) & ~15u;

	w(&j, INSN_BTI_C);
	cfi->len = 0;
	if (n == 1) {
		if (s->data)
			mov_imm64(&j, 0, d[0]);
		branch(&j, h[0], false);
		return j.n;
	}
	if (f + s->stack > MAX_FRAME)
		return 0;
	sp_adjust(&j, f, false, &c, f);
	str_x(&j, X30, lr, false);
	cfi_at(&c, j.n);
	cfi_saved(&c, X30, (long)lr - (long)f);
	for (unsigned i = first; i < ng; i++) {
		str_x(&j, SAVED0 + i, x_at + 8 * (i - first), false);
		cfi_at(&c, j.n);
		cfi_saved(&c, SAVED0 + i,
			  (long)(x_at + 8 * (i - first)) - (long)f);
	}
	for (unsigned v = 0; v < nv; v++)
		str_q(&j, v, q_at + 16 * v, false);
	for (unsigned i = first; i < ng; i++)
		mov_x(&j, SAVED0 + i, i);
	for (unsigned t = 0; t < n; t++) {
		bool last = t + 1 == n;

		if (s->stack && !last)
			copy_stack(&j, s->stack, f);
		if (t > 0) {
			for (unsigned i = first; i < ng; i++)
				mov_x(&j, i, SAVED0 + i);
			for (unsigned v = 0; v < nv; v++)
				str_q(&j, v, q_at + 16 * v, true);
		}
		if (s->data)
			mov_imm64(&j, 0, d[t]);
		if (!last) {
			branch(&j, h[t], true);
			continue;
		}
		for (unsigned i = first; i < ng; i++) {
			str_x(&j, SAVED0 + i, x_at + 8 * (i - first), true);
			cfi_at(&c, j.n);
			cfi_restored(&c, SAVED0 + i);
		}
		str_x(&j, X30, lr, true);
		cfi_at(&c, j.n);
		cfi_restored(&c, X30);
		sp_adjust(&j, f, true, &c, 0);
		branch(&j, h[t], false);
	}
	cfi_done(&c);
	return j.n;
}
