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
 *   P = site:      0f 1f 44 00 08                Clang, GCC with the dyncall
 *                                                plugin: one 5-byte NOP
 *                  90 90 90 90 90                GCC alone: five 1-byte NOPs
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
 * Direct entry: where the entry is one 5-byte NOP at func (no
 * endbr64; func is 8-aligned), the entry may instead be `jmp value` when
 * value is near: one aligned 8-byte store of e9 <rel32> and the body's
 * next three bytes as they are (site_len DIRECT_LEN).  One jump less for
 * hooks and redirects; no thread can be inside a single instruction.
 *
 * value is the jump function or the redirect target.  Near (within
 * +-2 GiB of func, the usual case: jump functions live in stub regions
 * beside the module), the path is two direct jumps, e.g. a redirected
 * call is caller -> P -> func-5 -> target with no indirect branch; far,
 * Q jumps to A, which jumps through the slot.
 *
 * Why `eb f9` / `eb f5`: five 1-byte NOPs are five instructions, and a
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
 *      store; a direct entry: its quadword <- jmp value, jmp func-5 (far)
 *      or the NOP, whenever that changes.  Neither Q nor the slot is cleared: a thread that passed P
 *      before 4. reaches what Q led to, which stays valid.
 */
#include <cpuid.h>
#include <string.h>

#include "../internal.h"
#include "arch.h"
#include "dwarf_cfi.h"

#define PRE_ENTRY 24 /* -fpatchable-function-entry=,24 */
#define ENTRY_NOPS 5 /* ... =29: 5 NOP bytes at entry */
#define A_OFF 16 /* A = jmp *slot(%rip) at func - 16 */
#define Q_OFF 8 /* Q, the aligned quadword at func - 8 */
#define Q_JMP 3 /* its jump at func - 5 */
#define DIRECT_LEN 8 /* the entry quadword a direct entry jump rewrites */
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
#define OP_JE8 0x74 /* je rel8 */
#define OP_JNE32 0x85 /* 0f 85 rel32: jne rel32 */
#define OP_RET 0xc3

int arch_fentry_probe(uintptr_t rec, struct arch_fentry *f)
{
	const uint8_t *b = (const uint8_t *)rec;
	uintptr_t p;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < PRE_ENTRY; i++)
		if (b[i] != OP_NOP)
			return DYNCALL_ERR_BYTES;
	f->func = rec + PRE_ENTRY; /* known even if refused below */
	/* the slot and Q need aligned stores (GCC without the dyncall plugin
	 * does not align cold functions: docs/prologues.md) */
	if (rec & 7)
		return DYNCALL_ERR_ALIGN;
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
	/* one 5-byte NOP in an aligned quadword (Clang, GCC with the dyncall
	 * plugin; no endbr64): the
	 * entry itself may become `jmp value` (direct, below) */
	f->site_len = p == f->func && ((const uint8_t *)p)[0] != OP_NOP ?
			      DIRECT_LEN :
			      2;
	memcpy(f->orig, (const void *)p, f->site_len == 2 ? 2 : ENTRY_NOPS);
	return DYNCALL_OK;
}

/* The entry's rel8: to func - 5 from P + 2 (-7 = stc, -11 = cmc). */
static uint8_t entry_rel8(const struct arch_fentry *f)
{
	return (uint8_t)(int8_t)((intptr_t)(f->func - Q_OFF + Q_JMP) -
				 (intptr_t)(f->site + 2));
}

static bool rel32_ok(uintptr_t from, uintptr_t to)
{
	intptr_t d = (intptr_t)(to - from);

	return d == (int32_t)d;
}

int arch_fentry_entry_state(const struct arch_fentry *f)
{
	const uint8_t *b = (const uint8_t *)f->site;

	if (b[0] == OP_JMP8 && b[1] == entry_rel8(f))
		return 1;
	if (f->site_len == DIRECT_LEN && b[0] == OP_JMP32)
		return 1; /* direct: jmp value */
	if (!memcmp(b, f->orig, f->site_len == 2 ? 2 : ENTRY_NOPS))
		return 0;
	return DYNCALL_ERR_BYTES;
}

/*
 * value 0: the original bytes; else the jump to f-5 (Q), or, where the
 * entry is one 5-byte NOP at the start of an aligned quadword (no
 * endbr64: site_len DIRECT_LEN) and value is within rel32 reach,
 * `jmp value` at the entry itself: one aligned 8-byte store of the five
 * entry bytes and the body's next three, as they are now (read under the
 * runtime lock, which every writer of text holds).
 */
