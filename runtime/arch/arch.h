/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The per-architecture contract of the runtime.  The generic code decides
 * *what* every branch should point at and *when* cores are synchronized;
 * an architecture only says how to read, encode and write one branch and
 * how to lay out the small pieces of code the runtime generates:
 *
 *   - one patchable branch: arch_branch_read(), arch_branch_plan()
 *     (a plan is 1..ARCH_MAX_STEPS stores; the generic writer executes step
 *     i of every branch of a batch, then synchronizes all cores, then step
 *     i + 1, so a batch costs one membarrier per step, not per branch),
 *   - the trampoline's slow path: arch_tramp_slow(),
 *   - the code the runtime generates: a region header (shared entries),
 *     guard stubs (1..ARCH_MAX_TARGETS compares, then a miss path that is
 *     the slow path or enters dc_miss()), far stubs and discovery
 *     thunks: arch_emit_*(),
 *   - discovery's proof: arch_call_before(),
 *   - instruction cache maintenance after a write: arch_flush_icache(),
 *   - function-entry patching (docs/prologues.md): arch_fentry_*() in
 *     <arch>_prologue.{c,S}; an arch header that leaves ARCH_HAS_FENTRY 0
 *     has the API return DYNCALL_ERR_UNSUPPORTED (and must still define
 *     the functions, returning that status, so the contract links).
 *
 * This header holds the only architecture #if ladder of the runtime.
 */
#ifndef DYNCALL_ARCH_H
#define DYNCALL_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include "x86_64.h"
#elif defined(__aarch64__) && defined(__LP64__)
#include "aarch64.h"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__) && \
	defined(_CALL_ELF) && _CALL_ELF == 2
#include "ppc64le.h"
#else
#error "dyncall runtime: unsupported architecture (x86_64, aarch64, ppc64le ELFv2)"
#endif

/* Defaults an arch header may override. */
#ifndef ARCH_STORE_WORD
#define ARCH_STORE_WORD 8 /* width of an atomic step's store (bytes)   */
#endif
#ifndef ARCH_FILL_BYTE
#define ARCH_FILL_BYTE 0xcc /* unused generated-code bytes (a trap)    */
#endif
#ifndef ARCH_PROT
/* The protection to pass to mprotect for text at addr (aarch64 adds
 * PROT_BTI where the pages are BTI-guarded). */
#define ARCH_PROT(addr, prot) (prot)
#endif
#ifndef ARCH_HAS_FENTRY
#define ARCH_HAS_FENTRY 0 /* function-entry patching (docs/prologues.md) */
#endif
#ifndef ARCH_FENTRY_TARGET_CHECK
#define ARCH_FENTRY_TARGET_CHECK 0 /* any redirect target will do */
#endif
#ifndef ARCH_LOCAL_ENTRY
#define ARCH_LOCAL_ENTRY(st_other) 0u /* a symbol's local entry offset */
#endif
#ifndef ARCH_SYM_DROPS_TOC
/* a function symbol's st_other says the function may change the TOC
 * pointer and not restore it (ppc64le); never elsewhere */
#define ARCH_SYM_DROPS_TOC(st_other) 0
#endif
#ifndef ARCH_FENTRY_JF_NEAR_FN
/* 1: a jump function is placed near its function (x86-64: reached from Q
 * and resuming the body by direct jumps); 0: near its first handler */
#define ARCH_FENTRY_JF_NEAR_FN 0
#endif
#ifndef ARCH_FENTRY_VEC_REGS
/* vector argument registers a jump function saves at most (the "all" of
 * a function without a record: struct arch_fentry_vec.n) */
#define ARCH_FENTRY_VEC_REGS 8
#endif
#ifndef ARCH_FENTRY_INT_REGS
/* integer argument registers (aarch64 x0-x7, ppc64le r3-r10): the most a
 * record's DYNCALL_FN_REC_INT_COUNT may say (struct arch_fentry_vec.ints) */
