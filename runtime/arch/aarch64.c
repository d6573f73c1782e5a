/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * aarch64 implementation of the arch contract (arch.h): B/BL imm26
 * branches written with one aligned 32-bit store, cache maintenance, and
 * the instructions of generated stubs.
 *
 * Why one store is enough.  The Arm ARM (B2.2.5, "Concurrent modification
 * and execution of instructions") lets software replace one of B, BL, NOP,
 * BRK, SVC, HVC, SMC, ISB with another of that set while other threads may
 * execute it: they observe either the old or the new instruction.  Every
 * patch point here is a B or BL and stays one, so every write is a single
 * naturally aligned 32-bit store (ARCH_STORE_WORD), followed by
 *     DC CVAU; DSB ISH; IC IVAU; DSB ISH; ISB    (arch_flush_icache)
 * on the written line, and, once per batch, by the generic code's
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE), which makes
 * every other thread of the process execute a context synchronization
 * event before it returns.
 *
 * Register use on the patched paths (AAPCS64): x18 holds the loaded
 * pointer (the static chain, as LLVM and GCC use it on Linux); x16/x17
 * (IP0/IP1) are free at any call boundary, so generated code uses only
 * them.  A trampoline is reached by `bl tramp` (or `b tramp`) and everything
 * it branches to by direct branches, except the final jump to a target out
 * of range, which is `br x16`: accepted by a `bti c` landing pad.
 *
 * BTI.  Generated code is only entered by direct branches (B/BL), which BTI
 * does not check, so it carries no landing pads and its regions are mapped
 * with PROT_BTI whenever the CPU has BTI.  The only indirect entries are
 * the runtime's own dc_aarch64_{discover,miss}_entry (aarch64.S, reached by
 * `br x16` from a region header): they start with `bti c`.  When a module's
 * text is made writable for a patch and then R-X again, PROT_BTI is kept
 * exactly when the module is BTI-marked (its PT_GNU_PROPERTY note), as the
 * kernel and ld.so mapped it: dropping it would silently unguard the
 * module, adding it would fault on its unmarked indirect targets.
 *
 * PAC.  Trampolines, stubs and thunks are tail branches: they neither
 * sign, authenticate nor change x30, so pointer authentication of return
 * addresses (-mbranch-protection=pac-ret) is unaffected.  The assembly
 * entries save x30 around a C call and restore it unchanged.
 */
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../internal.h"
#include "arch.h"

/* Instructions, with their assembly. */
#define INSN_B 0x14000000u       /* b <imm26>                         */
#define INSN_BL 0x94000000u      /* bl <imm26>                        */
#define MASK_B 0xfc000000u       /* opcode bits of b/bl               */
#define IMM26 0x03ffffffu
#define INSN_B_NEXT 0x14000001u  /* b .+4 (an unpatched trampoline)   */
#define INSN_NOP 0xd503201fu     /* nop                               */
#define INSN_MOV_X16_X18 0xaa1203f0u /* mov x16, x18 (orr x16, xzr, x18) */
#define INSN_BR_X16 0xd61f0200u  /* br x16                            */
#define INSN_CMP_X16_X18 0xeb12021fu /* cmp x16, x18 (subs xzr, x16, x18) */
#define INSN_LDR_LIT 0x58000000u /* ldr x<t>, <imm19>  (64-bit literal) */
#define INSN_ADR 0x10000000u     /* adr x<d>, <imm21>                 */
#define INSN_BNE 0x54000001u     /* b.ne <imm19>                      */
#define INSN_UDF 0x00000000u     /* udf #0                            */
#define INSN_BTI_C 0xd503245fu   /* bti c                             */
#define INSN_CBZ_X18_12 0xb4000072u /* cbz x18, .+12 (a cond trampoline) */
#define INSN_CBNZ_X18_8 0xb5000052u /* cbnz x18, .+8 (a cond guard stub) */
#define INSN_RET 0xd65f03c0u     /* ret                               */
#define INSN_BTI_JC 0xd50324dfu  /* bti jc                            */
#define INSN_PACIASP 0xd503233fu /* paciasp (an implicit bti c)       */
#define INSN_PACIBSP 0xd503237fu /* pacibsp (an implicit bti c)       */
#define REG_X16 16
#define REG_X17 17