int arch_fentry_entry_step(const struct arch_fentry *f, uintptr_t value,
			   struct arch_step *s)
{
	s->addr = f->site;
	s->atomic = true;
	if (f->site_len == 2) {
		s->len = 2;
		if (value) {
			s->bytes[0] = OP_JMP8;
			s->bytes[1] = entry_rel8(f);
		} else {
			memcpy(s->bytes, f->orig, 2);
		}
		return 1;
	}
	s->len = DIRECT_LEN;
	memcpy(s->bytes, (const void *)f->site, DIRECT_LEN);
	memcpy(s->bytes, f->orig, ENTRY_NOPS);
	if (value && rel32_ok(f->site + 5, value)) {
		int32_t rel = (int32_t)(value - (f->site + 5));

		s->bytes[0] = OP_JMP32;
		memcpy(&s->bytes[1], &rel, 4);
	} else if (value) {
		s->bytes[0] = OP_JMP8;
		s->bytes[1] = entry_rel8(f);
	}
	return 1;
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
 * Jump function for handlers h[0..n), self-contained: the guard, the
 * saves, the handler calls and the way on, with direct branches only
 * when its targets are within +-2 GiB (jump functions are placed beside
 * the function: prologue.c pool_get), so a program built with retpolines
 * or IBT runs no indirect branch on the way (docs/prologues.md):
 *
 *   jf:  f3 0f 1e fa                  endbr64        (jmp *slot, far)
 *        64 83 3c 25 <tp> 00          cmpl $0, %fs:tp   dc_fentry_busy
 *        0f 85 <rel32 resume>         jne resume     busy: no handlers
 *        55 / 48 89 e5                push %rbp; mov %rsp, %rbp
 *        64 c7 04 25 <tp> 01 00 00 00 movl $1, %fs:tp
 *        48 83 e4 c0 / 48 81 ec 10 01 00 00
 *                                     and $-64, %rsp; sub $272, %rsp
 *        rdi rsi rdx rcx r8 r9 rax -> regs->arg[0..5], regs->rax
 *                                     (regs = 16(%rsp), 64-byte aligned):
 *                                     the first vec.ints of them when the
 *                                     record counted them (vec.int_known:
 *                                     not variadic, no static chain, so
 *                                     not rax, nor r10 below), else all
 *        48 8b 75 08 / ...            regs->ret = the caller's return
 *        [c5 fe 7f 84 24 <disp32>     vmovdqu %ymmI, 272+32*I(%rsp)
 *        | 62 f1 fe 48 7f 84 24 <disp32>  vmovdqu64 %zmmI, 272+64*I(%rsp)]
 *                                     the whole register, I < vec.n, when
 *                                     a wider vector argument may be in
 *                                     it (DYNCALL_FN_REC_VEC_YMM/ZMM)
 *        [probe: no record, a CPU with AVX ("The upper state without a
 *        record" below):
 *         c5 7c 56 c1 / ...           vorps ymm0..7 -> ymm8 (a tree; vpord
 *                                     zmm with AVX-512), then its bits
 *                                     above 128 tested (vextractf128,
 *                                     vptest)
 *         0f 95 04 24                 setne (%rsp): 1 when one is set
 *         74 <rel8>                   je 1f
 *         vmovdqu %ymmI | %zmmI       the whole of ymm/zmm0-7, as above
 *      1: c5 f8 77]                   vzeroupper
 *        [c5 f8 77]                   vzeroupper: a function with a record
 *                                     (vec.upper_dead) on a CPU with AVX:
 *                                     nothing live is above what was
 *                                     saved, and no legacy-SSE instruction
 *                                     below or in a handler may meet a
 *                                     dirty upper state (on this machine
 *                                     that cost about 110 ns per call:
 *                                     docs/prologues.md "The wide saves
 *                                     and the upper state")
 *        0f 29 ...                    movaps %xmm0..(vec.n-1) -> regs->vec
 *                                     (vec.n: the registers the prototype
 *                                     uses, 8 if unknown; none when every
 *                                     handler was hooked with
 *                                     DYNCALL_FN_NO_VEC)
 *        4c 89 54 24 08               mov %r10, 8(%rsp) (static chain,
 *                                     not exposed; not with vec.int_known)
 *        per handler, in order:
 *        48 bf <fn>                   movabs $fn, %rdi
 *        48 8b 74 24 48               mov regs->ret, %rsi (not for the
 *                                     first: %rsi holds it already)
 *        48 ba <data>                 movabs $data, %rdx
 *        48 8d 4c 24 10               lea 16(%rsp), %rcx  (regs)
 *        e8 <rel32 handler>           call handler (| 48 b8 <h> ff d0,
 *                                     movabs $h, %rax; call *%rax: far)
 *        64 c7 04 25 <tp> 0 0 0 0     movl $0, %fs:tp
 *        the registers back (those saved), as the handlers left them
 *        (wide: the
 *        whole register first, then its low 16 bytes from regs->vec by
 *        vinsertf128/vinsertf32x4 $0: no legacy-SSE write after the
 *        wide loads dirtied the upper state)
 *        [probe: 80 3c 24 00          cmpb $0, (%rsp)
 *         0f 85 <rel32 wide>          jne wide
 *         c5 f8 77                    vzeroupper (a handler may have left
 *                                     the upper halves dirty)
 *         0f 28 ...]                  movaps regs->vec -> xmm0-7
 *  leave: 48 89 ec / 5d               mov %rbp, %rsp; pop %rbp
 *        e9 <rel32 resume>            jmp resume
 *   far: ff 25 00 00 00 00 <resume>   jmp *lit(%rip) (only if resume is
 *                                     out of rel32 reach; jne goes here)
 *  [wide: vmovdqu, vinsertf128 ...    the probe's wide restore, out of the
 *         e9 <rel32 leave>]           common path: jmp leave
 *
 * The order of the stores is what the path costs: measured on this
 * machine (docs/prologues.md "Measured numbers"), the path is bound by
 * committing its stores, and two stores in a row commit together only
 * when they fall in one 64-byte line.  So `push %rbp` comes right after
 * the caller's `call` pushed the return address (the same line, 7 times
 * in 8), the 8 quadwords of regs->arg, rax and ret fill one aligned line,
 * and r10's slot shares a line with the return address the handler's
 * call pushes next (8(%rsp) and -8(%rsp), regs being 64-aligned at
 * 16(%rsp)); the guard's two stores are each a line of their own.
 *
 * tp is dc_fentry_busy's offset from the thread pointer (initial-exec
 * TLS, the same for every thread: dc_fentry_tpoff(), read once); the
 * cmpl and the flags it sets are dead at a function's entry (as for
 * `stc`/`cmc` above).  resume is the body (P+5) or the redirect target.
 * The frame holds all of struct dyncall_regs with or without the vector
 * saves, so a handler that writes regs->vec never writes past it.  Only
 * the first vec.n vector registers are saved: a register the function's
 * prototype takes nothing in is dead at its entry (caller-saved); the
 * same for the integer registers beyond vec.ints (regs->arg[vec.ints..5]
 * and regs->rax are then not filled in, and writing them has no effect).
 * Saving only the integer registers the prototype uses: measured in
 * docs/prologues.md "Integer registers".
 *
 * The upper state without a record.  A function built without the
 * plugins may take a __m256/__m512 argument in ymm/zmm0-7, or may be
 * legacy-SSE code called with the upper halves clean; nothing says which.
 * Saving the whole registers always and restoring them with VEX loads
 * left the upper state dirty for every such function (a legacy-SSE body
 * then paid 130 to 140 ns per call on Zen 3: docs/prologues.md); saving
 * 16 bytes always lost a wide argument's upper half to a handler that
 * touched it.  The probe decides per call, from the values themselves:
 * if any of ymm/zmm0-7 has a bit set above bit 127, the whole registers
 * are saved and restored (the state ends dirty, as it came); else only
 * the low halves, after a vzeroupper at both ends (the state ends clean,
 * and the upper halves zero, as they came).  ymm/zmm8-11 are scratch:
 * caller-saved and no argument's.  (XINUSE, xgetbv with ecx = 1, would
 * say whether the state is dirty, but costs 17 ns on Zen 3 under this
 * hypervisor.)  The flag lives at 0(%rsp), a quadword of the frame
 * nothing else uses.
 */
