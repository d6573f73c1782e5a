/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * x86-64 implementation of the arch contract (arch.h): rel32 branches,
 * the jump-to-self write protocol, and the bytes of generated stubs.
 */
#include <string.h>

#include "../internal.h"
#include "arch.h"

/* Opcodes, with their assembly. */
#define OP_CALL32 0xe8      /* call rel32                          */
#define OP_JMP32 0xe9       /* jmp rel32                           */
#define OP_JMP8 0xeb        /* jmp rel8                            */
#define OP_JNE8 0x75        /* jne rel8                            */
#define OP_INT3 0xcc        /* int3                                */
#define OP_RET 0xc3         /* ret                                 */
#define REL8_SELF 0xfe      /* eb fe: jmp .                        */
static const uint8_t CMP_RIP_R10[] = { 0x4c, 0x3b, 0x15 }; /* cmp d32(%rip),%r10 */
static const uint8_t JMP_RIP[] = { 0xff, 0x25 };           /* jmp *d32(%rip)     */
static const uint8_t MOV_RIP_R11[] = { 0x4c, 0x8b, 0x1d }; /* mov d32(%rip),%r11 */
static const uint8_t LEA_RIP_R11[] = { 0x4c, 0x8d, 0x1d }; /* lea d32(%rip),%r11 */
static const uint8_t JMP_R10[] = { 0x41, 0xff, 0xe2 };     /* jmp *%r10          */
static const uint8_t TEST_R10[] = { 0x4d, 0x85, 0xd2 };    /* test %r10,%r10     */
static const uint8_t NOP5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 }; /* nopl 0(%rax,%rax) */
#define OP_JE8 0x74         /* je rel8                             */
static const uint8_t MOVABS_R11[] = { 0x49, 0xbb };        /* movabs $i64,%r11   */
static const uint8_t PUSH_R11[] = { 0x41, 0x53 };          /* push %r11          */
static const uint8_t PAUSE[] = { 0xf3, 0x90 };             /* pause              */
static const uint8_t LFENCE[] = { 0x0f, 0xae, 0xe8 };      /* lfence             */
static const uint8_t MOV_R10_RSP[] = { 0x4c, 0x89, 0x14, 0x24 }; /* mov %r10,(%rsp) */
static const uint8_t MOV_R11_RSP[] = { 0x4c, 0x89, 0x1c, 0x24 }; /* mov %r11,(%rsp) */

/* Region header layout (offsets from the region base). */
#define HDR_RETPOLINE_R10 0
#define HDR_RETPOLINE_R11 32
#define HDR_DISC_PLAIN 64
#define HDR_DISC_RETP 80
#define HDR_MISS_PLAIN 96
#define HDR_MISS_RETP 112
#define HDR_LIT_DISC 192
#define HDR_LIT_MISS 200

/* Far stub layout: code first, the literal at STUB_LIT. */
#define STUB_LIT 40      /* .quad target                          */

/* Guard stub layout: code, then at guard_lit(n) the n target literals and
 * the site literal.  The code of one target is at most GUARD_PER_TARGET
 * bytes (cmp 7 + jne 2 + the far retpoline form 12), the miss path at most
 * GUARD_MISS (lea 7 + jmp 5), after GUARD_NULL_TEST (test 3 + jne 2 + ret 1)
 * in the stub of a conditional site. */
#define GUARD_PER_TARGET 21
#define GUARD_MISS 12
#define GUARD_NULL_TEST 6 /* a conditional site's stub, before its miss path */

/* In x86_64.S. */
void dc_x86_64_discover_entry(void) DC_HIDDEN;
void dc_x86_64_miss_entry(void) DC_HIDDEN;

