/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * ppc64le (ELFv2) implementation of the arch contract (arch.h): b/bl
 * branches written with one aligned 32-bit store, cache maintenance, and
 * the instructions of generated stubs.
 *
 * Why one store is enough.  Power ISA (Book II, 1.6 "Instruction
 * storage"; the "concurrent modification" rule that Linux's patch_
 * instruction and HotSpot rely on) lets software replace one of b, bl,
 * nop, trap with another by a single aligned word store while other
 * threads execute it: they fetch the old or the new word.  The writer does
 *     dcbst; sync; icbi; sync; isync              (arch_flush_icache)
 * on the written block, then, once per batch, the generic code's
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) makes every other
 * thread execute a context-synchronizing event.  Prefixed instructions
 * (Power10, 8 bytes, opcode 1 prefix) are never written: every patch point
 * is verified to be a b/bl that is not the suffix of a prefix.
 *
 * The TOC (r2).  The pass declares each trampoline with `.localentry
 * tramp, 1` ("does not preserve r2") and calls it as a non-local function,
 * so the compiler emits `bl tramp; nop` and both GNU ld and lld turn that
 * into
 *     bl  <TOC-save stub>        std r2, 24(r1) ; b tramp
 *     ld  r2, 24(r1)
 * An ordinary site is never patched (patching its `bl` would skip the
 * std while keeping the ld): only the trampoline's branch is, and there is
 * nothing to discover.  A conditional site's `bl` turns into `b .+8`
 * while its key is NULL (cond_read below); a Clang one (not labelled) is
 * found by run-time discovery (arch_call_before, the discovery thunk and
 * dc_ppc64le_discover_entry).  At the trampoline r2 is still
 * the caller's TOC, r11 the loaded pointer (static chain), r12 and ctr
 * are free, and the caller restores r2 after the call, so:
 *   - `b T_local` (direct) is used only when T is in the same module as
 *     the trampoline (one TOC per module: lld never splits it; GNU ld's
 *     multi-TOC needs a GOT > 64 KiB entries, whose cross-TOC calls go
 *     through its own stubs) and within +-32 MiB, entering T's local
 *     entry (past its `addis r2,r12,..; addi r2,r2,..` global-entry
 *     prologue, or one of ppc64le_gep.h's other two forms); a T without
 *     such a prologue goes through a far stub;
 *   - everything else (guard stubs, far stubs, the slow path) enters T at
 *     its global entry with r12 = T, through ctr, which is correct for
 *     any T in any module: T sets up its own r2 and the site's
 *     `ld r2, 24(r1)` restores the caller's.
 */
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "../internal.h"
#include "arch.h"
#include "ppc64le_gep.h"

/* Instructions, with their assembly. */
#define INSN_B 0x48000000u          /* b <li24>                        */
#define INSN_BL 0x48000001u         /* bl <li24>                       */
#define MASK_B 0xfc000003u          /* opcode, AA, LK                  */
#define LI24 0x03fffffcu
#define INSN_B_NEXT 0x48000004u     /* b .+4 (an unpatched trampoline) */
#define INSN_MTCTR_R11 0x7d6903a6u  /* mtctr r11                       */
#define INSN_MR_R12_R11 0x7d6c5b78u /* mr r12, r11                     */
#define INSN_BCTR 0x4e800420u       /* bctr                            */
#define INSN_MTCTR_R12 0x7d8903a6u  /* mtctr r12                       */
#define INSN_MR_R0_R12 0x7d806378u  /* mr r0, r12                      */
#define INSN_LIS_R12 0x3d800000u    /* lis r12, <imm16>                */
#define INSN_ORI_R12 0x618c0000u    /* ori r12, r12, <imm16>           */
#define INSN_ORIS_R12 0x658c0000u   /* oris r12, r12, <imm16>          */
#define INSN_SLDI_R12_32 0x798c07c6u /* sldi r12, r12, 32              */
#define INSN_CMPD_R11_R12 0x7c2b6000u /* cmpd r11, r12                 */
#define INSN_BNE 0x40820000u        /* bne cr0, <bd14>                 */
#define INSN_TRAP 0x7fe00008u       /* trap                            */
#define INSN_STD_R2 0xf8410018u     /* std r2, 24(r1) (TOC-save stub)  */
#define INSN_LD_R2 0xe8410018u      /* ld r2, 24(r1) (after the bl)    */
#define INSN_B_8 0x48000008u        /* b .+8 (a cond site, unset)      */
#define INSN_CMPDI_R11_0 0x2c2b0000u /* cmpdi r11, 0                   */
#define INSN_BEQLR 0x4d820020u      /* beqlr                           */
#define OPCD_PREFIX 1               /* primary opcode of a prefix word */

/* Region header layout (offsets from the region base). */
#define HDR_MISS 0  /* mr r0,r12; r12 = miss_entry; mtctr r12; bctr */
#define HDR_DISC 32 /* mr r0,r12; r12 = discover_entry; mtctr r12; bctr */

/* Far stub layout: code first, literals at STUB_LIT. */
#define STUB_LIT 72      /* .quad target                          */

/* Guard stub: per target li64 (5) + cmpd + bne + mtctr + bctr = 9 insns,
 * the miss path at most li64 + b = 6 insns, then the site literal; a
 * conditional site's stub has `cmpdi r11, 0; beqlr` before its miss. */
#define GUARD_PER_TARGET 36
#define GUARD_MISS 24
#define GUARD_NULL_TEST 8

/* In ppc64le.S. */
void dc_ppc64le_miss_entry(void) DC_HIDDEN;
void dc_ppc64le_discover_entry(void) DC_HIDDEN;

static uint32_t insn_at(uintptr_t at)
{
	return __atomic_load_n((const uint32_t *)at, __ATOMIC_RELAXED);
}

static int64_t sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static bool fits24(uintptr_t at, uintptr_t dest)
{
	int64_t d = (int64_t)(dest - at);

	return !(d & 3) && d >= -(1L << 25) && d < (1L << 25);
}

static uint32_t enc_b(uint32_t opc, uintptr_t at, uintptr_t dest)
{
	return opc | ((uint32_t)(int64_t)(dest - at) & LI24);
}

/* A global-entry prologue at f (`addis r2,r12,hi; addi r2,r2,lo`, or
 * ppc64le_gep.h's other two forms), its local entry at f+8? */
static bool has_toc_prologue(uintptr_t f)
{
	return !(f & 3) && ppc64le_gep_toc(f) != 0;
}

/*
 * Which object holds an address: executable ranges cached by object (the
 * first registration of a module fills its entry, from its constructor).
 */
struct obj_range {
	uintptr_t lo, hi, obj;
};
#define OBJ_CACHE 64
static struct obj_range obj_cache[OBJ_CACHE];
static unsigned obj_next;

struct obj_query {
	uintptr_t addr;
	struct obj_range r;
	bool found;
};

static int obj_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj_query *q = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    q->addr >= lo && q->addr < lo + ph->p_memsz) {
			q->r = (struct obj_range){ lo, lo + ph->p_memsz,
						   (uintptr_t)info->dlpi_phdr };
			q->found = true;
			return 1;
		}
	}
	return 0;
}