#define JF_FRAME 272 /* r10, struct dyncall_regs, the 64-byte alignment */
#define JF_WIDE_AREA 272 /* whole ymm/zmm registers, 64-byte aligned */
#define JF_FRAME_WIDE (JF_WIDE_AREA + 8 * 64)
#define JF_SAVE_SIZE 46 /* endbr64 ... sub $272, %rsp */
#define JF_INT_SIZE 35 /* 7 stores or loads: rdi rsi rdx rcx r8 r9 rax */
#define JF_RET_SIZE 9 /* regs->ret */
#define JF_VEC_SIZE 55 /* 8 movaps, stores or loads */
#define JF_WIDE_SIZE (8 * 11) /* 8 vmovdqu64, stores or loads */
#define JF_VZU_SIZE 3 /* vzeroupper */
#define JF_INSERT_SIZE (8 * 11) /* 8 vinsertf32x4 */
#define JF_R10_SIZE 5
#define JF_CALL 42 /* worst case of one handler's call */
#define JF_CLEAR_SIZE 12 /* movl $0, %fs:tp */
#define JF_REST_SIZE 40 /* the loads of rdi ... rax, r10 */
#define JF_LEAVE_SIZE 4 /* mov %rbp, %rsp; pop %rbp */
#define JF_TAIL 14 /* jmp rel32 | jmp *lit + lit */
/* the probe's bytes beyond the wide path's (whose saves and restores it
 * uses): the zmm test 65, setne 4, je 2, vzeroupper 3, cmpb 4, jne 6,
 * vzeroupper 3, the narrow restores JF_VEC_SIZE, the jmp back 5 */
#define JF_PROBE_SIZE (65 + 4 + 2 + 3 + 4 + 6 + 3 + JF_VEC_SIZE + 5)