#define ARCH_FENTRY_INT_REGS 8
#endif
#ifndef ARCH_FENTRY_VEC2_REGS
/* ppc64le: the second register file's (v2..) "all": arch_fentry_vec.n2 */
#define ARCH_FENTRY_VEC2_REGS 0
#endif
#ifndef ARCH_FENTRY_NEAR_SIZE
#define ARCH_FENTRY_NEAR_SIZE 0 /* no code near the entry needed */
#define ARCH_FENTRY_NEAR_SHARED 0
#endif
#ifndef ARCH_HAS_COND
#define ARCH_HAS_COND 0 /* conditional (DYNCALL_KIND_COND) sites patched */
#endif
#ifndef ARCH_HAS_HOOKS
#define ARCH_HAS_HOOKS 0 /* hook-list jump functions (<arch>_hooks.c) */
#endif
#ifndef ARCH_HOOKS_JF_ALIGN
#define ARCH_HOOKS_JF_ALIGN 16 /* a jump function's entry (dc_code_near's) */
#endif
#ifndef ARCH_COND_CALL_VIA_TRAMP
/* 1: a conditional site's call is only ever its NOP or its original call
 * of the trampoline (ppc64le: the linker's TOC-save stub must run); its
 * direct and guarded states are the trampoline's. */
#define ARCH_COND_CALL_VIA_TRAMP 0
#endif
#ifndef ARCH_HAS_INLINE
#define ARCH_HAS_INLINE 0 /* inline guards (DYNCALL_KIND_INLINE) set */
#endif

#ifndef ARCH_HAS_DISCOVERY
#define ARCH_HAS_DISCOVERY 1 /* Clang CALL sites are discovered at run time */
#endif
#ifndef ARCH_DISCOVER_COND_ONLY
/* 1: only conditional sites are discovered (ppc64le: an ordinary site's
 * call is never patched) */
#define ARCH_DISCOVER_COND_ONLY 0
#endif

/* Kinds of patchable branches. */
enum arch_op {
	ARCH_OP_CALL = 1, /* a call whose return address matters */
	ARCH_OP_JMP = 2,  /* a jump (trampoline branch, tail site) */
	/* The call of a conditional site (ARCH_HAS_COND): a call, or a NOP of
	 * the call's size, which arch_branch_read() reports and
	 * arch_branch_plan() takes as destination 0. */
	ARCH_OP_COND = 3,
};

/* One store of a branch write.  `atomic` stores are done as a single
 * aligned store of the naturally aligned quadword that contains them (the
 * other bytes rewritten with their current value, under the lock); the
 * others are only done while no thread can execute the bytes. */
struct arch_step {
	uintptr_t addr;
	uint8_t len;
	bool atomic;
	uint8_t bytes[8];
};

/* Does the branch at `at` have the shape `op <dest>`?  Sets *dest. */
bool arch_branch_read(uintptr_t at, enum arch_op op, uintptr_t *dest);

/* Can a branch at `at` reach `dest` without a stub? */
bool arch_branch_reaches(uintptr_t at, uintptr_t dest);

/* Plan the stores that turn the branch at `at`, currently going to `cur`,
 * into one going to `want`.  Returns the number of steps (0 when nothing
 * changes) or a negative enum dyncall_status. */
int arch_branch_plan(uintptr_t at, enum arch_op op, uintptr_t cur,
		     uintptr_t want, struct arch_step steps[ARCH_MAX_STEPS]);

/* If `tramp` is an unpatched trampoline, return its slow path (the
 * unpatched branch's destination), else 0.  *retpoline is set when the slow
 * path is a retpoline rather than an indirect branch. */
uintptr_t arch_tramp_slow(uintptr_t tramp, bool *retpoline);

/* Does the slow path at `slow` start with the conditional trampoline's
 * NULL test (return when the static chain is NULL, abi.h)?  Then
 * arch_tramp_slow() returned `slow` for a DYNCALL_KIND_COND trampoline. */
bool arch_tramp_returns_on_null(uintptr_t slow);

/* The call instruction that returns to `ret`, if it is a direct call to
 * `tramp` (the discovery proof); the caller has checked that
 * [ret - ARCH_CALL_LEN, ret) is in m's executable segment (any other word
 * read is checked with dc_in_exec(m, ...) first). */
struct dc_module;
bool arch_call_before(const struct dc_module *m, uintptr_t ret,
		      uintptr_t tramp);

/* What a guard stub does when the loaded pointer is none of its targets. */
enum arch_miss {
	ARCH_MISS_SLOW = 0,  /* the slow path: branch through the pointer   */
	ARCH_MISS_ENTRY = 1, /* dc_miss(&site literal, ret, loaded) through
			      * the region header's miss entry, then the
			      * slow path (learning, checking mode)         */
};

