// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * x86-64 function-entry patching (arch.h "Function-entry patching",
 * docs/prologues.md).  The build side (-fpatchable-function-entry=29,24
 * -falign-functions=8, or DYNCALL_PATCHABLE) leaves, with GCC 12 and
 * Clang 19 alike (func is 8-byte aligned: the alignment comes before the
 * 24 pre-entry bytes, which start 8-byte aligned):
 *
 *   rec = func-24: 90 x 24                       pre-entry, never executed
 *   func:          [f3 0f 1e fa]                 endbr64 (-fcf-protection)
 *   P = site:      90 90 90 90 90                GCC: five 1-byte NOPs
 *                  0f 1f 44 00 08                Clang: one 5-byte NOP
 *   P+5 = resume:  the body
 *
 * Patched (P = func, or func+4 after endbr64):
 *
 *   func-24:  <slot: 8 bytes>                    a far value (see Q)
 *   func-16:  ff 25 <rel32 to slot>              jmp *slot(%rip)   (A)
 *   func-10:  90 90                              unchanged
 *   func-8:   Q, one aligned quadword:
 *             90 90 90 | e9 <rel32>              jmp value    (near)
 *             90 90 90 | eb f3 90 90 90          jmp A        (far)
 *   P:        eb f9 (P = func) | eb f5 (P = func+4)   jmp func-5
 *   P+2:      the rest of the entry NOPs, never reached from P
 *
 * value is the jump function or the redirect target.  Near (within
 * +-2 GiB of func, the usual case: jump functions live in stub regions
 * beside the module), the path is two direct jumps, e.g. a redirected
 * call is caller -> P -> func-5 -> target with no indirect branch; far,
 * Q jumps to A, which jumps through the slot.
 *
 * Why `eb f9` / `eb f5`: GCC's five NOPs are five instructions, and a
 * thread preempted between two of them resumes at P+1..P+4; only the
 * first two bytes change, and a thread resuming at P+1 decodes the
 * displacement as an instruction: f9 is `stc`, f5 is `cmc`, which change
 * only the carry flag, and no flag is live at a function's entry (the
 * SysV ABI keeps only DF, which they leave alone); then the NOPs and the
 * body.  The displacement is what makes the jump land at func-5, the
 * last five bytes of the aligned quadword Q before func.  P and P+1 sit
 * in one aligned quadword (P & 7 is 0 or 4): one atomic store turns the
 * entry on or off; Q is one aligned quadword: one atomic store changes
 * its whole instruction, so a thread executing it sees the old or the new
 * jump.  jmp, not call: a redirect target returns straight to the caller
 * (no unbalanced return stack), and a hook's jump function continues at
 * resume by a jmp of its own.
 *
 * Protocol (prologue.c drives it, a batch of functions at a time):
 *   1. A written once, while nothing leads to it (Q never jumped to A
 *      before); new jump functions written to fresh memory;
 *   2. one membarrier (SYNC_CORE) if 1. wrote anything;
 *   3. far: slot <- value (one aligned 8-byte store), then Q <- jmp A;
 *      near: Q <- jmp value (one aligned 8-byte store);
 *   4. entry <- eb f9/f5 (on) or its original two bytes (off): one atomic
 *      store.  Neither Q nor the slot is cleared: a thread that passed P
 *      before 4. reaches what Q led to, which stays valid.
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"

#define PRE_ENTRY 24 /* -fpatchable-function-entry=,24 */
#define ENTRY_NOPS 5 /* ... =29: 5 NOP bytes at entry */
#define A_OFF 16 /* A = jmp *slot(%rip) at func - 16 */
#define Q_OFF 8 /* Q, the aligned quadword at func - 8 */
#define Q_JMP 3 /* its jump at func - 5 */
static const uint8_t ENDBR64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t NOP5[5] = { 0x0f, 0x1f, 0x44, 0x00,
				 0x08 }; /* nopl 8(%rax,%rax) */