extern long dc_fentry_tpoff(void) DC_HIDDEN; /* x86_64_prologue.S */

static int32_t busy_tpoff(void)
{
	static int32_t tp;
	static bool known;

	if (!known) { /* static TLS: a small negative offset */
		tp = (int32_t)dc_fentry_tpoff();
		known = true;
	}
	return tp;
}

size_t arch_fentry_jf_size(unsigned n)
{
	return JF_SAVE_SIZE + JF_INT_SIZE + JF_RET_SIZE + JF_WIDE_SIZE +
	       JF_VZU_SIZE + JF_VEC_SIZE + JF_R10_SIZE + n * JF_CALL +
	       JF_CLEAR_SIZE + JF_REST_SIZE + JF_WIDE_SIZE + JF_INSERT_SIZE +
	       JF_LEAVE_SIZE + JF_TAIL + JF_PROBE_SIZE; /* >= JF_VEC_SIZE */
}

/* One instruction per line. */
/* clang-format off */
static const uint8_t jf_save[JF_SAVE_SIZE] = {
	0xf3, 0x0f, 0x1e, 0xfa,				/* endbr64 */
	0x64, 0x83, 0x3c, 0x25, 0, 0, 0, 0, 0x00,	/* cmpl $0, %fs:tp */
	0x0f, 0x85, 0, 0, 0, 0,				/* jne resume */
	0x55,						/* push %rbp */
	0x48, 0x89, 0xe5,				/* mov %rsp, %rbp */
	0x64, 0xc7, 0x04, 0x25, 0, 0, 0, 0, 1, 0, 0, 0, /* movl $1, %fs:tp */
	0x48, 0x83, 0xe4, 0xc0,				/* and $-64, %rsp */
	0x48, 0x81, 0xec, JF_FRAME & 0xff, JF_FRAME >> 8, 0, 0,
							/* sub $272, %rsp */
};
#define JF_CMP_TP 8 /* jf_save offsets of the fields */
#define JF_JNE 13
#define JF_SET_TP 27
#define JF_SUB_IMM 42 /* the frame size of sub $272, %rsp */

/* rdi rsi rdx rcx r8 r9 rax -> regs->arg[0..5], regs->rax: the first n
 * (the record's integer count; 7, rax too, without one), 5 bytes each */
static const uint8_t jf_int_save[JF_INT_SIZE] = {
	0x48, 0x89, 0x7c, 0x24, 0x10,			/* mov %rdi, 16(%rsp) */
	0x48, 0x89, 0x74, 0x24, 0x18,			/* mov %rsi, 24(%rsp) */
	0x48, 0x89, 0x54, 0x24, 0x20,			/* mov %rdx, 32(%rsp) */
	0x48, 0x89, 0x4c, 0x24, 0x28,			/* mov %rcx, 40(%rsp) */
	0x4c, 0x89, 0x44, 0x24, 0x30,			/* mov %r8, 48(%rsp) */
	0x4c, 0x89, 0x4c, 0x24, 0x38,			/* mov %r9, 56(%rsp) */
	0x48, 0x89, 0x44, 0x24, 0x40,			/* mov %rax, 64(%rsp) */
};

static const uint8_t jf_ret[JF_RET_SIZE] = {
	0x48, 0x8b, 0x75, 0x08,				/* mov 8(%rbp), %rsi */
	0x48, 0x89, 0x74, 0x24, 0x48,			/* mov %rsi, 72(%rsp) */
};

static const uint8_t jf_vec_save[JF_VEC_SIZE] = {
	0x0f, 0x29, 0x44, 0x24, 0x50,			/* movaps %xmm0, 80(%rsp) */
	0x0f, 0x29, 0x4c, 0x24, 0x60,			/* movaps %xmm1, 96(%rsp) */
	0x0f, 0x29, 0x54, 0x24, 0x70,			/* movaps %xmm2, 112(%rsp) */
	0x0f, 0x29, 0x9c, 0x24, 0x80, 0, 0, 0,		/* movaps %xmm3, 128(%rsp) */
	0x0f, 0x29, 0xa4, 0x24, 0x90, 0, 0, 0,		/* movaps %xmm4, 144(%rsp) */
	0x0f, 0x29, 0xac, 0x24, 0xa0, 0, 0, 0,		/* movaps %xmm5, 160(%rsp) */
	0x0f, 0x29, 0xb4, 0x24, 0xb0, 0, 0, 0,		/* movaps %xmm6, 176(%rsp) */
	0x0f, 0x29, 0xbc, 0x24, 0xc0, 0, 0, 0,		/* movaps %xmm7, 192(%rsp) */
};
/* bytes of jf_vec_save and jf_vec_rest for the first n registers */
static const uint8_t jf_vec_len[DYNCALL_X86_64_VEC_ARG_REGS + 1] = {
	0, 5, 10, 15, 23, 31, 39, 47, 55,
};