static uintptr_t object_of(uintptr_t addr)
{
	struct obj_query q = { .addr = addr };

	for (unsigned i = 0; i < OBJ_CACHE; i++)
		if (addr >= obj_cache[i].lo && addr < obj_cache[i].hi)
			return obj_cache[i].obj;
	if (dc_is_stub(addr))
		return 0;
	dl_iterate_phdr(obj_cb, &q);
	if (!q.found)
		return 0;
	obj_cache[obj_next++ % OBJ_CACHE] = q.r;
	return q.r.obj;
}

/* Where a direct branch at `at` to the function `dest` lands, or 0 when it
 * may not go there directly (another module or no recognizable global
 * entry: then a far stub with r12 = dest). */
static uintptr_t local_entry(uintptr_t at, uintptr_t dest)
{
	uintptr_t o;

	if (!has_toc_prologue(dest))
		return 0;
	o = object_of(at);
	if (!o || object_of(dest) != o)
		return 0;
	return dest + 8;
}

bool arch_branch_reaches(uintptr_t at, uintptr_t dest)
{
	uintptr_t l = local_entry(at, dest);

	return l && fits24(at, l);
}

/*
 * A conditional site (ARCH_COND_CALL_VIA_TRAMP), as the linker leaves it:
 *   site:   bl stub            010010 <li24> 01
 *           ld r2, 24(r1)      e8410018
 *   stub:   std r2, 24(r1)     f8410018
 *           b tramp
 * Unset, its `bl` is `b .+8` (48000008): nothing is called and the `ld`
 * is skipped, r2 is untouched.  Set, it is the linker's `bl stub` again,
 * which is the one word the runtime cannot compute from the trampoline:
 * each site's stub is remembered when the site is first read (under the
 * runtime lock, which every read and plan of a site holds).
 */
