// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * aarch64 function-entry patching (arch.h "Function-entry patching",
 * docs/prologues.md): Mark Rutland's CALL_OPS layout.  The build side
 * (-fpatchable-function-entry=4,2 -falign-functions=8, or
 * DYNCALL_PATCHABLE) leaves, with GCC 12 and Clang 19 alike (the
 * alignment comes before the two pre-entry NOPs):
 *
 *   rec = func-8:  d503201f d503201f       nop; nop     8-byte aligned
 *   func:          [d503245f]              bti c  (-mbranch-protection)
 *   P:             d503201f                nop
 *   P+4 = site:    d503201f                nop
 *   P+8 = resume:  the body
 *
 * Patched (P = func, or func+4 after bti c):
 *
 *   func-8:  <slot: 8 bytes>               jump function or target
 *   P:       aa1e03e9                      mov x9, x30        (ool)
 *   P+4:     94xxxxxx                      bl near            (site)
 *   near:    927df3d0                      and x16, x30, #~7
 *            f85f0210                      ldur x16, [x16, #-16]
 *            aa0903fe                      mov x30, x9
 *            d61f0200                      br x16
 *
 * `near` is one 16-byte copy of that sequence per 128 MiB (the bl's
 * reach), placed by the generic code within reach of the site
 * (ARCH_FENTRY_NEAR_SHARED: every function in reach shares it).  It
 * finds the slot from the return address alone: x30 = P+8, which is
 * func+8 or func+12, and aligned down to 8 is func+8 in both cases, so
 * the slot is at (x30 & ~7) - 16 (CALL_OPS' "align down, load at -16").
 * It puts the caller's return address back in x30 and branches through
 * the slot: what the slot holds is entered exactly as the function was,
 * arguments, stack and return address untouched.  A redirect target is
 * the slot value itself; a jump function runs the handlers and continues
 * at resume (a `ret x16`: the body is not a BTI landing pad).  No range
 * limit there: the slot holds a full pointer.  When no memory can be
 * mapped within 128 MiB of a function, the hook or redirect is refused
 * with DYNCALL_ERR_RANGE and the function keeps its NOPs.
 *
 * x9, x16 and x17 are corruptible at a call boundary (AAPCS64); GCC 12
 * gives up IPA register allocation for calls of a function with a
 * patchable entry (docs/prologues.md), so callers do not keep values in
 * them across the call.
 *
 * Protocol (prologue.c drives it, a batch of functions at a time):
 *   1. the first time a function is turned on: `mov x9, x30` at P (one
 *      aligned 32-bit store; executing either instruction is harmless:
 *      x9 is a temporary at a function entry), and `near` written to fresh
 *      memory if none reaches; new jump functions written to fresh memory;
 *   2. one membarrier (SYNC_CORE) if 1. wrote anything;
 *   3. slot <- jump function or target: one aligned 64-bit store (then
 *      DSB ISH: complete before the entry store below is issued, so a
 *      thread that fetched the bl loads the new slot);
 *   4. site <- `bl near` (on) or `nop` (off): one aligned 32-bit store of
 *      a BL or NOP, the instructions the Arm ARM allows to be replaced
 *      while other threads execute them.  The slot is never cleared: a
 *      thread that passed P+4 before 4. reaches what the slot held, which
 *      stays valid.
 * `mov x9, x30` stays after a restore (as in Linux).  NOP -> MOV is not in
 * the Arm ARM's list of concurrently modifiable instructions; it is
 * written once per function and followed by the membarrier of step 2
 * (docs/prologues.md "aarch64" says what that leaves).
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"
#include "dwarf_cfi.h"
#include "fentry32.h"

/* Instructions, with their assembly. */
#define INSN_NOP 0xd503201fu /* nop */
#define INSN_BTI_C 0xd503245fu /* bti c */
#define INSN_MOV_X9_X30 0xaa1e03e9u /* mov x9, x30 */
#define INSN_BL 0x94000000u /* bl <imm26> */
#define IMM26 0x03ffffffu
#define INSN_AND_X16_X30_NOT7 0x927df3d0u /* and x16, x30, #~7 */
#define INSN_LDUR_X16_M16 0xf85f0210u /* ldur x16, [x16, #-16] */
#define INSN_MOV_X30_X9 0xaa0903feu /* mov x30, x9 */
#define INSN_BR_X16 0xd61f0200u /* br x16 */
#define INSN_RET_X16 0xd65f0200u /* ret x16 */
#define INSN_BLR_X16 0xd63f0200u /* blr x16 */
#define INSN_RET 0xd65f03c0u /* ret */
#define INSN_STP_X19_X30 0xa9bf7bf3u /* stp x19, x30, [sp, #-16]! */
#define INSN_LDP_X19_X30 0xa8c17bf3u /* ldp x19, x30, [sp], #16 */
#define INSN_MOV_X19_X0 0xaa0003f3u /* mov x19, x0 */
#define INSN_MOV_X3_X19 0xaa1303e3u /* mov x3, x19 */
#define INSN_LDR_X1_RET 0xf9402661u /* ldr x1, [x19, #72]  regs->ret */
#define INSN_LDR_LIT 0x58000000u /* ldr x<t>, <imm19> */
#define INSN_ADR 0x10000000u /* adr x<d>, <imm21> */
#define INSN_UDF 0x00000000u /* udf #0 */
#define REG_X0 0
#define REG_X2 2
#define REG_X16 16
#define REG_X17 17

#define PRE_ENTRY 8 /* -fpatchable-function-entry=,2: two NOPs */
#define BL_REACH (128L << 20)

extern const char dc_fentry_tramp[] DC_HIDDEN; /* aarch64_prologue.S */
extern const char dc_fentry_tramp_novec[] DC_HIDDEN; /* without q0-q7 */
extern const char dc_fentry_tramp_v2[] DC_HIDDEN; /* q0-q1 only */
extern const char dc_fentry_tramp_v4[] DC_HIDDEN; /* q0-q3 only */
extern const char dc_fentry_tramp_v6[] DC_HIDDEN; /* q0-q5 only */

/* the same with 0, 1, 2 or 3 pairs of x0-x7 (aarch64_prologue.S) */
#define TRAMP_X(v)                                               \
	extern const char dc_fentry_tramp_q##v##_x0[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_q##v##_x1[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_q##v##_x2[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_q##v##_x3[] DC_HIDDEN;
TRAMP_X(0)
TRAMP_X(1)
TRAMP_X(2)
TRAMP_X(3)
TRAMP_X(4)
#define TRAMP_ROW(v)                                            \
	{ dc_fentry_tramp_q##v##_x0, dc_fentry_tramp_q##v##_x1, \
	  dc_fentry_tramp_q##v##_x2, dc_fentry_tramp_q##v##_x3 }

/* The trampoline that saves the first vec.n of q0-q7 and the first
 * vec.ints of x0-x7 (all without vec.int_known), each rounded up to a
 * pair: one stp and one ldp each. */
static const char *tramp_for(struct arch_fentry_vec vec)
{
	static const char *const by_pairs[5] = {
		dc_fentry_tramp_novec, dc_fentry_tramp_v2, dc_fentry_tramp_v4,
		dc_fentry_tramp_v6,    dc_fentry_tramp,
	};
	static const char *const by_x_pairs[5][4] = {
		TRAMP_ROW(0), TRAMP_ROW(1), TRAMP_ROW(2),
		TRAMP_ROW(3), TRAMP_ROW(4),
	};
	unsigned v = vec.n >= 8 ? 4 : (vec.n + 1) / 2;
	unsigned x = vec.int_known && vec.ints < DYNCALL_AARCH64_INT_ARG_REGS ?
			     (vec.ints + 1) / 2 :
			     4;

	return x < 4 ? by_x_pairs[v][x] : by_pairs[v];
}

static uint32_t word(uintptr_t a)
{
	return *(const volatile uint32_t *)a;
}

static uint32_t enc_bl(uintptr_t at, uintptr_t to)
{
	return INSN_BL | ((uint32_t)((intptr_t)(to - at) >> 2) & IMM26);
}

static bool bl_reaches(uintptr_t at, uintptr_t to)
{
	intptr_t d = (intptr_t)(to - at);

	return d >= -BL_REACH && d < BL_REACH;
}

static uint32_t enc_ldr_lit(unsigned rt, uintptr_t at, uintptr_t lit)
{
	return INSN_LDR_LIT |
	       (((uint32_t)((intptr_t)(lit - at) >> 2) & 0x7ffff) << 5) | rt;
}

static uint32_t enc_adr(unsigned rd, uintptr_t at, uintptr_t to)
{
	uint32_t d = (uint32_t)(intptr_t)(to - at);

	return INSN_ADR | ((d & 3) << 29) | (((d >> 2) & 0x7ffff) << 5) | rd;
}

int arch_fentry_probe(uintptr_t rec, struct arch_fentry *f)
{
	uintptr_t p;

	memset(f, 0, sizeof(*f));
	if ((rec & 3) || word(rec) != INSN_NOP || word(rec + 4) != INSN_NOP)
		return DYNCALL_ERR_BYTES;
	f->func = rec + PRE_ENTRY; /* known even if refused below */
	/* the ops literal needs an aligned store (GCC without the dyncall
	 * plugin does not align cold functions: docs/prologues.md) */
	if (rec & 7)
		return DYNCALL_ERR_ALIGN;
	p = f->func;
	if (word(p) == INSN_BTI_C)
		p += 4;
	if (word(p) != INSN_NOP || word(p + 4) != INSN_NOP)
		return DYNCALL_ERR_BYTES;
	f->slot = rec;
	f->ool = p;
	f->site = p + 4;
	f->resume = p + 8;
	f->site_len = 4;
	memcpy(f->orig, &(uint32_t){ INSN_NOP }, 4);
	return DYNCALL_OK;
}

void arch_fentry_set_near(struct arch_fentry *f, uintptr_t near)
{
	f->tramp = near;
}

bool arch_fentry_near_reaches(const struct arch_fentry *f, uintptr_t near)
{
	return bl_reaches(f->site, near) &&
	       bl_reaches(f->site, near + ARCH_FENTRY_NEAR_SIZE);
}

size_t arch_fentry_emit_near(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f)
{
	static const uint32_t seq[4] = { INSN_AND_X16_X30_NOT7,
					 INSN_LDUR_X16_M16, INSN_MOV_X30_X9,
					 INSN_BR_X16 };

	(void)at, (void)f;
	memcpy(buf, seq, sizeof(seq));
	return sizeof(seq);
}

/* The branch from the entry to f->tramp, 0 if there is none. */
static uint32_t entry_branch(const struct arch_fentry *f)
{
	return f->tramp ? enc_bl(f->site, f->tramp) : 0;
}

int arch_fentry_entry_state(const struct arch_fentry *f)
{
	return fentry32_entry_state(f, INSN_NOP, entry_branch(f));
}

int arch_fentry_entry_step(const struct arch_fentry *f, uintptr_t value,
			   struct arch_step *s)
{
	bool reaches = f->tramp && bl_reaches(f->site, f->tramp);

	return fentry32_entry_step(f, value != 0, INSN_NOP, entry_branch(f),
				   reaches, s);
}

int arch_fentry_slot_step(const struct arch_fentry *f, uintptr_t value,
			  struct arch_step *s)
{
	return fentry32_slot_step(f, value, s);
}

int arch_fentry_ool_steps(const struct arch_fentry *f, struct arch_step *s,
			  int max)
{
	uint32_t w = word(f->ool);

	if (w == INSN_MOV_X9_X30)
		return 0;
	if (w != INSN_NOP)
		return DYNCALL_ERR_BYTES;
	if (max < 1)
		return DYNCALL_ERR_INVAL;
	s->addr = f->ool;
	s->len = 4;
	s->atomic = true; /* threads may be executing the NOP */
	w = INSN_MOV_X9_X30;
	memcpy(s->bytes, &w, 4);
	return 1;
}

/* Emitters. */
struct emit {
	uint8_t *buf;
	uintptr_t at; /* address of buf[0] */
	size_t n;
};

static uintptr_t pc(const struct emit *e)
{
	return e->at + e->n;
}

static void put32(struct emit *e, uint32_t w)
{
	memcpy(e->buf + e->n, &w, 4);
	e->n += 4;
}

static void put64_at(struct emit *e, size_t off, uint64_t v)
{
	memcpy(e->buf + off, &v, 8);
}

/*
 * Jump function for handlers h[0..n) (entered by `br x16` from near, with
 * the registers of the function's entry):
 *
 *   jf:     bti c
 *           ldr x16, lit                  dc_fentry_tramp (_novec: no
 *                                         q0-q7 saves, DYNCALL_FN_NO_VEC;
 *                                         _v2/_v4/_v6: the first vec.n;
 *                                         _q<v>_x<x>: and the first
 *                                         vec.ints of x0-x7)
 *           adr x17, desc
 *           br x16
 *   lit:    .quad dc_fentry_tramp
 *   desc:   .quad calls, resume, fn       read by the trampoline
 *   calls:  bti c                         (blr x16 from the trampoline)
 *           stp x19, x30, [sp, #-16]!
 *           mov x19, x0                   regs
 *           per handler:
 *           ldr x0, desc.fn
 *           ldr x1, [x19, #72]            regs->ret
 *           ldr x2, data_i
 *           mov x3, x19
 *           bl h_i                        (direct when in reach,
 *           | ldr x16, h_i; blr x16        else through a literal)
 *           ldp x19, x30, [sp], #16
 *           ret
 *   lits:   .quad data_0, h_0, data_1, h_1, ...
 */
#define JF_LIT 16
#define JF_DESC 24
#define JF_CALLS 48
#define D_FN 16
#define JF_CALL 24 /* worst case of one handler's instructions */

/*
 * The unwind rules of calls, the one frame of the jump function
 * (runtime/unwind.c makes them its FDE; the CIE's rule, CFA = sp and the
 * return address in x30, holds from the entry to calls' stp: the jump
 * function's first instructions only branch on, with the function's
 * entry state, and calls is entered by blr from the trampoline, whose
 * own CFI is in aarch64_prologue.S):
 *
 *   JF_CALLS + 8  after stp x19, x30, [sp, #-16]!: CFA = sp + 16,
 *                 x19 at CFA - 16, x30 at CFA - 8
 *   ldp + 4       after ldp x19, x30, [sp], #16: the CIE's rule again
 */
#define DW_AARCH64_X19 19
#define DW_AARCH64_X30 30

static void put_cfi(struct arch_cfi *cfi, size_t ldp)
{
	struct cfi_writer w = { .cfi = cfi, .code_align = 4 };

	cfi_at(&w, JF_CALLS + 8);
	cfi_cfa_offset(&w, 16);
	cfi_saved(&w, DW_AARCH64_X19, -16);
	cfi_saved(&w, DW_AARCH64_X30, -8);
	cfi_at(&w, ldp + 4);
	cfi_cfa_offset(&w, 0);
	cfi_restored(&w, DW_AARCH64_X19);
	cfi_restored(&w, DW_AARCH64_X30);
	cfi_done(&w);
}

size_t arch_fentry_jf_size(unsigned n)
{
	return JF_CALLS + 12 + n * JF_CALL + 8 + 4 + n * 16;
}

size_t arch_fentry_emit_jf(uint8_t *buf, uintptr_t at, uintptr_t fn,
			   uintptr_t resume, const uintptr_t *h,
			   const uintptr_t *d, unsigned n,
			   struct arch_fentry_vec vec, struct arch_cfi *cfi)
{
	struct emit e = { buf, at, 0 };
	size_t code_end, lits, ldp;
	unsigned ncode = 0;

	memset(buf, ARCH_FILL_BYTE, arch_fentry_jf_size(n));
	/* where the literals start: after the longest code, 8-aligned */
	for (unsigned i = 0; i < n; i++)
		ncode += 5; /* ldr, ldr, ldr, mov, bl */
	for (unsigned i = 0; i < n; i++) {
		uintptr_t bl_at = at + JF_CALLS + 12 + (i * 5 + 4) * 4;

		if (!bl_reaches(bl_at, h[i]))
			ncode = n * 6; /* one far handler: lay out for all */
	}
	code_end = JF_CALLS + 12 + ncode * 4 + 8;
	lits = (code_end + 7) & ~(size_t)7;

	put32(&e, INSN_BTI_C);
	put32(&e, enc_ldr_lit(REG_X16, pc(&e), at + JF_LIT));
	put32(&e, enc_adr(REG_X17, pc(&e), at + JF_DESC));
	put32(&e, INSN_BR_X16);
	put64_at(&e, JF_LIT, (uint64_t)(uintptr_t)tramp_for(vec));
	put64_at(&e, JF_DESC, at + JF_CALLS);
	put64_at(&e, JF_DESC + 8, resume);
	put64_at(&e, JF_DESC + D_FN, fn);
	e.n = JF_CALLS;
	put32(&e, INSN_BTI_C);
	put32(&e, INSN_STP_X19_X30);
	put32(&e, INSN_MOV_X19_X0);
	for (unsigned i = 0; i < n; i++) {
		uintptr_t ld = at + lits + 16 * i, lh = ld + 8;

		put32(&e, enc_ldr_lit(REG_X0, pc(&e), at + JF_DESC + D_FN));
		put32(&e, INSN_LDR_X1_RET);
		put32(&e, enc_ldr_lit(REG_X2, pc(&e), ld));
		put32(&e, INSN_MOV_X3_X19);
		if (ncode == n * 5) {
			put32(&e, enc_bl(pc(&e), h[i]));
		} else {
			put32(&e, enc_ldr_lit(REG_X16, pc(&e), lh));
			put32(&e, INSN_BLR_X16);
		}
		put64_at(&e, lits + 16 * i, d[i]);
		put64_at(&e, lits + 16 * i + 8, h[i]);
	}
	ldp = e.n;
	put32(&e, INSN_LDP_X19_X30);
	put32(&e, INSN_RET);
	put_cfi(cfi, ldp);
	return lits + 16 * n;
}

/*
 * The original body, callable (blr): the entry NOPs skipped are NOPs (and
 * `mov x9, x30`, which only writes a temporary).
 *   bti c
 *   ldr x16, lit
 *   ret x16            the body is no landing pad: RET is not checked
 *   udf #0
 *   lit: .quad resume
 */
size_t arch_fentry_emit_orig(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f)
{
	struct emit e = { buf, at, 0 };

	memset(buf, ARCH_FILL_BYTE, ARCH_FENTRY_ORIG_SIZE);
	put32(&e, INSN_BTI_C);
	put32(&e, enc_ldr_lit(REG_X16, pc(&e), at + 16));
	put32(&e, INSN_RET_X16);
	put32(&e, INSN_UDF);
	put64_at(&e, 16, f->resume);
	return 24;
}