static const uint8_t jf_r10[JF_R10_SIZE] = {
	0x4c, 0x89, 0x54, 0x24, 0x08,			/* mov %r10, 8(%rsp) */
};

static const uint8_t jf_clear[JF_CLEAR_SIZE] = {
	0x64, 0xc7, 0x04, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, /* movl $0, %fs:tp */
};

/* the loads of jf_int_save's registers, in its order, then r10 */
static const uint8_t jf_rest[JF_REST_SIZE] = {
	0x48, 0x8b, 0x7c, 0x24, 0x10,			/* mov 16(%rsp), %rdi */
	0x48, 0x8b, 0x74, 0x24, 0x18,			/* mov 24(%rsp), %rsi */
	0x48, 0x8b, 0x54, 0x24, 0x20,			/* mov 32(%rsp), %rdx */
	0x48, 0x8b, 0x4c, 0x24, 0x28,			/* mov 40(%rsp), %rcx */
	0x4c, 0x8b, 0x44, 0x24, 0x30,			/* mov 48(%rsp), %r8 */
	0x4c, 0x8b, 0x4c, 0x24, 0x38,			/* mov 56(%rsp), %r9 */
	0x48, 0x8b, 0x44, 0x24, 0x40,			/* mov 64(%rsp), %rax */
	0x4c, 0x8b, 0x54, 0x24, 0x08,			/* mov 8(%rsp), %r10 */
};
#define JF_CLR_TP 4 /* jf_clear offset of the field */

static const uint8_t jf_vec_rest[JF_VEC_SIZE] = {
	0x0f, 0x28, 0x44, 0x24, 0x50,			/* movaps 80(%rsp), %xmm0 */
	0x0f, 0x28, 0x4c, 0x24, 0x60,			/* movaps 96(%rsp), %xmm1 */
	0x0f, 0x28, 0x54, 0x24, 0x70,			/* movaps 112(%rsp), %xmm2 */
	0x0f, 0x28, 0x9c, 0x24, 0x80, 0, 0, 0,		/* movaps 128(%rsp), %xmm3 */
	0x0f, 0x28, 0xa4, 0x24, 0x90, 0, 0, 0,		/* movaps 144(%rsp), %xmm4 */
	0x0f, 0x28, 0xac, 0x24, 0xa0, 0, 0, 0,		/* movaps 160(%rsp), %xmm5 */
	0x0f, 0x28, 0xb4, 0x24, 0xb0, 0, 0, 0,		/* movaps 176(%rsp), %xmm6 */
	0x0f, 0x28, 0xbc, 0x24, 0xc0, 0, 0, 0,		/* movaps 192(%rsp), %xmm7 */
};

/* Any bit above 127 set in ymm0-7 (AVX) or zmm0-7 (AVX-512F)?  ZF clear
 * if so.  A tree of ORs into ymm/zmm8, then the bits above 127 alone. */
static const uint8_t jf_probe_ymm[] = {
	0xc5, 0x7c, 0x56, 0xc1,				/* vorps %ymm1, %ymm0, %ymm8 */
	0xc5, 0x6c, 0x56, 0xcb,				/* vorps %ymm3, %ymm2, %ymm9 */
	0xc5, 0x5c, 0x56, 0xd5,				/* vorps %ymm5, %ymm4, %ymm10 */
	0xc5, 0x4c, 0x56, 0xdf,				/* vorps %ymm7, %ymm6, %ymm11 */
	0xc4, 0x41, 0x3c, 0x56, 0xc1,			/* vorps %ymm9, %ymm8, %ymm8 */
	0xc4, 0x41, 0x2c, 0x56, 0xd3,			/* vorps %ymm11, %ymm10, %ymm10 */
	0xc4, 0x41, 0x3c, 0x56, 0xc2,			/* vorps %ymm10, %ymm8, %ymm8 */
	0xc4, 0x43, 0x7d, 0x19, 0xc0, 0x01,		/* vextractf128 $1, %ymm8, %xmm8 */
	0xc4, 0x42, 0x79, 0x17, 0xc0,			/* vptest %xmm8, %xmm8 */
};
static const uint8_t jf_probe_zmm[] = {
	0x62, 0x71, 0x7d, 0x48, 0xeb, 0xc1,		/* vpord %zmm1, %zmm0, %zmm8 */
	0x62, 0x71, 0x6d, 0x48, 0xeb, 0xcb,		/* vpord %zmm3, %zmm2, %zmm9 */
	0x62, 0x71, 0x5d, 0x48, 0xeb, 0xd5,		/* vpord %zmm5, %zmm4, %zmm10 */
	0x62, 0x71, 0x4d, 0x48, 0xeb, 0xdf,		/* vpord %zmm7, %zmm6, %zmm11 */
	0x62, 0x51, 0x3d, 0x48, 0xeb, 0xc1,		/* vpord %zmm9, %zmm8, %zmm8 */
	0x62, 0x51, 0x2d, 0x48, 0xeb, 0xd3,		/* vpord %zmm11, %zmm10, %zmm10 */
	0x62, 0x51, 0x3d, 0x48, 0xeb, 0xc2,		/* vpord %zmm10, %zmm8, %zmm8 */
	0x62, 0x53, 0xfd, 0x48, 0x3b, 0xc1, 0x01,	/* vextracti64x4 $1, %zmm8, %ymm9 */
	0xc4, 0x43, 0x7d, 0x19, 0xc0, 0x01,		/* vextractf128 $1, %ymm8, %xmm8 */
	0xc4, 0x41, 0x3c, 0x56, 0xc1,			/* vorps %ymm9, %ymm8, %ymm8 */
	0xc4, 0x42, 0x7d, 0x17, 0xc0,			/* vptest %ymm8, %ymm8 */
};
static const uint8_t jf_probe_flag[] = {
	0x0f, 0x95, 0x04, 0x24,				/* setne (%rsp) */
};
static const uint8_t jf_probe_test[] = {
	0x80, 0x3c, 0x24, 0x00,				/* cmpb $0, (%rsp) */
};