static int64_t rel(uintptr_t next_insn, uintptr_t dest)
{
	return (int64_t)(dest - next_insn);
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

bool arch_branch_reaches(uintptr_t at, uintptr_t dest)
{
	return fits32(rel(at + ARCH_BRANCH_LEN, dest));
}

bool arch_branch_read(uintptr_t at, enum arch_op op, uintptr_t *dest)
{
	const uint8_t *p = (const uint8_t *)at;
	int32_t d;

	if (op == ARCH_OP_COND && !memcmp(p, NOP5, sizeof(NOP5))) {
		*dest = 0;
		return true;
	}
	if (p[0] != (op == ARCH_OP_JMP ? OP_JMP32 : OP_CALL32))
		return false;
	memcpy(&d, p + 1, 4);
	*dest = at + ARCH_BRANCH_LEN + (intptr_t)d;
	return true;
}

static bool same_qword(uintptr_t a, uintptr_t b)
{
	return (a & ~(uintptr_t)7) == (b & ~(uintptr_t)7);
}

/*
 * Rewrite the destination of `call/jmp rel32` at `at`.
 *
 *   before:  e8|e9 o0 o1 o2 o3      (old rel32)
 *   after:   e8|e9 n0 n1 n2 n3      (new rel32)
 *
 * When the rel32 lies in one aligned quadword (always for a trampoline:
 * its rel32 is 4-byte aligned), or else the bytes that change do:
 *   1. one atomic store of the quadword holding them.
 * Otherwise HotSpot's jump-to-self, which needs the first two bytes in one
 * aligned quadword (else the branch is refused, DYNCALL_ERR_ALIGN):
 *   1. atomic store  eb fe           (jmp .: arriving threads spin)
 *      -- sync cores: nobody is executing the old instruction's tail --
 *   2. plain stores  n1 n2 n3        (bytes at+2 .. at+4)
 *      -- sync cores --
 *   3. atomic store  e8|e9 n0        (the new instruction appears whole)
 *      -- sync cores (by the caller, as after every batch) --
 */
/* The three steps of HotSpot's jump-to-self that replace the 5-byte
 * instruction at `at` by `insn` (the protocol: arch_branch_plan's comment
 * above); its first two bytes must share an aligned quadword. */
static int jump_to_self_plan(uintptr_t at, const uint8_t insn[5],
			     struct arch_step steps[ARCH_MAX_STEPS])
{
	if (!same_qword(at, at + 1))
		return DYNCALL_ERR_ALIGN;
	steps[0] = (struct arch_step){ .addr = at, .len = 2, .atomic = true,
				       .bytes = { OP_JMP8, REL8_SELF } };
	steps[1] = (struct arch_step){ .addr = at + 2, .len = 3,
				       .atomic = false,
				       .bytes = { insn[2], insn[3], insn[4] } };
	steps[2] = (struct arch_step){ .addr = at, .len = 2, .atomic = true,
				       .bytes = { insn[0], insn[1] } };
	return 3;
}

/*
 * A conditional site's call turned into its NOP or back (dest 0 = NOP):
 *
 *   set:     e8 r0 r1 r2 r3         call tramp|target|stub
 *   unset:   0f 1f 44 00 00         nopl 0x0(%rax,%rax,1)
 *
 * Every byte may change.  When the five bytes lie in one aligned quadword
 * (the pass cannot align a Clang call, so about half of them do):
 *   1. one atomic store of the quadword holding them.
 * Otherwise the jump-to-self of the call case, over all five bytes:
 *   1. atomic store  eb fe           (jmp .: arriving threads spin)
 *      -- sync cores --
 *   2. plain stores  bytes 2..4 of the new instruction
 *      -- sync cores --
 *   3. atomic store  bytes 0..1 of the new instruction
 * A thread never executes a mix of the two: it runs the old instruction,
 * spins on `jmp .`, or runs the new one.
 */
static int cond_plan(uintptr_t at, uintptr_t cur, uintptr_t want,
		     struct arch_step steps[ARCH_MAX_STEPS])
{
	uint8_t nb[5];

	(void)cur;
	if (want) {
		int64_t n = rel(at + ARCH_BRANCH_LEN, want);
		int32_t n32 = (int32_t)n;

		if (!fits32(n))
			return DYNCALL_ERR_RANGE;
		nb[0] = OP_CALL32;
		memcpy(nb + 1, &n32, 4);
	} else {
		memcpy(nb, NOP5, sizeof(NOP5));
	}
	if (same_qword(at, at + 4)) {
		steps[0] = (struct arch_step){ .addr = at, .len = 5,
					       .atomic = true };
		memcpy(steps[0].bytes, nb, 5);
		return 1;
	}
	return jump_to_self_plan(at, nb, steps);
}

int arch_branch_plan(uintptr_t at, enum arch_op op, uintptr_t cur,
		     uintptr_t want, struct arch_step steps[ARCH_MAX_STEPS])
{
	uint8_t opc = op == ARCH_OP_JMP ? OP_JMP32 : OP_CALL32;
	int64_t o = rel(at + ARCH_BRANCH_LEN, cur);
	int64_t n = rel(at + ARCH_BRANCH_LEN, want);
	uint8_t ob[4], nb[4], insn[5];
	int32_t o32 = (int32_t)o, n32 = (int32_t)n;
	int first = -1, last = -1;

	if (op == ARCH_OP_COND && cur == want)
		return 0;
	if (op == ARCH_OP_COND && (!cur || !want))
		return cond_plan(at, cur, want, steps);
	if (!fits32(n))
		return DYNCALL_ERR_RANGE;
	if (n32 == o32)
		return 0;
	if (same_qword(at + 1, at + 4)) {
		/* the whole rel32 in one quadword (always for a trampoline):
		 * one atomic store of all four bytes, changed or not */
		steps[0].addr = at + 1;
		steps[0].len = 4;
		steps[0].atomic = true;
		memcpy(steps[0].bytes, &n32, 4);
		return 1;
	}
	memcpy(ob, &o32, 4);
	memcpy(nb, &n32, 4);
	for (int i = 0; i < 4; i++) {
		if (ob[i] != nb[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (first < 0)
		return 0;
	if (same_qword(at + 1 + first, at + 1 + last)) {
		steps[0].addr = at + 1 + first;
		steps[0].len = last - first + 1;
		steps[0].atomic = true;
		memcpy(steps[0].bytes, nb + first, steps[0].len);
		return 1;
	}
	insn[0] = opc;
	memcpy(insn + 1, nb, 4);
	return jump_to_self_plan(at, insn, steps);
}

/*
 * An unpatched trampoline (abi.h):
 *   tramp:  e9 00 00 00 00   jmp slow
 *   slow:   41 ff e2         jmp *%r10
 *      or:  e9 <rel32>       jmp __dyncall_retpoline_r10
 */
/*
 * A conditional trampoline's slow path (abi.h) starts with the NULL test:
 *   slow:   4d 85 d2         test %r10,%r10
 *           74 03 | 74 05    je 1f           (over the branch below)
 *           41 ff e2 | e9 <rel32>
 *   1:      c3               ret
 */
#define COND_TEST_LEN 5 /* test + je */
bool arch_tramp_returns_on_null(uintptr_t slow)
{
	const uint8_t *s = (const uint8_t *)slow;
	uint8_t skip;

	if (memcmp(s, TEST_R10, sizeof(TEST_R10)) || s[3] != OP_JE8)
		return false;
	skip = s[4];
	if (skip == sizeof(JMP_R10))
		return !memcmp(s + COND_TEST_LEN, JMP_R10, sizeof(JMP_R10)) &&
		       s[COND_TEST_LEN + skip] == OP_RET;
	return skip == ARCH_BRANCH_LEN && s[COND_TEST_LEN] == OP_JMP32 &&
	       s[COND_TEST_LEN + skip] == OP_RET;
}

uintptr_t arch_tramp_slow(uintptr_t tramp, bool *retpoline)
{
	const uint8_t *s = (const uint8_t *)tramp + ARCH_BRANCH_LEN;
	uintptr_t dest;

	if (!arch_branch_read(tramp, ARCH_OP_JMP, &dest) ||
	    dest != tramp + ARCH_BRANCH_LEN)
		return 0;
	if (arch_tramp_returns_on_null(dest))
		s += COND_TEST_LEN;
	if (!memcmp(s, JMP_R10, sizeof(JMP_R10))) {
		*retpoline = false;
		return dest;
	}
	if (s[0] == OP_JMP32) {
		*retpoline = true;
		return dest;
	}
	return 0;
}

bool arch_call_before(const struct dc_module *m, uintptr_t ret,
		      uintptr_t tramp)
{
	uintptr_t dest;

	(void)m; /* the call's bytes: checked by the caller */
	return arch_branch_read(ret - ARCH_CALL_LEN, ARCH_OP_CALL, &dest) &&
	       dest == tramp;
}

/* A tiny assembler over a buffer that knows where it will live. */
struct emit {
	uint8_t *buf;
	uintptr_t at;
	size_t n;
};

static void put(struct emit *e, const void *b, size_t len)
{
	memcpy(e->buf + e->n, b, len);
	e->n += len;
}

static void put8(struct emit *e, uint8_t b)
{
	e->buf[e->n++] = b;
}

static void put32(struct emit *e, int32_t v)
{
	put(e, &v, 4);
}

static void put64(struct emit *e, uint64_t v)
{
	put(e, &v, 8);
}

static uintptr_t pc(const struct emit *e)
{
	return e->at + e->n;
}

/* <insn with a rip-relative disp32 at its end> to `dest` */
static void put_rip(struct emit *e, const uint8_t *insn, size_t len,
		    uintptr_t dest)
{
	put(e, insn, len);
	put32(e, (int32_t)rel(pc(e) + 4, dest));
}

static void put_jmp32(struct emit *e, uintptr_t dest)
{
	put8(e, OP_JMP32);
	put32(e, (int32_t)rel(pc(e) + 4, dest));
}

static void pad_to(struct emit *e, size_t off)
{
	while (e->n < off)
		put8(e, OP_INT3);
}

/*
 *   call 1f
 * 2: pause ; lfence ; jmp 2b
 * 1: mov %reg,(%rsp) ; ret
 */
static void put_retpoline(struct emit *e, const uint8_t mov[4])
{
	put8(e, OP_CALL32);
	put32(e, sizeof(PAUSE) + sizeof(LFENCE) + 2);
	put(e, PAUSE, sizeof(PAUSE));
	put(e, LFENCE, sizeof(LFENCE));
	put8(e, OP_JMP8);
	put8(e, (uint8_t)-(int)(sizeof(PAUSE) + sizeof(LFENCE) + 2));
	put(e, mov, 4);
	put8(e, OP_RET);
}

/*
 * Shared entries of a region, reached by rel32 from its stubs:
 *   +0    retpoline on r10
 *   +32   retpoline on r11
 *   +64   disc_plain:   push %r11 ; jmp *lit_disc(%rip)
 *   +80   disc_retp:    push %r11 ; mov lit_disc(%rip),%r11 ; jmp +32
 *   +96   miss_plain, +112 miss_retp: the same for lit_miss
 *   +192  lit_disc:     .quad dc_x86_64_discover_entry
 *   +200  lit_miss:     .quad dc_x86_64_miss_entry
 * The entries find their argument (site, or the address of a guard stub's
 * site literal) pushed on the stack: r11 is the only register free at a
 * trampoline's destination.
 */
size_t arch_emit_region_header(uint8_t *buf, uintptr_t at)
{
	struct emit e = { buf, at, 0 };
	static const struct {
		size_t off, lit;
		bool retp;
	} entries[] = {
		{ HDR_DISC_PLAIN, HDR_LIT_DISC, false },
		{ HDR_DISC_RETP, HDR_LIT_DISC, true },
		{ HDR_MISS_PLAIN, HDR_LIT_MISS, false },
		{ HDR_MISS_RETP, HDR_LIT_MISS, true },
	};

	put_retpoline(&e, MOV_R10_RSP);
	pad_to(&e, HDR_RETPOLINE_R11);
	put_retpoline(&e, MOV_R11_RSP);
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		pad_to(&e, entries[i].off);
		put(&e, PUSH_R11, sizeof(PUSH_R11));
		if (entries[i].retp) {
			put_rip(&e, MOV_RIP_R11, sizeof(MOV_RIP_R11),
				at + entries[i].lit);
			put_jmp32(&e, at + HDR_RETPOLINE_R11);
		} else {
			put_rip(&e, JMP_RIP, sizeof(JMP_RIP),
				at + entries[i].lit);
		}
	}
	pad_to(&e, HDR_LIT_DISC);
	put64(&e, (uintptr_t)dc_x86_64_discover_entry);
	put64(&e, (uintptr_t)dc_x86_64_miss_entry);
	pad_to(&e, ARCH_REGION_HEADER);
	return e.n;
}

/* jmp target: rel32 if it reaches, else through the literal at `lit`
 * holding it (jmp *lit(%rip), or mov lit(%rip),%r11 + retpoline on r11). */
static void put_jump_to(struct emit *e, uintptr_t region, uintptr_t target,
			uintptr_t lit, unsigned flavor)
{
	if (fits32(rel(pc(e) + 5, target))) {
		put_jmp32(e, target);
	} else if (flavor & DC_FLAVOR_RETPOLINE) {
		put_rip(e, MOV_RIP_R11, sizeof(MOV_RIP_R11), lit);
		put_jmp32(e, region + HDR_RETPOLINE_R11);
	} else {
		put_rip(e, JMP_RIP, sizeof(JMP_RIP), lit);
	}
}

static size_t guard_lit(unsigned n, bool cond)
{
	return (n * GUARD_PER_TARGET + (cond ? GUARD_NULL_TEST : 0) +
		GUARD_MISS + 7) & ~(size_t)7;
}

size_t arch_guard_size(unsigned n, bool cond)
{
	return (guard_lit(n, cond) + 8 * (n + 1) + 15) & ~(size_t)15;
}

/*
 * Guard stub for targets T1..Tn, n <= ARCH_MAX_TARGETS, hottest first
 * (immutable once published):
 *     cmp lit1(%rip),%r10        4c 3b 15 <d32>
 *     jne 1f                     75 <d8>
 *     jmp T1                     e9 <rel32> | far form (put_jump_to)
 * 1:  ...                        the same for T2..Tn
 *   miss:
 *     test %r10,%r10             4d 85 d2           (conditional site only:
 *     jne 2f                     75 01               a NULL pointer returns,
 *     ret                        c3                  as its trampoline would)
 * 2:  jmp *%r10                  41 ff e2           (ARCH_MISS_SLOW, plain)
 *     jmp retpoline_r10          e9 <rel32>         (ARCH_MISS_SLOW, RETPOLINE)
 *     lea lit_site(%rip),%r11    4c 8d 1d <d32>     (ARCH_MISS_ENTRY:
 *     jmp miss_{plain,retp}      e9 <rel32>          dc_miss, then slow)
 *   lit1: .quad T1 ... litn: .quad Tn ; lit_site: .quad site
 * A single-target stub with ARCH_MISS_SLOW is the classic guard.  Every
 * compare and its jump use the same literal, so a thread that matched Ti
 * jumps to Ti whatever else happens.
 */
size_t arch_emit_guard(uint8_t *buf, uintptr_t at, uintptr_t region,
		       const struct arch_guard *g)
{
	struct emit e = { buf, at, 0 };
	uintptr_t lit = at + guard_lit(g->ntargets, g->cond);

	for (unsigned i = 0; i < g->ntargets; i++) {
		size_t jne;

		put_rip(&e, CMP_RIP_R10, sizeof(CMP_RIP_R10), lit + 8 * i);
		put8(&e, OP_JNE8);
		jne = e.n;
		put8(&e, 0);
		put_jump_to(&e, region, g->targets[i], lit + 8 * i, g->flavor);
		buf[jne] = (uint8_t)(e.n - jne - 1);
	}
	if (g->cond) {
		put(&e, TEST_R10, sizeof(TEST_R10));
		put8(&e, OP_JNE8);
		put8(&e, 1);
		put8(&e, OP_RET);
	}
	if (g->miss == ARCH_MISS_ENTRY) {
		put_rip(&e, LEA_RIP_R11, sizeof(LEA_RIP_R11),
			lit + 8 * g->ntargets);
		put_jmp32(&e, region + (g->flavor & DC_FLAVOR_RETPOLINE ?
					HDR_MISS_RETP : HDR_MISS_PLAIN));
	} else if (g->flavor & DC_FLAVOR_RETPOLINE) {
		put_jmp32(&e, region + HDR_RETPOLINE_R10);
	} else {
		put(&e, JMP_R10, sizeof(JMP_R10));
	}
	pad_to(&e, guard_lit(g->ntargets, g->cond));
	for (unsigned i = 0; i < g->ntargets; i++)
		put64(&e, g->targets[i]);
	put64(&e, g->site);
	pad_to(&e, arch_guard_size(g->ntargets, g->cond));
	return e.n;
}

/* Far stub for a direct site whose target is out of rel32 range:
 *     jmp *lit(%rip)  |  mov lit(%rip),%r11 ; jmp retpoline_r11
 *   lit: .quad T */
size_t arch_emit_far(uint8_t *buf, uintptr_t at, uintptr_t region,
		     uintptr_t target, unsigned flavor)
{
	struct emit e = { buf, at, 0 };

	if (flavor & DC_FLAVOR_RETPOLINE) {
		put_rip(&e, MOV_RIP_R11, sizeof(MOV_RIP_R11), at + STUB_LIT);
		put_jmp32(&e, region + HDR_RETPOLINE_R11);
	} else {
		put_rip(&e, JMP_RIP, sizeof(JMP_RIP), at + STUB_LIT);
	}
	pad_to(&e, STUB_LIT);
	put64(&e, target);
	put64(&e, 0);
	pad_to(&e, ARCH_FAR_SIZE);
	return e.n;
}

/* Discovery thunk of one site:
 *     movabs $site,%r11          49 bb <i64>
 *     jmp disc_{plain,retp}      e9 <rel32>     (region header) */
size_t arch_emit_disc_thunk(uint8_t *buf, uintptr_t at, uintptr_t region,
			    uintptr_t site, unsigned flavor)
{
	struct emit e = { buf, at, 0 };

	put(&e, MOVABS_R11, sizeof(MOVABS_R11));
	put64(&e, site);
	put_jmp32(&e, region + (flavor & DC_FLAVOR_RETPOLINE ?
				HDR_DISC_RETP : HDR_DISC_PLAIN));
	pad_to(&e, ARCH_THUNK_SIZE);
	return e.n;
}

/* endbr64 (f3 0f 1e fa): what an indirect call checks under IBT. */
bool arch_is_landing_pad(uint32_t word, unsigned site_flags)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

	return !(site_flags & DYNCALL_SITE_IBT) ||
	       !memcmp(&word, endbr64, sizeof(endbr64));
}

/* x86 keeps instruction fetch coherent with stores; what remains is the
 * serialization of the other cores, done by the generic membarrier. */
void arch_flush_icache(uintptr_t addr, size_t len)
{
	(void)addr;
	(void)len;
}

/*
 * A caller site from a relocation the linker kept (arch.h
 * arch_caller_reloc; docs/prologues.md "Redirects at the call sites").
 * The 32-bit PC-relative relocations (R_X86_64_PC32, _PLT32, and
 * _GOTPCRELX / _REX_GOTPCRELX, which GNU ld turns into a direct call or
 * jump when it relaxes `call/jmp *f@GOTPCREL(%rip)`) fill one of:
 *   - the rel32 of `e8 call`, `e9 jmp` (or `0f 8x jcc`, not patched);
 *   - the disp32 of a RIP-relative operand, right after its ModRM byte,
 *     which has mod 00 and r/m 101: 05 0d 15 1d 25 2d 35 3d, never e8/e9
 *     (RIP-relative addressing has no SIB byte; a SIB's disp32 is
 *     absolute, never a PC-relative relocation);
 *   - data or an immediate written by hand (`.long f - .`, `$f - .`):
 *     neither GCC nor Clang emits one in code.
 * So a field right after e8/e9 is a call or jump rel32 in compiler
 * output; the caller also checks that it decodes to exactly the
 * destination the linker gave it (S + A + 4: the rel32 is relative to
 * the end of the field) and that a registered patchable function is
 * there.  `67 e8` (ld's `addr32 call f`) is a call too: its e8 is the
 * branch written (a thread spinning on a jump-to-self `eb fe` there
 * continues at the e8, with the same return address).
 */
#define R_X86_64_PC32_ 2
#define R_X86_64_PLT32_ 4
#define R_X86_64_GOTPCRELX_ 41
#define R_X86_64_REX_GOTPCRELX_ 42
bool arch_caller_reloc(uint32_t type, uintptr_t field, uintptr_t *site,
		       enum arch_op *op, int64_t *bias)
{
	uint8_t b;

	if (type != R_X86_64_PC32_ && type != R_X86_64_PLT32_ &&
	    type != R_X86_64_GOTPCRELX_ && type != R_X86_64_REX_GOTPCRELX_)
		return false;
	b = *(const uint8_t *)(field - 1);
	if (b != OP_CALL32 && b != OP_JMP32)
		return false;
	*site = field - 1;
	*op = b == OP_CALL32 ? ARCH_OP_CALL : ARCH_OP_JMP;
	*bias = 4;
	return true;
}