/* Region header layout (offsets from the region base). */
#define HDR_DISC 0         /* ldr x16, lit_disc;   br x16         */
#define HDR_MISS 16        /* ldr x16, lit_miss; br x16           */
#define HDR_LIT_DISC 32    /* .quad dc_aarch64_discover_entry     */
#define HDR_LIT_MISS 40    /* .quad dc_aarch64_miss_entry         */

/* Far stub layout: code first, literals at STUB_LIT. */
#define STUB_LIT 40      /* .quad target                          */

/* Guard stub: 4 insns per target, the miss path 2, then the literals;
 * a conditional site's stub has its null test (2 insns) before the miss. */
#define GUARD_PER_TARGET 16
#define GUARD_MISS 8
#define GUARD_NULL_TEST 8

/* Discovery thunk layout. */
#define THUNK_LIT 8      /* .quad site                            */

#ifndef PROT_BTI
#define PROT_BTI 0x10
#endif
#ifndef HWCAP2_BTI
#define HWCAP2_BTI (1UL << 17)
#endif
#ifndef GNU_PROPERTY_AARCH64_FEATURE_1_AND
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000u
#define GNU_PROPERTY_AARCH64_FEATURE_1_BTI 1u
#endif
#ifndef PT_GNU_PROPERTY
#define PT_GNU_PROPERTY 0x6474e553
#endif
#ifndef NT_GNU_PROPERTY_TYPE_0
#define NT_GNU_PROPERTY_TYPE_0 5
#endif

/* In aarch64.S. */
void dc_aarch64_discover_entry(void) DC_HIDDEN;
void dc_aarch64_miss_entry(void) DC_HIDDEN;

static uint32_t insn_at(uintptr_t at)
{
	return __atomic_load_n((const uint32_t *)at, __ATOMIC_RELAXED);
}

static int64_t sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* b/bl from `at` to `dest`: the imm26 field reaches +-128 MiB. */
static bool fits26(uintptr_t at, uintptr_t dest)
{
	int64_t d = (int64_t)(dest - at);

	return !(d & 3) && d >= -(1L << 27) && d < (1L << 27);
}

static uint32_t enc_b(uint32_t opc, uintptr_t at, uintptr_t dest)
{
	return opc | ((uint32_t)((int64_t)(dest - at) >> 2) & IMM26);
}

static uint32_t enc_imm19(uint32_t opc, uintptr_t at, uintptr_t dest)
{
	return opc | (((uint32_t)((int64_t)(dest - at) >> 2) & 0x7ffff) << 5);
}

static uint32_t enc_adr(unsigned rd, uintptr_t at, uintptr_t dest)
{
	uint32_t off = (uint32_t)(int64_t)(dest - at);

	return INSN_ADR | ((off & 3) << 29) | (((off >> 2) & 0x7ffff) << 5) |
	       rd;
}

bool arch_branch_reaches(uintptr_t at, uintptr_t dest)
{
	return fits26(at, dest);
}

/* The opcode of a branch of this kind (a conditional site's call is a bl,
 * or its NOP). */
static uint32_t branch_opc(enum arch_op op)
{
	return op == ARCH_OP_JMP ? INSN_B : INSN_BL;
}

bool arch_branch_read(uintptr_t at, enum arch_op op, uintptr_t *dest)
{
	uint32_t i = insn_at(at);

	if (op == ARCH_OP_COND && i == INSN_NOP) {
		*dest = 0;
		return true;
	}
	if ((i & MASK_B) != branch_opc(op))
		return false;
	*dest = at + (sext(i & IMM26, 26) << 2);
	return true;
}