static const uint8_t jf_leave[JF_LEAVE_SIZE] = {
	0x48, 0x89, 0xec,				/* mov %rbp, %rsp */
	0x5d,						/* pop %rbp */
};
/* clang-format on */

/*
 * The widest vector registers this CPU and kernel have (bytes): 64 with
 * AVX-512F and the OS saving ZMM state (XCR0 bits 1, 2, 5-7), 32 with AVX
 * and YMM state (bits 1, 2), else 16.  A function recorded with a wider
 * vector argument than the CPU has cannot have been called with one (its
 * callers would fault first), so the saves need not go beyond it.
 */
static unsigned cpu_vec_width(void)
{
	static unsigned width;
	unsigned a, b, c, d, lo, hi;

	if (width)
		return width;
	width = 16;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) ||
	    !(c & bit_AVX))
		return width;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 0x6) != 0x6)
		return width;
	width = 32;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) &&
	    (lo & 0xe6) == 0xe6)
		width = 64;
	return width;
}

/*
 * The whole of ymm/zmm 0..n-1 to or from the wide area (op 0x7f: store,
 * 0x6f: load):
 *   c5 fe <op> 84|I<<3 24 <disp32>           vmovdqu %ymmI, disp32(%rsp)
 *   62 f1 fe 48 <op> 84|I<<3 24 <disp32>     vmovdqu64 %zmmI, disp32(%rsp)
 */
static uint8_t *put_wide(uint8_t *p, unsigned n, unsigned width, uint8_t op)
{
	static const uint8_t vex256[2] = { 0xc5, 0xfe };
	static const uint8_t evex512[4] = { 0x62, 0xf1, 0xfe, 0x48 };

	for (unsigned i = 0; i < n; i++) {
		int32_t disp = JF_WIDE_AREA + (int32_t)(i * width);

		p = width == 64 ? put(p, evex512, sizeof(evex512)) :
				  put(p, vex256, sizeof(vex256));
		*p++ = op;
		*p++ = (uint8_t)(0x84 | i << 3); /* disp32(%rsp), reg I */
		*p++ = 0x24;
		p = put(p, &disp, 4);
	}
	return p;
}

/*
 * The low 16 bytes of ymm/zmm 0..n-1 from regs->vec (80+16*I(%rsp)),
 * keeping the rest of each register as the wide loads left it (VEX and
 * EVEX: no legacy-SSE write while the upper state is dirty):
 *   c4 e3 <vvvv> 18 84|I<<3 24 <disp32> 00         vinsertf128 $0
 *   62 f3 <vvvv> 48 18 84|I<<3 24 <disp32> 00      vinsertf32x4 $0
 * vvvv (the register merged into, I itself) is inverted in bits 3-6 of
 * the byte; 0x05: VEX.L/EVEX bit 2 set, pp = 66.
 */
static uint8_t *put_insert(uint8_t *p, unsigned n, unsigned width)
{
	for (unsigned i = 0; i < n; i++) {
		int32_t disp = 80 + (int32_t)(i * 16);
		uint8_t vvvv = (uint8_t)((~i & 0xf) << 3 | 0x05);

		if (width == 64) {
			*p++ = 0x62;
			*p++ = 0xf3;
			*p++ = vvvv;
			*p++ = 0x48; /* 512 bits, no mask */
		} else {
			*p++ = 0xc4;
			*p++ = 0xe3;
			*p++ = vvvv;
		}
		*p++ = 0x18;
		*p++ = (uint8_t)(0x84 | i << 3); /* disp32(%rsp), reg I */
		*p++ = 0x24;
		p = put(p, &disp, 4);
		*p++ = 0; /* the low 128 bits */
	}
	return p;
}