static const uint8_t NOP5_0[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
#define OP_NOP 0x90
#define OP_JMP8 0xeb /* jmp rel8 */
#define OP_JMP32 0xe9 /* jmp rel32 */
#define OP_JMP_IND 0xff /* ff 25 rel32: jmp *rel32(%rip) */
#define MODRM_JMP_RIP 0x25
#define OP_CALL 0xe8 /* call rel32 */
#define OP_RET 0xc3
#define OP_PUSH_RBX 0x53
#define OP_POP_RBX 0x5b

extern const char dc_fentry_tramp[] DC_HIDDEN; /* x86_64_prologue.S */

int arch_fentry_probe(uintptr_t rec, struct arch_fentry *f)
{
	const uint8_t *b = (const uint8_t *)rec;
	uintptr_t p;

	memset(f, 0, sizeof(*f));
	if (rec & 7)
		return DYNCALL_ERR_ALIGN;
	for (int i = 0; i < PRE_ENTRY; i++)
		if (b[i] != OP_NOP)
			return DYNCALL_ERR_BYTES;
	f->func = rec + PRE_ENTRY; /* known even if refused below */
	p = f->func;
	if (!memcmp((const void *)p, ENDBR64, sizeof(ENDBR64)))
		p += sizeof(ENDBR64);
	if (memcmp((const void *)p, NOP5, 5) &&
	    memcmp((const void *)p, NOP5_0, 5)) {
		for (int i = 0; i < ENTRY_NOPS; i++)
			if (((const uint8_t *)p)[i] != OP_NOP)
				return DYNCALL_ERR_BYTES;
	}
	f->slot = rec;
	f->ool = f->func - A_OFF;
	f->site = p;
	f->resume = p + ENTRY_NOPS;
	f->site_len = 2;
	memcpy(f->orig, (const void *)p, 2);
	return DYNCALL_OK;
}

/* The entry's rel8: to func - 5 from P + 2 (-7 = stc, -11 = cmc). */
static uint8_t entry_rel8(const struct arch_fentry *f)
{
	return (uint8_t)(int8_t)((intptr_t)(f->func - Q_OFF + Q_JMP) -
				 (intptr_t)(f->site + 2));
}

int arch_fentry_entry_state(const struct arch_fentry *f)
{
	const uint8_t *b = (const uint8_t *)f->site;

	if (b[0] == OP_JMP8 && b[1] == entry_rel8(f))
		return 1;
	if (!memcmp(b, f->orig, 2))
		return 0;
	return DYNCALL_ERR_BYTES;
}

int arch_fentry_entry_step(const struct arch_fentry *f, bool on,
			   struct arch_step *s)
{
	s->addr = f->site;
	s->len = 2;
	s->atomic = true;
	if (on) {
		s->bytes[0] = OP_JMP8;
		s->bytes[1] = entry_rel8(f);
	} else {
		memcpy(s->bytes, f->orig, 2);
	}
	return 1;
}

static bool rel32_ok(uintptr_t from, uintptr_t to)
{
	intptr_t d = (intptr_t)(to - from);

	return d == (int32_t)d;
}

/* Q's bytes for value: near, jmp value; far, jmp A. */
static uint64_t q_bytes(const struct arch_fentry *f, uintptr_t value,
			bool *near)
{
	uintptr_t q = f->func - Q_OFF, next = q + Q_JMP + 5;
	uint8_t b[8] = { OP_NOP, OP_NOP, OP_NOP, OP_JMP8,
			 0,	 OP_NOP, OP_NOP, OP_NOP };
	uint64_t v;

	*near = rel32_ok(next, value);
	if (*near) {
		int32_t rel = (int32_t)(value - next);

		b[Q_JMP] = OP_JMP32;
		memcpy(&b[Q_JMP + 1], &rel, 4);
	} else {
		b[Q_JMP + 1] = (uint8_t)(int8_t)((intptr_t)f->ool -
						 (intptr_t)(q + Q_JMP + 2));
	}
	memcpy(&v, b, 8);
	return v;
}

/* Up to 2 steps: far, the slot then Q; near, Q alone (the slot keeps
 * whatever it held: nothing reads it while Q jumps directly). */
int arch_fentry_slot_step(const struct arch_fentry *f, uintptr_t value,
			  struct arch_step *s)
{
	uintptr_t q = f->func - Q_OFF;
	bool near;
	uint64_t qv = q_bytes(f, value, &near);
	int n = 0;

	if (!near && *(const uintptr_t *)f->slot != value) {
		s[n].addr = f->slot;
		s[n].len = 8;
		s[n].atomic = true;
		memcpy(s[n].bytes, &value, 8);
		n++;
	}
	if (*(const uint64_t *)q != qv) {
		s[n].addr = q;
		s[n].len = 8;
		s[n].atomic = true;
		memcpy(s[n].bytes, &qv, 8);
		n++;
	}
	return n;
}

int arch_fentry_ool_steps(const struct arch_fentry *f, struct arch_step *s,
			  int max)
{
	int32_t rel = (int32_t)(f->slot - (f->ool + 6));

	s->addr = f->ool;
	s->len = 6;
	s->atomic = false; /* the entry does not lead here yet */
	s->bytes[0] = OP_JMP_IND;
	s->bytes[1] = MODRM_JMP_RIP;
	memcpy(&s->bytes[2], &rel, 4);
	if (!memcmp((const void *)f->ool, s->bytes, 6))
		return 0;
	return max >= 1 ? 1 : DYNCALL_ERR_INVAL;
}

/* Emitters. */
static uint8_t *put(uint8_t *p, const void *b, size_t n)
{
	memcpy(p, b, n);
	return p + n;
}

static uint8_t *put_imm64(uint8_t *p, uint8_t rex, uint8_t op, uint64_t v)
{
	*p++ = rex;
	*p++ = op;
	return put(p, &v, 8);
}

/*
 * Jump function for handlers h[0..n):
 *
 *   jf:    f3 0f 1e fa             endbr64      (reached by jmp *slot)
 *          49 bb <desc>            movabs $desc, %r11
 *          ff 25 00 00 00 00       jmp *lit(%rip)
 *   lit:   <dc_fentry_tramp>
 *   desc:  <calls> <resume> <fn>   read by the trampoline
 *   calls: f3 0f 1e fa             endbr64      (call *(%r11))
 *          53 / 48 89 fb           push %rbx; mov %rdi, %rbx  (regs)
 *          per handler:
 *          48 bf <fn>              movabs $fn, %rdi
 *          48 8b 73 38             mov 56(%rbx), %rsi         (regs->ret)
 *          48 ba <data>            movabs $data, %rdx
 *          48 89 d9                mov %rbx, %rcx
 *          e8 <rel32>              call handler   (direct when in reach,
 *          | 48 b8 <h> ff d0        else movabs $h, %rax; call *%rax)
 *          5b c3                   pop %rbx; ret
 */
#define JF_HEAD 32 /* endbr, movabs, jmp *lit, lit, pad to 8 */
#define JF_DESC 24
#define JF_CALL 40 /* worst case of one handler's calls */

size_t arch_fentry_jf_size(unsigned n)
{
	return JF_HEAD + JF_DESC + 4 + 4 + n * JF_CALL + 2;
}

size_t arch_fentry_emit_jf(uint8_t *buf, uintptr_t at, uintptr_t fn,
			   uintptr_t resume, const uintptr_t *h,
			   const uintptr_t *d, unsigned n)
{
	uint8_t *p = buf;
	uintptr_t desc = at + JF_HEAD, calls = desc + JF_DESC;
	uintptr_t tramp = (uintptr_t)dc_fentry_tramp;
	static const uint8_t jmp_lit[6] = { OP_JMP_IND, MODRM_JMP_RIP, 0, 0, 0,
					    0 };
	/* endbr64; push %rbx; mov %rdi, %rbx */
	static const uint8_t endbr_push[] = { 0xf3, 0x0f, 0x1e, 0xfa,
					      OP_PUSH_RBX };
	static const uint8_t mov_rdi_rbx[3] = { 0x48, 0x89, 0xfb };
	static const uint8_t ld_ret[4] = { 0x48, 0x8b, 0x73, 0x38 };
	static const uint8_t mov_rcx[3] = { 0x48, 0x89, 0xd9 };
	static const uint8_t call_rax[2] = { 0xff, 0xd0 };

	memset(buf, ARCH_FILL_BYTE, arch_fentry_jf_size(n));
	p = put(p, ENDBR64, 4);
	p = put_imm64(p, 0x49, 0xbb, desc);
	p = put(p, jmp_lit, sizeof(jmp_lit));
	p = put(p, &tramp, 8);
	p = buf + JF_HEAD;
	p = put(p, &calls, 8);
	p = put(p, &resume, 8);
	p = put(p, &fn, 8);
	p = put(p, endbr_push, sizeof(endbr_push));
	p = put(p, mov_rdi_rbx, sizeof(mov_rdi_rbx));
	for (unsigned i = 0; i < n; i++) {
		uintptr_t after;

		p = put_imm64(p, 0x48, 0xbf, fn);
		p = put(p, ld_ret, sizeof(ld_ret));
		p = put_imm64(p, 0x48, 0xba, d[i]);
		p = put(p, mov_rcx, sizeof(mov_rcx));
		after = at + (uintptr_t)(p - buf) + 5;
		if (rel32_ok(after, h[i])) {
			int32_t rel = (int32_t)(h[i] - after);

			*p++ = OP_CALL;
			p = put(p, &rel, 4);
		} else {
			p = put_imm64(p, 0x48, 0xb8, h[i]);
			p = put(p, call_rax, sizeof(call_rax));
		}
	}
	*p++ = OP_POP_RBX;
	*p++ = OP_RET;
	return (size_t)(p - buf);
}

/*
 * The original body, callable:
 *   f3 0f 1e fa  endbr64   (only if the function has one)
 *   ff 25 00 00 00 00 <resume>   jmp *lit(%rip)
 * The entry NOPs skipped are NOPs: running the body from resume is
 * running the function.
 */
size_t arch_fentry_emit_orig(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f)
{
	static const uint8_t jmp_lit[6] = { OP_JMP_IND, MODRM_JMP_RIP, 0, 0, 0,
					    0 };
	uint8_t *p = buf;

	(void)at;
	memset(buf, ARCH_FILL_BYTE, ARCH_FENTRY_ORIG_SIZE);
	if (f->site != f->func)
		p = put(p, ENDBR64, 4);
	p = put(p, jmp_lit, sizeof(jmp_lit));
	p = put(p, &f->resume, 8);
	return (size_t)(p - buf);
}