/*
 * Retarget the b/bl at `at` (a trampoline's patchable branch, or a site).
 *
 *   before:  000101 <imm26 to cur>      b cur        (bl: 100101 ...)
 *   after:   000101 <imm26 to want>     b want
 *
 * Writes, in order:
 *   1. one aligned 32-bit store of the new instruction (B stays B, BL
 *      stays BL: the Arm concurrent-modification rule allows it);
 *   2. DC CVAU; DSB ISH; IC IVAU; DSB ISH; ISB on its line (do_step);
 *      -- sync cores: membarrier SYNC_CORE, once per batch (generic) --
 * A destination out of imm26 reach is refused (DYNCALL_ERR_RANGE): the
 * generic code routes such targets through a far stub.
 *
 * A conditional site's call (ARCH_OP_COND) turns between the call and its
 * NOP (destination 0) the same way: NOP and BL are both in the Arm ARM's
 * set, so one aligned store, the flush, and the batch's membarrier:
 *
 *   set:     100101 <imm26>             bl tramp|target|stub
 *   unset:   d503201f                   nop
 */
int arch_branch_plan(uintptr_t at, enum arch_op op, uintptr_t cur,
		     uintptr_t want, struct arch_step steps[ARCH_MAX_STEPS])
{
	uint32_t insn;

	(void)cur;
	if (at & 3)
		return DYNCALL_ERR_ALIGN;
	if (op == ARCH_OP_COND && !want) {
		insn = INSN_NOP;
	} else {
		if (!fits26(at, want))
			return DYNCALL_ERR_RANGE;
		insn = enc_b(branch_opc(op), at, want);
	}
	if (insn == insn_at(at))
		return 0;
	steps[0] = (struct arch_step){ .addr = at, .len = 4, .atomic = true };
	memcpy(steps[0].bytes, &insn, 4);
	return 1;
}

/*
 * An unpatched trampoline (abi.h):
 *   tramp:  14000001   b slow
 *   slow:   aa1203f0   mov x16, x18
 *           d61f0200   br x16
 * or, for a conditional site, the null test first:
 *   slow:   b4000072   cbz x18, 1f
 *           aa1203f0   mov x16, x18
 *           d61f0200   br x16
 *   1:      d65f03c0   ret
 */
bool arch_tramp_returns_on_null(uintptr_t slow)
{
	return !(slow & 3) && insn_at(slow) == INSN_CBZ_X18_12 &&
	       insn_at(slow + 4) == INSN_MOV_X16_X18 &&
	       insn_at(slow + 8) == INSN_BR_X16 && insn_at(slow + 12) == INSN_RET;
}

uintptr_t arch_tramp_slow(uintptr_t tramp, bool *retpoline)
{
	uintptr_t s = tramp + 4;

	*retpoline = false;
	if (tramp & 3 || insn_at(tramp) != INSN_B_NEXT)
		return 0;
	if (arch_tramp_returns_on_null(s))
		return s;
	if (insn_at(s) != INSN_MOV_X16_X18 || insn_at(s + 4) != INSN_BR_X16)
		return 0;
	return s;
}

/* Discovery's proof: the instruction before the return address is
 * `bl tramp`.  Trampolines are hidden and only ever reached by direct
 * branches, so that bl is the call that just ran. */
bool arch_call_before(const struct dc_module *m, uintptr_t ret,
		      uintptr_t tramp)
{
	uintptr_t dest;

	(void)m; /* the call's bytes: checked by the caller */
	return !(ret & 3) &&
	       arch_branch_read(ret - ARCH_CALL_LEN, ARCH_OP_CALL, &dest) &&
	       dest == tramp;
}

#define EMIT32_FILL INSN_UDF
#include "emit32.h"

/*
 * Shared entries of a region, reached by `b` from its stubs and thunks:
 *   +0   disc:    ldr x16, lit_disc   ; br x16     (x17 = site)
 *   +16  miss:    ldr x16, lit_miss   ; br x16     (x17 = &site literal)
 *   +32  lit_disc:    .quad dc_aarch64_discover_entry
 *   +40  lit_miss:    .quad dc_aarch64_miss_entry
 * The entries are in libdyncall's text (any distance away); they start
 * with `bti c`, which accepts `br x16`.
 */