/* rel32 of a branch whose displacement ends at p (buf at address at) */
static void put_rel32(uint8_t *p, uint8_t *buf, uintptr_t at, uintptr_t to)
{
	int32_t rel = (int32_t)(to - (at + (uintptr_t)(p - buf) + 4));

	memcpy(p, &rel, 4);
}

static const uint8_t jf_vzeroupper[JF_VZU_SIZE] = { 0xc5, 0xf8, 0x77 };

/* The probe of the upper halves ("The upper state without a record"):
 * the test, the flag, the whole registers when a bit is set. */
static uint8_t *put_probe(uint8_t *p, unsigned n, unsigned pw)
{
	uint8_t *je;

	p = pw == 64 ? put(p, jf_probe_zmm, sizeof(jf_probe_zmm)) :
		       put(p, jf_probe_ymm, sizeof(jf_probe_ymm));
	p = put(p, jf_probe_flag, sizeof(jf_probe_flag));
	*p++ = OP_JE8;
	je = p++;
	p = put_wide(p, n, pw, 0x7f);
	*je = (uint8_t)(p - (je + 1)); /* at most 8 * 11 bytes */
	return p;
}

/* Each handler in order: fn, regs->ret, data, regs; a direct call when
 * it is within reach, else through %rax. */
static uint8_t *put_calls(uint8_t *p, uint8_t *buf, uintptr_t at, uintptr_t fn,
			  const uintptr_t *h, const uintptr_t *d, unsigned n)
{
	static const uint8_t ld_ret[5] = { 0x48, 0x8b, 0x74, 0x24, 0x48 };
	static const uint8_t lea_rcx[5] = { 0x48, 0x8d, 0x4c, 0x24, 0x10 };
	static const uint8_t call_rax[2] = { 0xff, 0xd0 };

	for (unsigned i = 0; i < n; i++) {
		uintptr_t after;

		p = put_imm64(p, 0x48, 0xbf, fn);
		if (i) /* the first finds regs->ret in %rsi already */
			p = put(p, ld_ret, sizeof(ld_ret));
		p = put_imm64(p, 0x48, 0xba, d[i]);
		p = put(p, lea_rcx, sizeof(lea_rcx));
		after = at + (uintptr_t)(p - buf) + 5;
		if (rel32_ok(after, h[i])) {
			*p++ = OP_CALL;
			put_rel32(p, buf, at, h[i]);
			p += 4;
		} else {
			p = put_imm64(p, 0x48, 0xb8, h[i]);
			p = put(p, call_rax, sizeof(call_rax));
		}
	}
	return p;
}

/* The way on to resume at p, and the guard's jne (whose rel32 is at jne)
 * to it too: jmp rel32, or both through one literal when resume is out of
 * reach. */
static uint8_t *put_tail(uint8_t *p, uint8_t *buf, uintptr_t at, uint8_t *jne,
			 uintptr_t resume)
{
	bool far = !rel32_ok(at + (uintptr_t)(p - buf) + 5, resume) ||
		   !rel32_ok(at + (uintptr_t)(jne - buf) + 4, resume);

	if (!far) {
		*p++ = OP_JMP32;
		put_rel32(p, buf, at, resume);
		put_rel32(jne, buf, at, resume);
		return p + 4;
	}
	put_rel32(jne, buf, at, at + (uintptr_t)(p - buf));
	*p++ = OP_JMP_IND;
	*p++ = MODRM_JMP_RIP;
	memset(p, 0, 4);
	p += 4;
	return put(p, &resume, 8);
}

/*
 * The jump function's unwind rules (runtime/unwind.c makes them its FDE;
 * the CIE's rule, CFA = rsp + 8 and the return address at CFA - 8, holds
 * from the entry: the function's caller called it, the NOP jumped here):
 *
 *   JF_PUSH_END   after push %rbp:  CFA = rsp + 16, rbp at CFA - 16
 *   JF_FRAME_END  after mov %rsp, %rbp: CFA = rbp + 16 (rsp is realigned
 *                 below it; the handlers are called from here on)
 *   leave + 4     after pop %rbp: CFA = rsp + 8, rbp restored (the
 *                 tail's jmp; the state before is remembered)
 *   tail_end      the probe's wide restore, run inside the frame and
 *                 jumping back to leave: the remembered state again
 */
#define JF_PUSH_END 20 /* jf_save: endbr64 4, cmpl 9, jne 6, push 1 */
#define JF_FRAME_END 23 /* mov %rsp, %rbp 3 */
#define DW_X86_64_RBP 6
#define DW_X86_64_RSP 7
_Static_assert(JF_PUSH_END == JF_JNE + 6 + 1 &&
		       sizeof(jf_save) > JF_FRAME_END && JF_FRAME_END < 64,
	       "push %rbp right after jne, mov %rsp, %rbp after it");