struct cond_stub {
	uintptr_t site, stub;
};
static struct cond_stub *cond_stubs; /* open addressing, by site */
static size_t cond_cap, cond_n;

static struct cond_stub *cond_slot(struct cond_stub *t, size_t cap,
				   uintptr_t site)
{
	size_t i = (site >> 2) * 0x9e3779b97f4a7c15ull >> 20;

	for (;; i++) {
		struct cond_stub *c = &t[i & (cap - 1)];

		if (!c->site || c->site == site)
			return c;
	}
}

static void cond_remember(uintptr_t site, uintptr_t stub)
{
	if (2 * (cond_n + 1) > cond_cap) {
		size_t ncap = cond_cap ? 2 * cond_cap : 256;
		struct cond_stub *nt = dc_alloc(ncap * sizeof(*nt));

		if (!nt)
			return; /* the site stays set: correct, never a NOP */
		for (size_t i = 0; i < cond_cap; i++)
			if (cond_stubs[i].site)
				*cond_slot(nt, ncap, cond_stubs[i].site) =
					cond_stubs[i];
		if (cond_stubs)
			dc_free(cond_stubs, cond_cap * sizeof(*nt));
		cond_stubs = nt;
		cond_cap = ncap;
	}
	struct cond_stub *c = cond_slot(cond_stubs, cond_cap, site);

	if (!c->site)
		cond_n++;
	*c = (struct cond_stub){ site, stub };
}

static uintptr_t cond_stub_of(uintptr_t site)
{
	struct cond_stub *c;

	if (!cond_cap)
		return 0;
	c = cond_slot(cond_stubs, cond_cap, site);
	return c->site ? c->stub : 0;
}

/* The trampoline the TOC-save stub at `stub` branches to, or 0. */
static uintptr_t stub_target(uintptr_t stub)
{
	uint32_t b;

	if (stub & 3 || insn_at(stub) != INSN_STD_R2)
		return 0;
	b = insn_at(stub + 4);
	if ((b & MASK_B) != INSN_B)
		return 0;
	return stub + 4 + sext(b & LI24, 26);
}

static bool cond_read(uintptr_t at, uintptr_t *dest)
{
	uint32_t i = insn_at(at);
	uintptr_t stub, t;

	if (at & 3 || insn_at(at + 4) != INSN_LD_R2)
		return false;
	if (i == INSN_B_8) {
		*dest = 0;
		return true;
	}
	if ((i & MASK_B) != INSN_BL)
		return false;
	stub = at + sext(i & LI24, 26);
	t = stub_target(stub);
	if (!t)
		return false;
	cond_remember(at, stub);
	*dest = t;
	return true;
}