size_t arch_emit_region_header(uint8_t *buf, uintptr_t at)
{
	struct emit e = { buf, at, 0 };

	pad_to(&e, HDR_DISC);
	put32(&e, enc_imm19(INSN_LDR_LIT | REG_X16, pc(&e), at + HDR_LIT_DISC));
	put32(&e, INSN_BR_X16);
	pad_to(&e, HDR_MISS);
	put32(&e, enc_imm19(INSN_LDR_LIT | REG_X16, pc(&e),
			    at + HDR_LIT_MISS));
	put32(&e, INSN_BR_X16);
	pad_to(&e, HDR_LIT_DISC);
	put64(&e, (uintptr_t)dc_aarch64_discover_entry);
	put64(&e, (uintptr_t)dc_aarch64_miss_entry);
	pad_to(&e, ARCH_REGION_HEADER);
	return e.n;
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
 * Guard stub for targets T1..Tn, hottest first (immutable once published),
 * entered by a direct branch from a trampoline or a site, x18 = the loaded
 * pointer:
 *     58xxxxx0   ldr x16, lit1          x16 = T1
 *     eb12021f   cmp x16, x18
 *     54xxxxx1   b.ne 1f
 *     14xxxxxx   b T1                   (br x16 when T1 is out of reach)
 *  1: ...                               the same for T2..Tn
 *     b5000052   cbnz x18, 2f           (conditional site only: a NULL
 *     d65f03c0   ret                     pointer returns, as its
 *  2:                                    trampoline would)
 *   miss:
 *     aa1203f0   mov x16, x18           ARCH_MISS_SLOW: the unpatched
 *     d61f0200   br x16                 slow path
 *   or ARCH_MISS_ENTRY:
 *     10xxxxx1   adr x17, lit_site
 *     14xxxxxx   b miss                 (region header)
 *   lit1: .quad T1 ... litn: .quad Tn ; lit_site: .quad site
 * Each compare and its jump use the same literal: a thread that matched Ti
 * jumps to the Ti it checked.
 */
size_t arch_emit_guard(uint8_t *buf, uintptr_t at, uintptr_t region,
		       const struct arch_guard *g)
{
	struct emit e = { buf, at, 0 };
	uintptr_t lit = at + guard_lit(g->ntargets, g->cond);

	for (unsigned i = 0; i < g->ntargets; i++) {
		uint32_t bne;

		put32(&e, enc_imm19(INSN_LDR_LIT | REG_X16, pc(&e),
				    lit + 8 * i));
		put32(&e, INSN_CMP_X16_X18);
		bne = enc_imm19(INSN_BNE, pc(&e), pc(&e) + 8);
		put32(&e, bne);
		if (fits26(pc(&e), g->targets[i]))
			put32(&e, enc_b(INSN_B, pc(&e), g->targets[i]));
		else
			put32(&e, INSN_BR_X16);
	}
	if (g->cond) {
		put32(&e, INSN_CBNZ_X18_8);
		put32(&e, INSN_RET);
	}
	if (g->miss == ARCH_MISS_ENTRY) {
		put32(&e, enc_adr(REG_X17, pc(&e), lit + 8 * g->ntargets));
		put32(&e, enc_b(INSN_B, pc(&e), region + HDR_MISS));
	} else {
		put32(&e, INSN_MOV_X16_X18);
		put32(&e, INSN_BR_X16);
	}
	pad_to(&e, guard_lit(g->ntargets, g->cond));
	for (unsigned i = 0; i < g->ntargets; i++)
		put64(&e, g->targets[i]);
	put64(&e, g->site);
	pad_to(&e, arch_guard_size(g->ntargets, g->cond));
	return e.n;
}

/*
 * What `blr` accepts under BTI (a BR from x16/x17 is accepted by the same
 * pads): bti c, bti jc, and paciasp / pacibsp, which are implicit `bti c`
 * landing pads.
 */
bool arch_is_landing_pad(uint32_t word, unsigned site_flags)
{
	return !(site_flags & DYNCALL_SITE_BTI) || word == INSN_BTI_C ||
	       word == INSN_BTI_JC || word == INSN_PACIASP ||
	       word == INSN_PACIBSP;
}

/*
 * Far stub for a direct point whose target is beyond +-128 MiB:
 *     58000150   ldr x16, lit
 *     d61f0200   br x16                 (bti c at T accepts br x16)
 *   lit: .quad T
 */
size_t arch_emit_far(uint8_t *buf, uintptr_t at, uintptr_t region,
		     uintptr_t target, unsigned flavor)
{
	struct emit e = { buf, at, 0 };

	(void)region;
	(void)flavor;
	put32(&e, enc_imm19(INSN_LDR_LIT | REG_X16, pc(&e), at + STUB_LIT));
	put32(&e, INSN_BR_X16);
	pad_to(&e, STUB_LIT);
	put64(&e, target);
	put64(&e, 0);
	pad_to(&e, ARCH_FAR_SIZE);
	return e.n;
}

/*
 * Discovery thunk of one site (the trampoline's branch points here until
 * the site's call instruction is known); x30 is still the return address
 * of the site's `bl tramp`:
 *     58000051   ldr x17, lit           x17 = site
 *     14xxxxxx   b disc                 (region header)
 *   lit: .quad site
 */
size_t arch_emit_disc_thunk(uint8_t *buf, uintptr_t at, uintptr_t region,
			    uintptr_t site, unsigned flavor)
{
	struct emit e = { buf, at, 0 };

	(void)flavor;
	put32(&e, enc_imm19(INSN_LDR_LIT | REG_X17, pc(&e), at + THUNK_LIT));
	put32(&e, enc_b(INSN_B, pc(&e), region + HDR_DISC));
	put64(&e, site);
	return e.n;
}

/*
 * DC CVAU (clean to the point of unification) every data line of the
 * range, DSB ISH, IC IVAU every instruction line, DSB ISH, ISB.  CTR_EL0
 * gives the line sizes; IDC/DIC say when a step is not needed.
 */
void arch_flush_icache(uintptr_t addr, size_t len)
{
	uint64_t ctr;
	uintptr_t end = addr + len, dline, iline, p;

	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	dline = (uintptr_t)4 << ((ctr >> 16) & 15);
	iline = (uintptr_t)4 << (ctr & 15);
	if (!(ctr & (1UL << 28))) /* IDC: no clean needed for coherence */
		for (p = addr & ~(dline - 1); p < end; p += dline)
			__asm__ volatile("dc cvau, %0" ::"r"(p) : "memory");
	__asm__ volatile("dsb ish" ::: "memory");
	if (!(ctr & (1UL << 29))) { /* DIC: no invalidation needed */
		for (p = addr & ~(iline - 1); p < end; p += iline)
			__asm__ volatile("ic ivau, %0" ::"r"(p) : "memory");
		__asm__ volatile("dsb ish" ::: "memory");
	}
	__asm__ volatile("isb" ::: "memory");
}

/*
 * Page protections with BTI.  Is the object containing `addr` BTI-marked?
 * Answers are cached by executable range (registration, which runs in the
 * module's constructor, fills the cache before any patch of the module;
 * only then may dl_iterate_phdr run, never from a signal handler in
 * practice).  The runtime's own regions always get PROT_BTI.
 */
struct bti_range {
	uintptr_t lo, hi;
	bool bti;
};
#define BTI_CACHE 64
static struct bti_range bti_cache[BTI_CACHE];
static unsigned bti_next;

struct bti_query {
	uintptr_t addr;
	struct bti_range r;
	bool found;
};

static bool note_has_bti(const ElfW(Phdr) *ph, uintptr_t base)
{
	const uint8_t *p = (const uint8_t *)(base + ph->p_vaddr);
	const uint8_t *end = p + ph->p_memsz;

	while (p + 12 <= end) {
		const uint32_t *n = (const uint32_t *)p;
		uint32_t namesz = n[0], descsz = n[1], type = n[2];
		const uint8_t *desc = p + 12 + ((namesz + 7) & ~7u);

		if (type == NT_GNU_PROPERTY_TYPE_0 && namesz == 4 &&
		    !memcmp(p + 12, "GNU", 4)) {
			const uint8_t *q = desc, *qe = desc + descsz;

			while (q + 8 <= qe) {
				uint32_t pt = ((const uint32_t *)q)[0];
				uint32_t psz = ((const uint32_t *)q)[1];

				if (pt == GNU_PROPERTY_AARCH64_FEATURE_1_AND &&
				    psz >= 4)
					return ((const uint32_t *)q)[2] &
					       GNU_PROPERTY_AARCH64_FEATURE_1_BTI;
				q += 8 + ((psz + 7) & ~7u);
			}
		}
		p = desc + ((descsz + 7) & ~7u);
	}
	return false;
}

static int bti_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct bti_query *q = data;
	bool bti = false;

	(void)size;
	/* Page-rounded: mprotect spans start at page boundaries, segments
	 * need not (lld). */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t pm = (uintptr_t)getpagesize() - 1;
		uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~pm;
		uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz +
				pm) & ~pm;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    q->addr >= lo && q->addr < hi) {
			q->r.lo = lo;
			q->r.hi = hi;
			q->found = true;
		}
	}
	if (!q->found)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_PROPERTY)
			bti = note_has_bti(&info->dlpi_phdr[i], info->dlpi_addr);
	q->r.bti = bti;
	return 1;
}

