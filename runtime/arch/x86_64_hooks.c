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
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"

static const uint8_t ARG[6] = { 7, 6, 2, 1, 8, 9 }; /* rdi .. r9 */
static const uint8_t SAVED[6] = { 3, 5, 12, 13, 14, 15 }; /* rbx .. r15 */
#define RAX 0
#define STACK_UNROLL 64 /* bytes copied with plain moves, else rep movsq */

struct jf {
	uint8_t *p;
	uintptr_t at; /* address of buf[0] */
	uint8_t *buf;
};

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
	size_t per = 6 * 3 + 8 * 8 + copy + 10 + 12;

	return 4 + 10 + 2 * 7 + 8 * 8 + 6 * 3 + n * per + 7 + 12 + 12;
}

size_t arch_hooks_emit_jf(uint8_t *buf, uintptr_t at,
			  const struct arch_hooks_sig *s, const uintptr_t *h,
			  const uintptr_t *d, unsigned n)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	struct jf j = { .p = buf, .at = at, .buf = buf };
	unsigned first = s->data ? 1 : 0, ng = s->ngpr > 6 ? 6 : s->ngpr;
	unsigned nv = s->nvec > 8 ? 8 : s->nvec, pushes = 0;
	uint32_t f, xmm_at;

	memcpy(j.p, endbr64, 4);
	j.p += 4;
	if (n == 1) {
		if (s->data) {
			b1(&j, 0x48);
			b1(&j, 0xbf);
			b64(&j, d[0]);
		}
		branch(&j, h[0], false);
		return (size_t)(j.p - buf);
	}
	for (unsigned i = first; i < ng; i++, pushes++)
		push(&j, SAVED[i], false);
	f = frame(&(struct arch_hooks_sig){ .stack = s->stack, .nvec = nv },
		  pushes, &xmm_at);
	if (f)
		rsp_adjust(&j, f, false);
	for (unsigned v = 0; v < nv; v++)
		movaps(&j, v, xmm_at + 16 * v, false);
	for (unsigned i = first; i < ng; i++)
		mov(&j, ARG[i], SAVED[i]);
	for (unsigned t = 0; t < n; t++) {
		bool last = t + 1 == n;

		if (s->stack && !last)
			copy_stack(&j, s->stack, f + 8 * pushes + 8);
		if (t > 0 || (s->stack > STACK_UNROLL && !last)) {
			for (unsigned i = first; i < ng; i++)
				mov(&j, SAVED[i], ARG[i]);
		}
		if (t > 0) {
			for (unsigned v = 0; v < nv; v++)
				movaps(&j, v, xmm_at + 16 * v, true);
		}
		if (s->data) {
			b1(&j, 0x48);
			b1(&j, 0xbf);
			b64(&j, d[t]);
		}
		if (!last) {
			branch(&j, h[t], true);
			continue;
		}
		if (f)
			rsp_adjust(&j, f, true);
		for (unsigned i = ng; i-- > first;)
			push(&j, SAVED[i], true);
		branch(&j, h[t], false);
	}
	return (size_t)(j.p - buf);
}