static void put_cfi(struct arch_cfi *cfi, size_t leave, size_t tail_end)
{
	struct cfi_writer w = { .cfi = cfi, .code_align = 1 };

	cfi_at(&w, JF_PUSH_END);
	cfi_cfa_offset(&w, 16);
	cfi_saved(&w, DW_X86_64_RBP, -16);
	cfi_at(&w, JF_FRAME_END);
	cfi_cfa_register(&w, DW_X86_64_RBP);
	cfi_at(&w, leave + JF_LEAVE_SIZE);
	cfi_remember_state(&w);
	cfi_cfa(&w, DW_X86_64_RSP, 8);
	cfi_restored(&w, DW_X86_64_RBP);
	if (tail_end) {
		cfi_at(&w, tail_end);
		cfi_restore_state(&w);
	}
	cfi_done(&w);
}

size_t arch_fentry_emit_jf(uint8_t *buf, uintptr_t at, uintptr_t fn,
			   uintptr_t resume, const uintptr_t *h,
			   const uintptr_t *d, unsigned n,
			   struct arch_fentry_vec vec, struct arch_cfi *cfi)
{
	int32_t tp = busy_tpoff();
	uint8_t *p = buf, *jne, *clr, *skip = NULL, *leave;
	size_t tail_end;
	bool wide, probe;
	unsigned pw = cpu_vec_width(); /* the probe's width */
	/* the integer registers: rdi.. (the record's count), else all six,
	 * rax (%al: a variadic call's vector count) and r10 (the static
	 * chain) */
	unsigned ni = vec.int_known && vec.ints <= DYNCALL_X86_64_INT_ARG_REGS ?
			      vec.ints :
			      DYNCALL_X86_64_INT_ARG_REGS + 1;
	bool r10 = ni > DYNCALL_X86_64_INT_ARG_REGS;

	memset(buf, ARCH_FILL_BYTE, arch_fentry_jf_size(n));
	p = put(p, jf_save, sizeof(jf_save));
	memcpy(buf + JF_CMP_TP, &tp, 4);
	memcpy(buf + JF_SET_TP, &tp, 4);
	jne = buf + JF_JNE + 2;
	p = put(p, jf_int_save, 5 * ni);
	p = put(p, jf_ret, sizeof(jf_ret));
	if (vec.n > DYNCALL_X86_64_VEC_ARG_REGS)
		vec.n = DYNCALL_X86_64_VEC_ARG_REGS;
	if (vec.width > pw)
		vec.width = pw;
	wide = vec.n && vec.width > 16;
	/* no record: what the upper halves hold is learnt per call (above) */
	probe = vec.n && !wide && !vec.upper_dead && pw > 16;
	if (wide || probe) {
		int32_t frame = JF_FRAME_WIDE;

		memcpy(buf + JF_SUB_IMM, &frame, 4);
	}
	if (wide)
		p = put_wide(p, vec.n, vec.width, 0x7f);
	if (probe)
		p = put_probe(p, vec.n, pw);
	if ((vec.upper_dead || probe) && pw > 16)
		p = put(p, jf_vzeroupper, sizeof(jf_vzeroupper));
	p = put(p, jf_vec_save, jf_vec_len[vec.n]);
	if (r10)
		p = put(p, jf_r10, sizeof(jf_r10));
	p = put_calls(p, buf, at, fn, h, d, n);
	clr = p + JF_CLR_TP;
	p = put(p, jf_clear, sizeof(jf_clear));
	memcpy(clr, &tp, 4);
	p = put(p, jf_rest, 5 * ni);
	if (r10)
		p = put(p, jf_rest + JF_INT_SIZE, JF_R10_SIZE);
	if (wide) {
		p = put_wide(p, vec.n, vec.width, 0x6f);
		p = put_insert(p, vec.n, vec.width);
	} else if (probe) {
		p = put(p, jf_probe_test, sizeof(jf_probe_test));
		*p++ = 0x0f; /* jne rel32: the wide restore, after the tail */
		*p++ = OP_JNE32;
		skip = p;
		p += 4;
		p = put(p, jf_vzeroupper, sizeof(jf_vzeroupper));
		p = put(p, jf_vec_rest, jf_vec_len[vec.n]);
	} else {
		p = put(p, jf_vec_rest, jf_vec_len[vec.n]);
	}
	leave = p;
	p = put(p, jf_leave, sizeof(jf_leave));
	p = put_tail(p, buf, at, jne, resume);
	tail_end = (size_t)(p - buf);
	if (skip) { /* the probe's wide restore, then back to leave */
		put_rel32(skip, buf, at, at + (uintptr_t)(p - buf));
		p = put_wide(p, vec.n, pw, 0x6f);
		p = put_insert(p, vec.n, pw);
		*p++ = OP_JMP32;
		put_rel32(p, buf, at, at + (uintptr_t)(leave - buf));
		p += 4;
	}
	put_cfi(cfi, (size_t)(leave - buf), skip ? tail_end : 0);
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