/* A branch landing right after a global-entry prologue means "call the
 * function": report the function (the generic code's destination). */
bool arch_branch_read(uintptr_t at, enum arch_op op, uintptr_t *dest)
{
	uint32_t i = insn_at(at);
	uintptr_t d;

	if (op == ARCH_OP_COND)
		return cond_read(at, dest);
	if ((i & MASK_B) != (op == ARCH_OP_CALL ? INSN_BL : INSN_B))
		return false;
	d = at + sext(i & LI24, 26);
	if (d >= 8 && has_toc_prologue(d - 8))
		d -= 8;
	*dest = d;
	return true;
}

/* Is the word at `at` the suffix of a prefixed instruction?  A prefixed
 * instruction never crosses a 64-byte boundary. */
static bool is_suffix(uintptr_t at)
{
	return (at & 63) && (insn_at(at - 4) >> 26) == OPCD_PREFIX;
}

/*
 * Retarget the trampoline's `b` at `at`.
 *
 *   before:  010010 <li24 to cur> 00      b cur
 *   after:   010010 <li24 to want> 00     b want   (want + 8: local entry
 *                                                  of a same-module T)
 * Writes, in order:
 *   1. one aligned 32-bit store of the new word (b stays b);
 *   2. dcbst; sync; icbi; sync; isync on its block (do_step);
 *      -- sync cores: membarrier SYNC_CORE, once per batch (generic) --
 * Refused: a word that is the suffix of a prefixed instruction
 * (DYNCALL_ERR_BYTES), a destination out of reach (DYNCALL_ERR_RANGE).
 *
 * A conditional site's `bl` (cond_read) turns between the linker's
 * `bl stub` (want: its trampoline) and `b .+8` (want 0) the same way: b
 * and bl are both in the concurrent-modification set, so one aligned word
 * store, the flush and the batch's membarrier.  A thread runs the old or
 * the new word; the `ld r2, 24(r1)` after it never changes.
 */
static int cond_plan(uintptr_t at, uintptr_t want, uint32_t *insn)
{
	uintptr_t stub = cond_stub_of(at);

	/* (no stub remembered, out of memory: no NOP either, which the site
	 * could not come back from) */
	if (!stub)
		return DYNCALL_ERR_NOMEM;
	if (!want) {
		*insn = INSN_B_8;
		return 0;
	}
	if (stub_target(stub) != want)
		return DYNCALL_ERR_BYTES; /* never a direct call: see above */
	*insn = enc_b(INSN_BL, at, stub);
	return 0;
}

int arch_branch_plan(uintptr_t at, enum arch_op op, uintptr_t cur,
		     uintptr_t want, struct arch_step steps[ARCH_MAX_STEPS])
{
	uint32_t opc = op == ARCH_OP_CALL ? INSN_BL : INSN_B;
	uintptr_t l;
	uint32_t insn;

	(void)cur;
	if (at & 3)
		return DYNCALL_ERR_ALIGN;
	if (is_suffix(at))
		return DYNCALL_ERR_BYTES;
	if (op == ARCH_OP_COND) {
		int r = cond_plan(at, want, &insn);

		if (r)
			return r;
		goto write;
	}
	l = local_entry(at, want);
	if (l)
		want = l;
	if (!fits24(at, want))
		return DYNCALL_ERR_RANGE;
	insn = enc_b(opc, at, want);
write:
	if (insn == insn_at(at))
		return 0;
	steps[0] = (struct arch_step){ .addr = at, .len = 4, .atomic = true };
	memcpy(steps[0].bytes, &insn, 4);
	return 1;
}

/*
 * An unpatched trampoline (abi.h):
 *   tramp:  48000004   b slow
 *   slow:   7d6903a6   mtctr r11
 *           7d6c5b78   mr r12, r11      (the global entry wants r12)
 *           4e800420   bctr
 * or, for a conditional site, the null test first (beqlr returns to the
 * site's `ld r2, 24(r1)`: the stub saved r2, nothing changed it):
 *   slow:   2c2b0000   cmpdi r11, 0
 *           4d820020   beqlr
 *           7d6903a6   mtctr r11 ...
 */