/* One guard stub: what it compares, in order, and what it does on a miss. */
struct arch_guard {
	const uintptr_t *targets; /* 0..ARCH_MAX_TARGETS, hottest first     */
	unsigned ntargets;
	unsigned flavor;          /* enum dc_stub_flavor (RETPOLINE)        */
	enum arch_miss miss;
	uintptr_t site;           /* the struct dc_site, for dc_miss        */
	bool cond;                /* a conditional site's stub: a NULL
				   * pointer returns before the miss path  */
};

/* Generated code.  `at` is where the bytes will live, `region` the base of
 * their region (its header holds the shared entries).  Each returns the
 * number of bytes written to buf (arch_guard_size(n) for a guard stub,
 * ARCH_FAR_SIZE for a far stub, ARCH_THUNK_SIZE for a discovery thunk,
 * ARCH_REGION_HEADER for the header). */
size_t arch_emit_region_header(uint8_t *buf, uintptr_t at);
/* cond: the stub of a conditional site (struct arch_guard.cond) */
size_t arch_guard_size(unsigned ntargets, bool cond); /* <= ARCH_GUARD_MAX */
size_t arch_emit_guard(uint8_t *buf, uintptr_t at, uintptr_t region,
		       const struct arch_guard *g);
size_t arch_emit_far(uint8_t *buf, uintptr_t at, uintptr_t region,
		     uintptr_t target, unsigned flavor);
size_t arch_emit_disc_thunk(uint8_t *buf, uintptr_t at, uintptr_t region,
			    uintptr_t site, unsigned flavor);

/* Is `word`, the first 4 bytes of a function, the landing pad an indirect
 * call from a site with these flags (DYNCALL_SITE_IBT, _BTI) requires? */
bool arch_is_landing_pad(uint32_t word, unsigned site_flags);

/* Make [addr, addr + len) visible to instruction fetch on this core
 * (the cross-core part is the membarrier the generic code issues). */
void arch_flush_icache(uintptr_t addr, size_t len);

/*
 * Function-entry patching.  A patchable function (one entry of a module's
 * __patchable_function_entries) has, per arch:
 *   slot   a pointer-sized, naturally aligned word the entry sequence
 *          branches through (CALL_OPS' ops literal): one atomic store
 *          changes what a patched entry reaches;
 *   ool    the out-of-line sequence that branches through the slot, in the
 *          pre-entry padding: written while the entry does not lead to it;
 *   site   the entry instruction(s) turned from their NOPs into a branch
 *          to ool and back, each turn one atomic store.
 * The slot holds either a generated jump function (handlers, then resume)
 * or a redirect target.
 */
struct arch_fentry {
	uintptr_t func;    /* the function (its symbol)                    */
	uintptr_t slot;    /* ARCH_STORE_WORD-aligned pointer slot         */
	uintptr_t ool;     /* out-of-line sequence                         */
	uintptr_t site;    /* entry bytes a patch changes                  */
	uintptr_t resume;  /* the body past the entry NOPs                 */
	uintptr_t tramp;   /* code near the entry it branches to, or 0
			    * (arch_fentry_set_near)                       */
	uint8_t site_len;  /* bytes changed at site                        */
	uint8_t orig[8];   /* their NOP value (ppc64le XRay sled: b .+28)  */
};

/* Code near the entry.  An arch whose entry branch has a short reach
 * (aarch64: bl, +-128 MiB) sets ARCH_FENTRY_NEAR_SIZE: before a function
 * is turned on the first time, the generic code places that many bytes
 * of arch_fentry_emit_near() in a stub region within reach of the site
 * (once per function, or once for every function in reach with
 * ARCH_FENTRY_NEAR_SHARED) and records it with arch_fentry_set_near();
 * no memory in reach: DYNCALL_ERR_RANGE. */
#if ARCH_FENTRY_NEAR_SIZE
size_t arch_fentry_emit_near(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f);
void arch_fentry_set_near(struct arch_fentry *f, uintptr_t near);
bool arch_fentry_near_reaches(const struct arch_fentry *f, uintptr_t near);
#endif

/* May `target` replace f's code (a redirect)?  DYNCALL_OK or why not.
 * ppc64le: only a function that keeps r2 (keeps_toc: false when its
 * symbol's st_other says it may not, ARCH_SYM_DROPS_TOC) and that is of
 * f's module or sets no TOC, whose TOC a caller in that module keeps
 * (DYNCALL_ERR_INVAL otherwise). */
#if ARCH_FENTRY_TARGET_CHECK
int arch_fentry_target_ok(const struct arch_fentry *f, uintptr_t target,
			  bool keeps_toc);
