// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * x86-64 hook-list jump functions (arch.h "Hook lists", docs/hooks.md).
 *
 * Entered by `call jf` from a site (or `jmp jf` from its trampoline), with
 * the SysV argument registers and stack arguments of the list's
 * prototype.  The arguments a handler may change are its own copies: the
 * integer argument registers are kept in callee-saved registers (one each,
 * pushed first), the vector ones and a fresh copy of the stack arguments
 * in the jump function's frame, and every handler but the first gets them
 * back before its call.  The last handler is tail-called with the
 * caller's own frame: its stack arguments are the caller's, which no
 * handler touched (each got a copy).
 *
 *   jf:  f3 0f 1e fa              endbr64
 *        push cs[i]               for each integer argument kept: rdi
 *                                 -> rbx, rsi -> rbp, rdx -> r12,
 *                                 rcx -> r13, r8 -> r14, r9 -> r15
 *        48 81 ec <F>             sub $F,%rsp   (stack copy, xmm, 16-align)
 *        0f 29 44 24 <o>          movaps %xmmj,o(%rsp)   j < nvec
 *        mov arg[i], cs[i]
 *      per handler t:
 *        [t > 0] mov cs[i], arg[i]; movaps o(%rsp),%xmmj
 *        [stack] copy the caller's stack arguments (at F + 8*pushes + 8)
 *                to 0(%rsp): 8 bytes at a time through %rax (<= 64
 *                bytes), else rep movsq (before the argument registers
 *                are restored: it uses rdi, rsi, rcx)
 *        [data]  48 bf <d[t]>     movabs $d[t],%rdi
 *        e8 <rel32>               call h[t]    (t < n-1)
 *      last handler:
 *        48 81 c4 <F>             add $F,%rsp
 *        pop cs[i]                in reverse
 *        e9 <rel32>               jmp h[n-1]
 *   Out of reach (+-2 GiB): 48 b8 <h> ff d0 / ff e0 (call/jmp *%rax; %rax
 *   is no argument register of a prototyped call).
 *
 * One handler (the data variant; the plain one stores the handler itself
 * in the key): endbr64; movabs $d,%rdi; jmp h.
 *
 * Unwind information: put_cfi below (docs/hooks.md "Unwinding from a
 * handler").
 *
 * Layout: the entry starts a cache line (ARCH_HOOKS_JF_ALIGN), and at most
 * CALLS_PER_BLOCK of the calls and the tail jump end in one aligned
 * BLOCK-byte block: the code of a handler whose branch would be one more
 * starts the next block instead, behind NOPs (run once per call of the
 * list, at the previous call's return address).  Eight calls packed eight
 * bytes apart (two lines holding seven and one) cost 11.0 direct calls in
 * bench/hooks_cost on the Xeon of docs/hooks.md, spread this way 8.9
 * (8.6 to 9.5 wherever the entry lies in its line): a line dense with
 * branches is run from the legacy decoders, not from the decoded-uop
 * cache, whose ways each end at an unconditional branch.
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"
#include "dwarf_cfi.h"

static const uint8_t ARG[6] = { 7, 6, 2, 1, 8, 9 }; /* rdi .. r9 */
static const uint8_t SAVED[6] = { 3, 5, 12, 13, 14, 15 }; /* rbx .. r15 */
#define RAX 0
#define STACK_UNROLL 64 /* bytes copied with plain moves, else rep movsq */
#define BLOCK 32 /* see "Layout" above */
#define CALLS_PER_BLOCK 2
#define NOP_MAX 11 /* the longest NOP of the padding */

struct jf {
	uint8_t *p;
	uintptr_t at; /* address of buf[0] */
	uint8_t *buf;
	uintptr_t block; /* the block the last branch ended in, + 1 (0: none) */
	unsigned in_block; /* branches that end in it */
	/* where the frame changes, for the unwind information: the ends of
	 * the pushes and of the `sub`; of the last handler's `add` and pops
	 * (in pop order) */
	size_t push_end[6], sub_end, add_end, pop_end[6];
};

static size_t off(const struct jf *j)
{
	return (size_t)(j->p - j->buf);
}

static void b1(struct jf *j, uint8_t v)
{
	*j->p++ = v;
}

static void b32(struct jf *j, uint32_t v)
{
	memcpy(j->p, &v, 4);
	j->p += 4;
}

static void b64(struct jf *j, uint64_t v)
{
	memcpy(j->p, &v, 8);
	j->p += 8;
}

static void push(struct jf *j, uint8_t r, bool pop)
{
	if (r >= 8)
		b1(j, 0x41);
	b1(j, (uint8_t)((pop ? 0x58 : 0x50) + (r & 7)));
}

/* mov %src, %dst (64-bit) */
static void mov(struct jf *j, uint8_t src, uint8_t dst)
{
	b1(j, (uint8_t)(0x48 | (src >= 8 ? 4 : 0) | (dst >= 8 ? 1 : 0)));
	b1(j, 0x89);
	b1(j, (uint8_t)(0xc0 | (src & 7) << 3 | (dst & 7)));
}

/* <op> disp32(%rsp) with a ModRM reg field (rsp base: SIB 0x24) */
static void rsp_mem(struct jf *j, uint8_t reg, uint32_t disp)
{
	b1(j, (uint8_t)(0x84 | (reg & 7) << 3));
	b1(j, 0x24);
	b32(j, disp);
}

static void rsp_adjust(struct jf *j, uint32_t f, bool add)
{
	b1(j, 0x48);
	b1(j, 0x81);
	b1(j, add ? 0xc4 : 0xec);
	b32(j, f);
}

/* movaps %xmmN, disp(%rsp) / movaps disp(%rsp), %xmmN */
static void movaps(struct jf *j, unsigned n, uint32_t disp, bool load)
{
	b1(j, 0x0f);
	b1(j, load ? 0x28 : 0x29);
	rsp_mem(j, (uint8_t)n, disp);
}

static void copy_stack(struct jf *j, unsigned bytes, uint32_t src)
{
	if (bytes <= STACK_UNROLL) {
		for (unsigned o = 0; o < bytes; o += 8) {
			b1(j, 0x48); /* mov src+o(%rsp), %rax */
			b1(j, 0x8b);
			rsp_mem(j, RAX, src + o);
			b1(j, 0x48); /* mov %rax, o(%rsp) */
			b1(j, 0x89);
			rsp_mem(j, RAX, o);
		}
		return;
	}
	b1(j, 0x48); /* lea src(%rsp), %rsi */
	b1(j, 0x8d);
	rsp_mem(j, 6, src);
	mov(j, 4, 7); /* mov %rsp, %rdi */
	b1(j, 0xb9); /* mov $n, %ecx */
	b32(j, bytes / 8);
	b1(j, 0xf3); /* rep movsq */
	b1(j, 0x48);
	b1(j, 0xa5);
}

/* Multi-byte NOPs up to the next `align` boundary, NOP_MAX bytes at most
 * each: nopw/nopl with a 32-bit displacement and SIB, 66 prefixes before
 * the longer ones (one instruction each). */
static void nop_to(struct jf *j, unsigned align)
{
	static const uint8_t nop[NOP_MAX + 1][NOP_MAX] = {
		{ 0 },
		{ 0x90 },
		{ 0x66, 0x90 },
		{ 0x0f, 0x1f, 0x00 },
		{ 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00,
		  0x00 },
	};
	uintptr_t pc = j->at + (uintptr_t)(j->p - j->buf);
	unsigned left = (unsigned)((0 - pc) & (align - 1));

	while (left) {
		unsigned k = left > NOP_MAX ? NOP_MAX : left;

		/* no 1-byte NOP left for the end when avoidable */
		if (left > NOP_MAX && left - k < 2)
			k = left - 2;
		memcpy(j->p, nop[k], k);
		j->p += k;
		left -= k;
	}
}

/* call/jmp h, direct when in reach */
static void branch(struct jf *j, uintptr_t h, bool call)
{
	uintptr_t after = j->at + (uintptr_t)(j->p - j->buf) + 5;
	intptr_t d = (intptr_t)(h - after);

	if (d == (int32_t)d) {
		b1(j, call ? 0xe8 : 0xe9);
		b32(j, (uint32_t)(int32_t)d);
		return;
	}
	b1(j, 0x48); /* movabs $h, %rax */
	b1(j, 0xb8);
	b64(j, h);
	b1(j, 0xff);
	b1(j, call ? 0xd0 : 0xe0);
}

/* Frame bytes below the pushes: the stack copy, the xmm saves, and the
 * padding that makes %rsp 16-aligned at each call. */
static uint32_t frame(const struct arch_hooks_sig *s, unsigned pushes,
		      uint32_t *xmm_at)
{
	uint32_t st = (s->stack + 15) & ~15u, f = st + 16 * s->nvec;

	*xmm_at = st;
	if ((8 + 8 * pushes + f) % 16)
		f += 8;
	return f;
}

size_t arch_hooks_jf_size(const struct arch_hooks_sig *s, unsigned n)
{
	size_t copy = s->stack <= STACK_UNROLL ? s->stack / 8 * 16 : 24;
	size_t per = 6 * 3 + 8 * 8 + copy + 10 + 12 + BLOCK - 1;

	return 4 + 10 + 2 * 7 + 8 * 8 + 6 * 3 + n * per + 7 + 12 + 12;
}

/* What every handler's code needs (arch_hooks_emit_jf). */
struct shape {
	const struct arch_hooks_sig *s;
	const uintptr_t *h, *d;
	unsigned n, first, ng, nv, pushes;
	uint32_t f, xmm_at;
};

/* The code of handler t: its stack copy and registers, its data, the
 * call (the last one: the frame popped, the tail jump). */
static void emit_handler(struct jf *j, const struct shape *c, unsigned t)
{
	const struct arch_hooks_sig *s = c->s;
	bool last = t + 1 == c->n;

	if (s->stack && !last)
		copy_stack(j, s->stack, c->f + 8 * c->pushes + 8);
	if (t > 0 || (s->stack > STACK_UNROLL && !last)) {
		for (unsigned i = c->first; i < c->ng; i++)
			mov(j, SAVED[i], ARG[i]);
	}
	if (t > 0) {
		for (unsigned v = 0; v < c->nv; v++)
			movaps(j, v, c->xmm_at + 16 * v, true);
	}
	if (s->data) {
		b1(j, 0x48); /* movabs $d, %rdi */
		b1(j, 0xbf);
		b64(j, c->d[t]);
	}
	if (last) {
		if (c->f)
			rsp_adjust(j, c->f, true);
		j->add_end = off(j);
		for (unsigned i = c->ng; i-- > c->first;) {
			push(j, SAVED[i], true);
			j->pop_end[c->ng - 1 - i] = off(j);
		}
	}
	branch(j, c->h[t], !last);
}

/* Handler t's code, in the next block when its branch would be one too
 * many in the block it ends in ("Layout").  Moved, it starts at a block
 * boundary past every earlier branch, so its branch is the first to end
 * where it ends. */
static void emit_handler_placed(struct jf *j, const struct shape *c, unsigned t)
{
	uint8_t *start = j->p;
	uintptr_t end;

	emit_handler(j, c, t);
	end = (j->at + (uintptr_t)(j->p - j->buf) - 1) / BLOCK + 1;
	if (end == j->block && j->in_block == CALLS_PER_BLOCK) {
		j->p = start;
		nop_to(j, BLOCK);
		emit_handler(j, c, t);
		end = (j->at + (uintptr_t)(j->p - j->buf) - 1) / BLOCK + 1;
	}
	if (end != j->block) {
		j->block = end;
		j->in_block = 0;
	}
	j->in_block++;
}

/* The unwind information (the CIE's rule at the entry: CFA = rsp + 8,
 * the return address at CFA - 8):
 *
 *   after push k   CFA = rsp + 16 + 8k, cs[k] at CFA - 16 - 8k
 *   after sub      CFA = rsp + 8 + 8 * pushes + F
 *   after add      CFA = rsp + 8 + 8 * pushes
 *   after each pop CFA 8 less, the popped register its caller's again
 *
 * The handlers' calls are all between the sub and the add. */
static void put_cfi(struct arch_cfi *cfi, const struct jf *j,
		    const struct shape *c)
{
	/* DWARF's numbers of the hardware registers 0..15 */
	static const uint8_t dw[16] = { 0, 2, 1,  3,  7,  6,  4,  5,
					8, 9, 10, 11, 12, 13, 14, 15 };
	struct cfi_writer w = { .cfi = cfi, .code_align = 1 };

	for (unsigned k = 0; k < c->pushes; k++) {
		cfi_at(&w, j->push_end[k]);
		cfi_cfa_offset(&w, 16 + 8 * k);
		cfi_saved(&w, dw[SAVED[c->first + k]], -(long)(16 + 8 * k));
	}
	if (c->f) {
		cfi_at(&w, j->sub_end);
		cfi_cfa_offset(&w, 8 + 8 * c->pushes + c->f);
		cfi_at(&w, j->add_end);
		cfi_cfa_offset(&w, 8 + 8 * c->pushes);
	}
	for (unsigned k = 0; k < c->pushes; k++) {
		cfi_at(&w, j->pop_end[k]);
		cfi_cfa_offset(&w, 8 + 8 * (c->pushes - 1 - k));
		cfi_restored(&w, dw[SAVED[c->first + c->pushes - 1 - k]]);
	}
	cfi_done(&w);
}

size_t arch_hooks_emit_jf(uint8_t *buf, uintptr_t at,
			  const struct arch_hooks_sig *s, const uintptr_t *h,
			  const uintptr_t *d, unsigned n, struct arch_cfi *cfi)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	struct jf j = { .p = buf, .at = at, .buf = buf };
	struct shape c = { .s = s, .h = h, .d = d, .n = n };

	c.first = s->data ? 1 : 0;
	c.ng = s->ngpr > 6 ? 6 : s->ngpr;
	c.nv = s->nvec > 8 ? 8 : s->nvec;
	memcpy(j.p, endbr64, 4);
	j.p += 4;
	cfi->len = 0;
	if (n == 1) {
		if (s->data) {
			b1(&j, 0x48);
			b1(&j, 0xbf);
			b64(&j, d[0]);
		}
		branch(&j, h[0], false);
		return (size_t)(j.p - buf);
	}
	for (unsigned i = c.first; i < c.ng; i++, c.pushes++) {
		push(&j, SAVED[i], false);
		j.push_end[c.pushes] = off(&j);
	}
	c.f = frame(&(struct arch_hooks_sig){ .stack = s->stack, .nvec = c.nv },
		    c.pushes, &c.xmm_at);
	if (c.f)
		rsp_adjust(&j, c.f, false);
	j.sub_end = off(&j);
	for (unsigned v = 0; v < c.nv; v++)
		movaps(&j, v, c.xmm_at + 16 * v, false);
	for (unsigned i = c.first; i < c.ng; i++)
		mov(&j, ARG[i], SAVED[i]);
	for (unsigned t = 0; t < n; t++)
		emit_handler_placed(&j, &c, t);
	put_cfi(cfi, &j, &c);
	return (size_t)(j.p - buf);
}