static bool plain_slow(uintptr_t s)
{
	return insn_at(s) == INSN_MTCTR_R11 && insn_at(s + 4) == INSN_MR_R12_R11 &&
	       insn_at(s + 8) == INSN_BCTR;
}

bool arch_tramp_returns_on_null(uintptr_t slow)
{
	return !(slow & 3) && insn_at(slow) == INSN_CMPDI_R11_0 &&
	       insn_at(slow + 4) == INSN_BEQLR && plain_slow(slow + 8);
}

uintptr_t arch_tramp_slow(uintptr_t tramp, bool *retpoline)
{
	*retpoline = false;
	if (tramp & 3 || is_suffix(tramp) || insn_at(tramp) != INSN_B_NEXT)
		return 0;
	if (!plain_slow(tramp + 4) && !arch_tramp_returns_on_null(tramp + 4))
		return 0;
	return tramp + 4;
}

/*
 * Discovery of a conditional site (ARCH_DISCOVER_COND_ONLY): the call
 * that returns to `ret` is a conditional site's call of `tramp` when
 *   ret - 4:  bl stub            (the word that ran: it returns to ret)
 *   ret:      ld r2, 24(r1)
 *   stub:     std r2, 24(r1) ; b tramp      (the linker's TOC-save stub)
 * every word read in the module's executable segment first.
 */
bool arch_call_before(const struct dc_module *m, uintptr_t ret,
		      uintptr_t tramp)
{
	uint32_t i;
	uintptr_t stub;

	if (ret & 3 || !dc_in_exec(m, ret, ret + 4) ||
	    insn_at(ret) != INSN_LD_R2)
		return false;
	i = insn_at(ret - 4);
	if ((i & MASK_B) != INSN_BL)
		return false;
	stub = ret - 4 + sext(i & LI24, 26);
	return dc_in_exec(m, stub, stub + 8) && stub_target(stub) == tramp;
}

#define EMIT32_FILL INSN_TRAP
#include "emit32.h"

/* r12 = v: lis; ori; sldi 32; oris; ori (5 instructions, any 64-bit v) */
static void put_li64_r12(struct emit *e, uint64_t v)
{
	put32(e, INSN_LIS_R12 | (uint32_t)((v >> 48) & 0xffff));
	put32(e, INSN_ORI_R12 | (uint32_t)((v >> 32) & 0xffff));
	put32(e, INSN_SLDI_R12_32);
	put32(e, INSN_ORIS_R12 | (uint32_t)((v >> 16) & 0xffff));
	put32(e, INSN_ORI_R12 | (uint32_t)(v & 0xffff));
}

/*
 * Shared entries of a region, reached by `b` from guard stubs' miss paths
 * with r12 = &the stub's site literal, and from discovery thunks with
 * r12 = the site:
 *   +0  miss:    mr r0, r12 ; r12 = dc_ppc64le_miss_entry (5 insns) ;
 *                mtctr r12 ; bctr       (its global entry wants r12)
 *   +32 disc:    mr r0, r12 ; r12 = dc_ppc64le_discover_entry ;
 *                mtctr r12 ; bctr
 */
size_t arch_emit_region_header(uint8_t *buf, uintptr_t at)
{
	struct emit e = { buf, at, 0 };

	pad_to(&e, HDR_MISS);
	put32(&e, INSN_MR_R0_R12);
	put_li64_r12(&e, (uintptr_t)dc_ppc64le_miss_entry);
	put32(&e, INSN_MTCTR_R12);
	put32(&e, INSN_BCTR);
	pad_to(&e, HDR_DISC);
	put32(&e, INSN_MR_R0_R12);
	put_li64_r12(&e, (uintptr_t)dc_ppc64le_discover_entry);
	put32(&e, INSN_MTCTR_R12);
	put32(&e, INSN_BCTR);
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
	return (guard_lit(n, cond) + 8 + 15) & ~(size_t)15;
}

