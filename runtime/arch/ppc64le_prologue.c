// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * ppc64le (ELFv2) function-entry patching (arch.h "Function-entry
 * patching", docs/prologues.md): Naveen N Rao's out-of-line sequence
 * (seed 001), with the slot beside the stub.  The build side is the dyncall
 * GCC plugin (-fplugin-arg-dyncall_gcc-prologues, or DYNCALL_PATCHABLE):
 * GCC 12's own -fpatchable-function-entry puts its NOPs before the global
 * entry's TOC setup, where calls from the same module skip them; the plugin
 * puts one NOP right after .localentry instead:
 *
 *   func:        3c4c....  addis r2, r12, .TOC.-func@ha   global entry,
 *                3842....  addi  r2, r2, .TOC.-func@l      if the function
 *   rec = site:  60000000  nop                             needs its TOC
 *   rec+4:       the body                                  (local entry)
 *
 * (A function that needs no TOC has only the nop at its one entry.  The
 * TOC set-up may also be `lis r2; addi r2,r2` in a non-PIC executable or
 * `ld r2,-8(r12); add r2,r2,r12` with -mcmodel=large: ppc64le_gep.h.)
 * Clang's route: the first word of its XRay entry sled, `b .+28`, takes
 * the place of the nop (arch_fentry_probe_xray, below).
 * Patched:
 *
 *   site:        48xxxxxx  b near+8
 *   near:        <slot: 8 bytes>           jump function or target
 *   near+8:      7c0802a6  mflr r0
 *                429f0005  bcl 20, 31, .+4 (not a call: the link stack
 *                7d8802a6  mflr r12         predictor ignores this form)
 *                7c0803a6  mtlr r0         the caller's return address
 *                e98cfff0  ld r12, -16(r12) the slot
 *                7d8903a6  mtctr r12
 *                4e800420  bctr            r12 = the address entered
 *
 * `near` is per function (40 bytes), in a stub region within the b's
 * +-32 MiB (arch.h ARCH_FENTRY_NEAR_SIZE; DYNCALL_ERR_RANGE when none can
 * be mapped there).  What the slot holds is entered as the function was:
 * LR is the caller's return address, r1 the caller's stack, r2 the
 * function's TOC, r12 the address entered (the ELFv2 global-entry
 * convention, so a redirect target computes its own TOC).  Calls and
 * returns stay balanced: the stub calls nothing, a redirect target returns
 * with blr straight to the caller, a jump function resumes the body with
 * bctr after its handlers.  r0, r12 and CTR are volatile at a call.
 *
 * TOC.  A caller in the function's module may have called the local entry
 * and expects r2 unchanged after the call; a redirect target that sets
 * another module's TOC would break it.  So a redirect target must be in
 * the function's module (the same TOC, read from both global entries, or
 * the same module by dladdr) or set no TOC: arch_fentry_target_ok()
 * refuses another (DYNCALL_ERR_INVAL), and a target whose symbol says it
 * does not keep r2 (st_other's local-entry field 1, ARCH_SYM_DROPS_TOC:
 * with its one entry it sets no TOC, but it may return with r2 changed).
 *
 * Protocol (prologue.c drives it, a batch of functions at a time):
 *   1. the first time a function is turned on: `near` written to fresh
 *      memory; new jump functions written to fresh memory;
 *   2. one membarrier (SYNC_CORE) if 1. wrote anything;
 *   3. slot <- jump function or target: one aligned 64-bit store (then
 *      sync: complete before the entry store below);
 *   4. site <- `b near+8` (on) or `nop` (off; Clang's sled: `b .+28`):
 *      one aligned 32-bit store,
 *      then dcbst; sync; icbi; sync; isync (arch_flush_icache).
 * The slot is never cleared: a thread that passed the site before 4.
 * reaches what the slot held, which stays valid.
 */
#include <dlfcn.h>
#include <string.h>

#include "../internal.h"
#include "arch.h"
#include "fentry32.h"
#include "ppc64le_gep.h"

/* Instructions, with their assembly. */
#define INSN_NOP 0x60000000u /* nop */
#define INSN_B 0x48000000u /* b <li24> */
#define MASK_LI 0x03fffffcu
#define INSN_MFLR_R0 0x7c0802a6u /* mflr r0 */
#define INSN_BCL_NEXT 0x429f0005u /* bcl 20, 31, .+4 */
#define INSN_MFLR_R12 0x7d8802a6u /* mflr r12 */
#define INSN_MTLR_R0 0x7c0803a6u /* mtlr r0 */
#define INSN_LD_R12_M16 0xe98cfff0u /* ld r12, -16(r12) */
#define INSN_MTCTR_R12 0x7d8903a6u /* mtctr r12 */
#define INSN_BCTR 0x4e800420u /* bctr */
#define INSN_ADDI_R0_R12_24 0x380c0018u /* addi r0, r12, 24 */
#define INSN_LD_R12_16 0xe98c0010u /* ld r12, 16(r12) */
#define INSN_LD_R2_16 0xe84c0010u /* ld r2, 16(r12) */
#define INSN_LD_R12_24 0xe98c0018u /* ld r12, 24(r12) */

/* Clang's XRay entry sled (clang -fxray-instrument, ppc64le): */
#define INSN_B_SLED 0x4800001cu /* b .+28: over the sled (its "NOPs") */
#define INSN_STD_R0_M8 0xf801fff8u /* std r0, -8(r1) */
#define INSN_BL 0x48000001u /* bl <li24> */
#define MASK_BL 0xfc000003u
#define INSN_LD_R2_24 0xe8410018u /* ld r2, 24(r1): the linker's TOC restore */
#define SLED_LEN 28

#define B_REACH (32L << 20)
#define NEAR_CODE 8 /* the stub's code after its slot */

extern const char dc_fentry_tramp[] DC_HIDDEN; /* ppc64le_prologue.S */
extern const char dc_fentry_tramp_novec[] DC_HIDDEN; /* no FPR, VR saves */
/* f1..f2, f1..f4, f1..f8, f1..f13 and no VR */
extern const char dc_fentry_tramp_f2[] DC_HIDDEN;
extern const char dc_fentry_tramp_f4[] DC_HIDDEN;
extern const char dc_fentry_tramp_f8[] DC_HIDDEN;
extern const char dc_fentry_tramp_f13[] DC_HIDDEN;
/* the same with r3..r(r+2) and not r11: dc_fentry_tramp_f<f>_r<r> */
#define TRAMPS_R(f)                                              \
	extern const char dc_fentry_tramp_f##f##_r0[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_f##f##_r1[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_f##f##_r2[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_f##f##_r4[] DC_HIDDEN; \
	extern const char dc_fentry_tramp_f##f##_r8[] DC_HIDDEN
TRAMPS_R(0);
TRAMPS_R(2);
TRAMPS_R(4);
TRAMPS_R(8);
TRAMPS_R(13);
#define ROW_R(f)                                                \
	{ dc_fentry_tramp_f##f##_r0, dc_fentry_tramp_f##f##_r1, \
	  dc_fentry_tramp_f##f##_r2, dc_fentry_tramp_f##f##_r4, \
	  dc_fentry_tramp_f##f##_r8 }

/*
 * The trampoline that saves at least f1..f(n), v2..v(n2+1) and the
 * integer argument registers (the record's counts, arch_fentry_vec): no
 * copy per count, the FPR counts rounded up to 2, 4, 8 or 13 and the
 * GPR counts to 1, 2, 4 or 8 (2 instructions per register saved and
 * restored); any VR: all of them, and all of r3-r10 and r11 (as without
 * an integer count).
 */
static const char *tramp_for(struct arch_fentry_vec vec)
{
	static const char *const by_count[5][5] = {
		ROW_R(0), ROW_R(2), ROW_R(4), ROW_R(8), ROW_R(13),
	};
	static const char *const all_ints[5] = {
		dc_fentry_tramp_novec, dc_fentry_tramp_f2,  dc_fentry_tramp_f4,
		dc_fentry_tramp_f8,    dc_fentry_tramp_f13,
	};
	unsigned f = vec.n == 0 ? 0 :
		     vec.n <= 2 ? 1 :
		     vec.n <= 4 ? 2 :
		     vec.n <= 8 ? 3 :
				  4;
	unsigned r = vec.ints == 0 ? 0 :
		     vec.ints <= 2 ? vec.ints :
		     vec.ints <= 4 ? 3 :
				     4;

	if (vec.n2)
		return dc_fentry_tramp;
	if (vec.int_known && vec.ints <= DYNCALL_PPC64LE_INT_ARG_REGS)
		return by_count[f][r];
	return all_ints[f];
}

static uint32_t word(uintptr_t a)
{
	return *(const volatile uint32_t *)a;
}

static bool b_reaches(uintptr_t at, uintptr_t to)
{
	intptr_t d = (intptr_t)(to - at);

	return d >= -B_REACH && d < B_REACH;
}

static uint32_t enc_b(uintptr_t at, uintptr_t to)
{
	return INSN_B | ((uint32_t)(to - at) & MASK_LI);
}

/* The TOC a global entry at g sets up (ppc64le_gep.h: addis/addi from
 * r12, lis/addi in a non-PIC executable, the large code model's ld/add),
 * or 0. */
static uintptr_t gep_toc(uintptr_t g)
{
	return ppc64le_gep_toc(g);
}

int arch_fentry_probe(uintptr_t rec, struct arch_fentry *f)
{
	memset(f, 0, sizeof(*f));
	if (rec & 3)
		return DYNCALL_ERR_ALIGN;
	/* the global entry, if the two words before the nop set the TOC */
	f->func = rec >= 8 && gep_toc(rec - 8) ? rec - 8 : rec;
	if (word(rec) != INSN_NOP)
		return DYNCALL_ERR_BYTES;
	f->site = rec;
	f->resume = rec + 4;
	f->site_len = 4;
	memcpy(f->orig, &(uint32_t){ INSN_NOP }, 4);
	return DYNCALL_OK;
}

/*
 * Clang's route (docs/prologues.md "ppc64le: Clang's XRay entry sled"):
 * clang -fxray-instrument -fxray-instrumentation-bundle=function-entry
 * puts this sled at the function's local entry (after the global entry's
 * TOC set-up, if any) and records it in xray_instr_map:
 *
 *   sled:     4800001c  b sled+28          the entry: skips the sled
 *   sled+4:   60000000  nop
 *   sled+8:   f801fff8  std r0, -8(r1)
 *   sled+12:  7c0802a6  mflr r0
 *   sled+16:  48xxxxx1  bl __xray_FunctionEntry   (never executed)
 *   sled+20:  60000000  nop   (ld r2, 24(r1) when the linker made a stub)
 *   sled+24:  7c0803a6  mtlr r0
 *   sled+28:  the body
 *
 * The entry is the sled's first word: `b sled+28` <-> `b near+8`, one
 * aligned 32-bit store between two branches, exactly as the GCC route's
 * `nop` <-> `b near+8`; the stub, slot, jump functions and trampoline are
 * the GCC route's, and a hook resumes at sled+28.
 */
int arch_fentry_probe_xray(uintptr_t sled, uintptr_t func,
			   struct arch_fentry *f)
{
	static const uint32_t want[7] = { INSN_B_SLED,	  INSN_NOP,
					  INSN_STD_R0_M8, INSN_MFLR_R0,
					  INSN_BL,	  INSN_NOP,
					  INSN_MTLR_R0 };
	uint32_t w;

	memset(f, 0, sizeof(*f));
	f->func = func; /* known by its symbol, refused or not */
	if ((sled & 3) || (func & 3))
		return DYNCALL_ERR_ALIGN;
	/* at the function's one entry, or at its local entry after the TOC
	 * set-up: anything else would miss calls, or patch a body */
	if (func != sled && !(func + 8 == sled && gep_toc(func)))
		return DYNCALL_ERR_BYTES;
	for (int i = 0; i < 7; i++) {
		w = word(sled + 4 * (uintptr_t)i);
		if (i == 4 ? (w & MASK_BL) != INSN_BL :
		    i == 5 ? w != INSN_NOP && w != INSN_LD_R2_24 :
			     w != want[i])
			return DYNCALL_ERR_BYTES;
	}
	f->site = sled;
	f->resume = sled + SLED_LEN;
	f->site_len = 4;
	memcpy(f->orig, &(uint32_t){ INSN_B_SLED }, 4);
	return DYNCALL_OK;
}

/* The entry's unpatched word: nop (GCC route) or b sled+28 (Clang). */
static uint32_t entry_off(const struct arch_fentry *f)
{
	uint32_t w;

	memcpy(&w, f->orig, 4);
	return w;
}

int arch_fentry_target_ok(const struct arch_fentry *f, uintptr_t target,
			  bool keeps_toc)
{
	Dl_info a, b;

	/* st_other's local-entry field 1: r2 is caller-saved for the target,
	 * which may return to f's callers with another r2 (ARCH_SYM_DROPS_TOC):
	 * a caller that reached f's local entry does not restore its own */
	if (!keeps_toc)
		return DYNCALL_ERR_INVAL;
	if (!gep_toc(target))
		return DYNCALL_OK; /* sets no TOC: r2 stays the caller's */
	if (f->func != f->site && gep_toc(f->func) == gep_toc(target))
		return DYNCALL_OK;
	/* f sets no TOC of its own: the target's module must be f's */
	return dladdr((void *)f->func, &a) && dladdr((void *)target, &b) &&
			       a.dli_fbase == b.dli_fbase ?
		       DYNCALL_OK :
		       DYNCALL_ERR_INVAL;
}

/*
 * May f's listed call sites branch to `target` directly (arch.h
 * arch_caller_target; docs/prologues.md "ppc64le: redirects at the call
 * sites")?  A listed site is `bl f+L` / `b f+L`: the linker sent it to
 * f's local entry because the caller's r2 is f's TOC.  Rewritten, it
 * enters the target's local entry with that same r2, skipping the
 * target's TOC set-up, so:
 *   1. the target must be in f's module (DYNCALL_ERR_INVAL): its TOC is
 *      the one the module's callers hold;
 *   2. its local entry must be the one the module's symbol table gives
 *      (`local`, from st_other) and the one arch_branch_plan writes
 *      (DYNCALL_ERR_BYTES otherwise): target + 8 after one of
 *      ppc64le_gep.h's TOC set-ups (offset 8), or the target itself
 *      when it has none (offset 0: one entry that keeps r2).  Anything
 *      else may set r2 from r12, which a `bl` does not hold, or not keep
 *      r2 (field 1: its callers need the linker's TOC-save stub), or
 *      have its local entry elsewhere;
 *   3. when f and the target both set up a TOC, the same one (another TOC
 *      group of GNU ld's multi-TOC: DYNCALL_ERR_INVAL).  When f sets none,
 *      the caller's r2 is the module's TOC: the assumption
 *      arch_fentry_target_ok already makes for the redirect itself (the
 *      target returns to f's callers with its own r2).
 * A refusal leaves the sites `bl f+L`: f's patched entry still leads to
 * the target.  The reach (+-32 MiB) is checked per site when it is
 * planned (arch_branch_plan: DYNCALL_ERR_RANGE).
 */
int arch_caller_target(const struct arch_fentry *f, uintptr_t target, int local)
{
	uintptr_t tt = (target & 3) ? 0 : gep_toc(target);
	uintptr_t ft = f->func != f->site ? gep_toc(f->func) : 0;
	Dl_info a, b;

	if (!dladdr((void *)f->func, &a) || !dladdr((void *)target, &b) ||
	    a.dli_fbase != b.dli_fbase)
		return DYNCALL_ERR_INVAL;
	if (local != (tt ? 8 : 0))
		return DYNCALL_ERR_BYTES;
	if (ft && tt && ft != tt)
		return DYNCALL_ERR_INVAL;
	return DYNCALL_OK;
}

void arch_fentry_set_near(struct arch_fentry *f, uintptr_t near)
{
	f->slot = near;
	f->tramp = near + NEAR_CODE;
}

bool arch_fentry_near_reaches(const struct arch_fentry *f, uintptr_t near)
{
	return !(near & 7) && b_reaches(f->site, near + NEAR_CODE);
}

size_t arch_fentry_emit_near(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f)
{
	static const uint32_t seq[8] = {
		0,
		0, /* the slot, 0 until step 3 */
		INSN_MFLR_R0,
		INSN_BCL_NEXT,
		INSN_MFLR_R12,
		INSN_MTLR_R0,
		INSN_LD_R12_M16,
		INSN_MTCTR_R12,
	};
	uint32_t bctr = INSN_BCTR;

	(void)at, (void)f;
	memcpy(buf, seq, sizeof(seq));
	memcpy(buf + sizeof(seq), &bctr, 4);
	memset(buf + sizeof(seq) + 4, ARCH_FILL_BYTE,
	       ARCH_FENTRY_NEAR_SIZE - sizeof(seq) - 4);
	return ARCH_FENTRY_NEAR_SIZE;
}

/* The branch from the entry to f->tramp, 0 if there is none. */
static uint32_t entry_branch(const struct arch_fentry *f)
{
	return f->tramp ? enc_b(f->site, f->tramp) : 0;
}

int arch_fentry_entry_state(const struct arch_fentry *f)
{
	return fentry32_entry_state(f, entry_off(f), entry_branch(f));
}

int arch_fentry_entry_step(const struct arch_fentry *f, uintptr_t value,
			   struct arch_step *s)
{
	bool reaches = f->tramp && b_reaches(f->site, f->tramp);

	return fentry32_entry_step(f, value != 0, entry_off(f), entry_branch(f),
				   reaches, s);
}

int arch_fentry_slot_step(const struct arch_fentry *f, uintptr_t value,
			  struct arch_step *s)
{
	if (!f->slot)
		return DYNCALL_ERR_RANGE; /* no stub yet */
	return fentry32_slot_step(f, value, s);
}

int arch_fentry_ool_steps(const struct arch_fentry *f, struct arch_step *s,
			  int max)
{
	/* nothing in the function's text besides the entry: the stub is
	 * fresh code (arch_fentry_emit_near) */
	(void)f, (void)s, (void)max;
	return 0;
}

static void put32(uint8_t *p, uint32_t w)
{
	memcpy(p, &w, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * Jump function for handlers h[0..n) (entered by bctr with r12 = jf):
 *
 *   jf:     addi r0, r12, 24         r0 = desc
 *           ld r12, 16(r12)          r12 = dc_fentry_tramp (its global
 *           mtctr r12                entry computes libdyncall's TOC)
 *           bctr
 *   +16:    .quad dc_fentry_tramp (_novec: no FPR and VR saves, when
 *           every handler was hooked with DYNCALL_FN_NO_VEC or the
 *           function's record says it takes nothing there; _f2 .. _f13:
 *           the first FPRs its record counts, no VR: tramp_for)
 *   desc:   .quad resume, fn, n      read by the trampoline
 *           .quad h_0, data_0, h_1, data_1, ...
 *
 * The trampoline calls each handler in order (bctrl with r12 = the
 * handler: on ELFv2 a call that may cross modules is an indirect call
 * through r12 in any case).
 */
#define JF_LIT 16
#define JF_DESC 24

size_t arch_fentry_jf_size(unsigned n)
{
	return JF_DESC + 24 + 16 * n;
}

size_t arch_fentry_emit_jf(uint8_t *buf, uintptr_t at, uintptr_t fn,
			   uintptr_t resume, const uintptr_t *h,
			   const uintptr_t *d, unsigned n,
			   struct arch_fentry_vec vec, struct arch_cfi *cfi)
{
	(void)at;
	cfi->len = 0; /* the handlers are called from the trampoline (CFI) */
	put32(buf + 0, INSN_ADDI_R0_R12_24);
	put32(buf + 4, INSN_LD_R12_16);
	put32(buf + 8, INSN_MTCTR_R12);
	put32(buf + 12, INSN_BCTR);
	put64(buf + JF_LIT, (uint64_t)(uintptr_t)tramp_for(vec));
	put64(buf + JF_DESC, resume);
	put64(buf + JF_DESC + 8, fn);
	put64(buf + JF_DESC + 16, n);
	for (unsigned i = 0; i < n; i++) {
		put64(buf + JF_DESC + 24 + 16 * i, h[i]);
		put64(buf + JF_DESC + 32 + 16 * i, d[i]);
	}
	return arch_fentry_jf_size(n);
}

/*
 * The original body, callable through a pointer (r12 = the thunk):
 *   ld r2, 16(r12)     the function's TOC (nop if it sets none)
 *   ld r12, 24(r12)
 *   mtctr r12
 *   bctr               to the body past the entry nop
 *   .quad toc, resume
 */
size_t arch_fentry_emit_orig(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f)
{
	uintptr_t toc = f->func != f->site ? gep_toc(f->func) : 0;

	(void)at;
	memset(buf, ARCH_FILL_BYTE, ARCH_FENTRY_ORIG_SIZE);
	put32(buf + 0, toc ? INSN_LD_R2_16 : INSN_NOP);
	put32(buf + 4, INSN_LD_R12_24);
	put32(buf + 8, INSN_MTCTR_R12);
	put32(buf + 12, INSN_BCTR);
	put64(buf + 16, toc);
	put64(buf + 24, f->resume);
	return 32;
}