#endif

/* Check the bytes around the __patchable_function_entries record `rec`
 * (the first patchable byte) against the layout the build side promises
 * and fill *f.  DYNCALL_OK, DYNCALL_ERR_BYTES (another layout, other
 * bytes), DYNCALL_ERR_ALIGN or DYNCALL_ERR_UNSUPPORTED. */
int arch_fentry_probe(uintptr_t rec, struct arch_fentry *f);

/* Clang's XRay entry sled (ppc64le: the Clang route, docs/prologues.md)
 * at `sled`, of the function at `func` (both from an xray_instr_map entry
 * of kind 0): check its bytes and fill *f as arch_fentry_probe does; its
 * "NOPs" are the sled's first instruction, the branch over the sled. */
#ifndef ARCH_FENTRY_XRAY
#define ARCH_FENTRY_XRAY 0
#endif
#if ARCH_FENTRY_XRAY
int arch_fentry_probe_xray(uintptr_t sled, uintptr_t func,
			   struct arch_fentry *f);
#endif

/* Does the entry currently branch to ool (1), hold its NOPs (0), or
 * something else (negative status)? */
int arch_fentry_entry_state(const struct arch_fentry *f);

/* The stores of one step: the entry on (value: what the slot leads to; it
 * branches to ool, or, x86-64 where it can, straight to value) or off
 * (value 0: its NOPs);
 * the slot <- value (at most ARCH_FENTRY_SLOT_STEPS stores, in order: an
 * arch may branch directly to a value in reach and through the slot
 * otherwise); the out-of-line sequence (0 steps when it is already there).
 * Each returns the number of steps written to s. */
#define ARCH_FENTRY_SLOT_STEPS 2
int arch_fentry_entry_step(const struct arch_fentry *f, uintptr_t value,
			   struct arch_step *s);
int arch_fentry_slot_step(const struct arch_fentry *f, uintptr_t value,
			  struct arch_step *s);
int arch_fentry_ool_steps(const struct arch_fentry *f, struct arch_step *s,
			  int max);

/* Redirects at the call sites (docs/prologues.md "Redirects at the call
 * sites"): a redirect of a function with no handlers also rewrites the
 * direct calls and jumps of it that the module's file lists (the
 * relocations the linker kept with --emit-relocs).  For a relocation of
 * type `type` whose field is at `field` (its run-time address; the module
 * says [field - ARCH_CALLER_BEFORE, field + ARCH_CALLER_AFTER) is in its
 * executable segment): is it the field of a direct call or jump whose
 * destination one branch write changes?  Then *site is that branch (for
 * arch_branch_read/plan), *op its kind, and the destination the linker
 * gave it is S + A + *bias (S the symbol, A the addend); the caller then
 * checks that the branch decodes to exactly that destination.  An arch
 * without it leaves ARCH_HAS_CALLERS 0 and redirects stay at the entry. */
#ifndef ARCH_HAS_CALLERS
#define ARCH_HAS_CALLERS 0
#endif
#if ARCH_HAS_CALLERS
bool arch_caller_reloc(uint32_t type, uintptr_t field, uintptr_t *site,
		       enum arch_op *op, int64_t *bias);
#endif

/* May f's listed sites call `target` directly (phase B of a pure
 * redirect)?  `local`: the local entry offset that f's module's symbol
 * table gives a function at target (ARCH_CALLER_LOCAL_ENTRY(st_other):
 * 0 or 8), or -1 (none, or another).  DYNCALL_OK,
 * or why the sites stay `call f` (reaching target through f's entry,
 * which stays correct).  ppc64le: a site enters the target's local entry
 * with the caller's TOC, so the target must be in f's module with f's
 * TOC and a known local entry (ppc64le_prologue.c).  An arch that leaves
 * ARCH_CALLER_TARGET_CHECK 0 rewrites to any target (the range is
 * arch_branch_plan's business, per site). */
#ifndef ARCH_CALLER_TARGET_CHECK
#define ARCH_CALLER_TARGET_CHECK 0
#endif
#if ARCH_CALLER_TARGET_CHECK
int arch_caller_target(const struct arch_fentry *f, uintptr_t target,
		       int local);
#endif