/*
 * Guard stub for targets T1..Tn, hottest first (immutable once published),
 * entered by `b` from a trampoline, r11 = the loaded pointer, r2 = the
 * caller's TOC:
 *     3d80xxxx   lis r12, T1@highest
 *     618cxxxx   ori r12, r12, T1@higher
 *     798c07c6   sldi r12, r12, 32
 *     658cxxxx   oris r12, r12, T1@h
 *     618cxxxx   ori r12, r12, T1@l
 *     7c2b6000   cmpd r11, r12
 *     4082000c   bne 1f
 *     7d8903a6   mtctr r12            T1's global entry, r12 = T1
 *     4e800420   bctr
 *  1: ...                             the same for T2..Tn
 *     2c2b0000   cmpdi r11, 0         (conditional site only: a NULL
 *     4d820020   beqlr                 pointer returns, as its trampoline
 *                                      would)
 *   miss:
 *     7d6903a6   mtctr r11            ARCH_MISS_SLOW: the unpatched
 *     7d6c5b78   mr r12, r11          slow path
 *     4e800420   bctr
 *   or ARCH_MISS_ENTRY:
 *     r12 = &lit_site (5 insns) ; b miss    (region header)
 *   lit_site: .quad site
 * Each compare and its branch use the same register: a thread that
 * matched Ti enters Ti.
 */
size_t arch_emit_guard(uint8_t *buf, uintptr_t at, uintptr_t region,
		       const struct arch_guard *g)
{
	struct emit e = { buf, at, 0 };
	uintptr_t lit = at + guard_lit(g->ntargets, g->cond);

	for (unsigned i = 0; i < g->ntargets; i++) {
		put_li64_r12(&e, g->targets[i]);
		put32(&e, INSN_CMPD_R11_R12);
		put32(&e, INSN_BNE | 12);
		put32(&e, INSN_MTCTR_R12);
		put32(&e, INSN_BCTR);
	}
	if (g->cond) {
		put32(&e, INSN_CMPDI_R11_0);
		put32(&e, INSN_BEQLR);
	}
	if (g->miss == ARCH_MISS_ENTRY) {
		put_li64_r12(&e, lit);
		put32(&e, enc_b(INSN_B, pc(&e), region + HDR_MISS));
	} else {
		put32(&e, INSN_MTCTR_R11);
		put32(&e, INSN_MR_R12_R11);
		put32(&e, INSN_BCTR);
	}
	pad_to(&e, guard_lit(g->ntargets, g->cond));
	put64(&e, g->site);
	pad_to(&e, arch_guard_size(g->ntargets, g->cond));
	return e.n;
}

/* ppc64le has no landing pads. */
bool arch_is_landing_pad(uint32_t word, unsigned site_flags)
{
	(void)word;
	(void)site_flags;
	return true;
}

/*
 * Far stub: T in another module, out of reach, or without a recognizable
 * local entry; enters the global entry with r12 = T:
 *     r12 = T (5 insns) ; 7d8903a6 mtctr r12 ; 4e800420 bctr
 */
size_t arch_emit_far(uint8_t *buf, uintptr_t at, uintptr_t region,
		     uintptr_t target, unsigned flavor)
{
	struct emit e = { buf, at, 0 };

	(void)region;
	(void)flavor;
	put_li64_r12(&e, target);
	put32(&e, INSN_MTCTR_R12);
	put32(&e, INSN_BCTR);
	pad_to(&e, STUB_LIT);
	put64(&e, target);
	put64(&e, 0);
	pad_to(&e, ARCH_FAR_SIZE);
	return e.n;
}