int aarch64_prot(uintptr_t addr, int prot)
{
	static int hw = -1;
	struct bti_query q = { .addr = addr };

	if (!(prot & PROT_EXEC))
		return prot;
	if (hw < 0)
		hw = (getauxval(AT_HWCAP2) & HWCAP2_BTI) != 0;
	if (!hw)
		return prot;
	if (dc_is_stub(addr))
		return prot | PROT_BTI;
	for (unsigned i = 0; i < BTI_CACHE; i++)
		if (addr >= bti_cache[i].lo && addr < bti_cache[i].hi)
			return bti_cache[i].bti ? prot | PROT_BTI : prot;
	dl_iterate_phdr(bti_cb, &q);
	if (!q.found)
		return prot | PROT_BTI; /* a region of ours being made */
	bti_cache[bti_next++ % BTI_CACHE] = q.r;
	return q.r.bti ? prot | PROT_BTI : prot;
}

/* Function-entry patching: aarch64_prologue.c. */

/*
 * A caller site from a relocation the linker kept (arch.h
 * arch_caller_reloc; docs/prologues.md "Redirects at the call sites"):
 * R_AARCH64_CALL26 and _JUMP26 are the imm26 of a `bl` or `b` and
 * nothing else; the word must still be one (the caller then checks that
 * it branches to exactly S + A: a veneer or a range thunk the linker put
 * between does not).  Rewritten like a site: one aligned 32-bit store of
 * a b/bl with another imm26 (arch_branch_plan; B stays B, BL stays BL).
 */
#define R_AARCH64_JUMP26_ 282
#define R_AARCH64_CALL26_ 283
bool arch_caller_reloc(uint32_t type, uintptr_t field, uintptr_t *site,
		       enum arch_op *op, int64_t *bias)
{
	uint32_t i;

	if ((type != R_AARCH64_CALL26_ && type != R_AARCH64_JUMP26_) ||
	    (field & 3))
		return false;
	i = insn_at(field) & MASK_B;
	if (i != INSN_BL && i != INSN_B)
		return false;
	*site = field;
	*op = i == INSN_BL ? ARCH_OP_CALL : ARCH_OP_JMP;
	*bias = 0;
	return true;
}