/* Generated code.  A jump function: run handlers h[0..n) with data d[i]
 * (guard, registers), then continue at resume; returns its size
 * (<= arch_fentry_jf_size(n)).  vec: which vector argument registers to
 * save and restore around the handlers: the first vec.n (0: none, no
 * handler needs them: DYNCALL_FN_NO_VEC on each, or the function takes
 * none), vec.width bytes of each (16; 32 or 64 when a wider vector
 * argument may be in them).  An arch may save more (aarch64 and ppc64le:
 * all of them when vec.n is not 0); vec.int_known, vec.ints: which integer
 * argument registers (the same, from the record's integer count).  An "original" thunk: a callable
 * entry to f's body past its patchable entry. */
struct arch_fentry_vec {
	unsigned n;     /* 0 .. ARCH_FENTRY_VEC_REGS */
	unsigned width; /* bytes: 16, 32, 64 */
	/* The compiler's record says what the vector registers carry and
	 * the saves keep all of it: nothing else in them is live at the
	 * entry (x86-64: the jump function clears the upper halves,
	 * vzeroupper, so that its SSE code and the handlers run without
	 * dirty upper state). */
	bool upper_dead;
	/* The compiler's record (DYNCALL_FN_REC_INT_COUNT) says the function
	 * receives arguments in the first `ints` integer argument registers
	 * and in no other integer register (not variadic, no static chain):
	 * the jump function may save and restore those only (x86-64: and not
	 * rax, r10).  false (what a zeroed struct says): every one, as
	 * without a record.  An arch may save more. */
	bool int_known;
	unsigned ints; /* 0 .. ARCH_FENTRY_INT_REGS, with int_known */
	unsigned n2; /* ppc64le: v2 .. v(n2+1) (n: f1 .. fn); 0 elsewhere */
};
/* Unwind information of a jump function whose handlers are called from
 * its own code (x86-64, aarch64): the DWARF call frame instructions of its
 * FDE (runtime/unwind.c writes the CIE from ARCH_CFI_*), len 0 when the
 * handlers are called from code that has its own (ppc64le: the
 * trampoline's CFI in ppc64le_prologue.S) or when the arch gives none. */
#define ARCH_CFI_OPS_MAX 128 /* the longest program: a hook-list jf's */
#define ARCH_FENTRY_CFI_OPS_MAX 24 /* a function-entry jf's (unwind.c
				    * reserves a batch's FDE room by it) */
struct arch_cfi {
	uint8_t ops[ARCH_CFI_OPS_MAX];
	unsigned len;
};
size_t arch_fentry_jf_size(unsigned n);
size_t arch_fentry_emit_jf(uint8_t *buf, uintptr_t at, uintptr_t fn,
			   uintptr_t resume, const uintptr_t *h,
			   const uintptr_t *d, unsigned n,
			   struct arch_fentry_vec vec, struct arch_cfi *cfi);
#define ARCH_FENTRY_ORIG_SIZE 32
size_t arch_fentry_emit_orig(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f);

/*
 * Hook lists (docs/hooks.md, hooks.c).  A jump function calls handlers
 * h[0..n) directly, in order, each with the arguments it was called with
 * (data variant: the first argument register replaced by d[i]), and
 * returns to its caller; `sig` says what to preserve between the calls
 * (from the list's declaration, dyncall.h DYNCALL_HOOKS_SIG_).  A handler
 * out of a direct call's reach is called through a register.  An arch
 * without <arch>_hooks.c leaves ARCH_HAS_HOOKS 0 and hooks.c refuses the
 * lists that need a jump function (DYNCALL_ERR_UNSUPPORTED).  The jump
 * function's unwind information is registered by unwind.c like the
 * function-entry ones'.
 */
struct arch_hooks_sig {
	unsigned ngpr;  /* integer argument registers to preserve      */
	unsigned nvec;  /* vector/FP argument registers to preserve
			 * (ppc64le: f1..)                             */
	unsigned nvec2; /* ppc64le: vector registers v2.. to preserve  */
	unsigned stack; /* stack-argument bytes to copy per call (8k)  */
	bool data;      /* first argument register <- d[i]             */
};
#if ARCH_HAS_HOOKS
size_t arch_hooks_jf_size(const struct arch_hooks_sig *sig, unsigned n);
/* cfi: the jump function's call frame instructions (struct arch_cfi;
 * len 0: none, as for the one-handler form, which has no frame) */
size_t arch_hooks_emit_jf(uint8_t *buf, uintptr_t at,
			  const struct arch_hooks_sig *sig, const uintptr_t *h,
			  const uintptr_t *d, unsigned n,
			  struct arch_cfi *cfi);
#endif

#endif /* DYNCALL_ARCH_H */