/*
 * Discovery thunk of one conditional site (the trampoline's branch points
 * here until the site's call is known); lr is still the return address of
 * the site's `bl stub`, r11 the loaded pointer:
 *     r12 = site (5 insns)
 *     48xxxxxx   b disc                 (region header)
 *     7fe00008   trap                   (padding)
 */
size_t arch_emit_disc_thunk(uint8_t *buf, uintptr_t at, uintptr_t region,
			    uintptr_t site, unsigned flavor)
{
	struct emit e = { buf, at, 0 };

	(void)flavor;
	put_li64_r12(&e, site);
	put32(&e, enc_b(INSN_B, pc(&e), region + HDR_DISC));
	pad_to(&e, ARCH_THUNK_SIZE);
	return e.n;
}

/*
 * dcbst every data block of the range; sync; icbi every instruction
 * block; sync; isync.  Block sizes from the auxiliary vector (a smaller
 * step than the real block is only redundant).
 */
void arch_flush_icache(uintptr_t addr, size_t len)
{
	static uintptr_t dblock, iblock;
	uintptr_t end = addr + len, p;

	if (!dblock) {
		dblock = getauxval(AT_DCACHEBSIZE);
		iblock = getauxval(AT_ICACHEBSIZE);
		if (!dblock || dblock & (dblock - 1))
			dblock = 32;
		if (!iblock || iblock & (iblock - 1))
			iblock = 32;
	}
	for (p = addr & ~(dblock - 1); p < end; p += dblock)
		__asm__ volatile("dcbst 0, %0" ::"r"(p) : "memory");
	__asm__ volatile("sync" ::: "memory");
	for (p = addr & ~(iblock - 1); p < end; p += iblock)
		__asm__ volatile("icbi 0, %0" ::"r"(p) : "memory");
	__asm__ volatile("sync" ::: "memory");
	__asm__ volatile("isync" ::: "memory");
}


/* Function-entry patching: ppc64le_prologue.c. */

/*
 * A caller site from a relocation the linker kept (arch.h
 * arch_caller_reloc; docs/prologues.md "Redirects at the call sites",
 * ppc64le).  R_PPC64_REL24 fills the li24 of a `b` or `bl` (AA = 0) and
 * nothing else; r_offset is the instruction word.  What the linker made
 * of `bl f` (+ the `nop` the compiler put after a call it could not prove
 * local):
 *
 *   f shares the caller's TOC (same module, same TOC group):
 *     site:    010010 <li24 -> f+L> 01   bl f+L    L: f's local entry
 *              60000000 nop (or no nop)             offset (st_other)
 *   anything else (PLT call, another TOC group, out of reach):
 *     site:    010010 <li24 -> stub> 01  bl stub   (plt_call,
 *              e8410018 ld r2, 24(r1)               long_branch[_r2off])
 *
 * The caller's arch_branch_read reports a branch to f+8 right after a
 * global-entry prologue as "f" (the function), so with bias 0 it keeps
 * exactly the first form: the destination is S + A with the local entry
 * offset the prologue shows; a stub is not f and is skipped (refused:
 * nothing else is ever written there).  The word after the branch is not
 * read: it is the caller's (a `nop`, the TOC restore of another call, or
 * the next instruction of a static callee's caller), and a direct branch
 * to the local entry neither saves nor changes r2.  R_PPC64_REL24_NOTOC
 * (Power10 pc-relative callers, whose r2 is not a TOC) is not taken.
 */
#define R_PPC64_REL24_ 10
bool arch_caller_reloc(uint32_t type, uintptr_t field, uintptr_t *site,
		       enum arch_op *op, int64_t *bias)
{
	uint32_t i;

	if (type != R_PPC64_REL24_ || (field & 3) || is_suffix(field))
		return false;
	i = insn_at(field) & MASK_B;
	if (i != INSN_BL && i != INSN_B)
		return false;
	*site = field;
	*op = i == INSN_BL ? ARCH_OP_CALL : ARCH_OP_JMP;
	*bias = 0;
	return true;
}
