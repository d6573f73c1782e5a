/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * dyncall.h - public API of libdyncall, the dyncall runtime.
 *
 * Annotate a function-pointer variable (or typedef, or struct field) with
 * DYNCALL and build with the dyncall compiler plugin: calls through it
 * become direct calls that the runtime live-patches when the pointer
 * changes.  Without the plugin DYNCALL expands to nothing and every call is
 * an ordinary indirect call, so code using this header always builds.
 *
 *	static int (*on_event)(int) DYNCALL;
 *	on_event = handler_a;      // the plugin turns this into __dyncall_store
 *	on_event(42);              // direct call to handler_a once patched
 *
 * The promise: a program behaves exactly like the same program with plain
 * indirect calls.  Patching only makes it faster; whatever the runtime
 * cannot do safely (no membarrier, mprotect refused, unexpected bytes) stays
 * on the slow, always-correct indirect path and dyncall_status() says why.
 *
 * Stores the plugin cannot see.  A store from code that was not built with
 * the plugin (a library, assembly, memcpy over the key, a debugger) does not
 * repatch the sites: call dyncall_update(&key) after it.  Until then, sites
 * of a key whose address escaped are guarded and stay correct (slower);
 * sites the plugin proved "fresh" may be direct and would keep calling the
 * old target.  Run with DYNCALL_CHECK=1 to find such stores (see
 * docs/runtime.md, "Checking mode").
 *
 * Environment (read with secure_getenv: ignored in set-user-ID programs;
 * booleans take 1/0, yes/no, true/false, on/off, anything else is one
 * warning line and the default): DYNCALL_CHECK=1 (checking mode: every
 * site guarded, stale calls reported on stderr), DYNCALL_DISABLE=1 (never
 * patch anything), DYNCALL_TEXT_WRITE=auto|no-mprotect|alias|mem|mprotect
 * (how text is written, docs/runtime.md "Never writable and executable"),
 * DYNCALL_STATS=1 (the sites with the most misses, at exit),
 * DYNCALL_LEARN=0 and DYNCALL_LEARN_{TARGETS,PERIOD,WINDOW,RETARGETS}
 * (how guarded sites learn their targets, docs/runtime.md "Sites that
 * learn").
 *
 * All functions are thread-safe and may be called from signal handlers
 * (they block signals while they hold the runtime lock).  Every function
 * returns a status; nothing aborts.
 *
 * When patching becomes impossible (a sandbox installed mid-run refuses
 * membarrier, mprotect, mmap or /proc/self/mem): patching stops, what is
 * patched stays consistent and dyncall_status() says why.  A site is made
 * direct only by a writer whose undo needs no new permission (a store
 * through the runtime's memfd alias, or a pwrite on the /proc/self/mem
 * descriptor opened at start-up), so a direct branch can always be taken
 * off before a store.  The residual cases, with no safe exit:
 *   - a direct branch that still cannot be taken off before a store (a
 *     site the linker resolved, `dyncall-rewrite relax`, when every writer
 *     is refused; or pwrite itself refused on aarch64/ppc64le without an
 *     alias): the store is NOT done: dyncall_set and the store the plugin
 *     emits return DYNCALL_ERR_STUCK and the key keeps its value, so no
 *     call ever reaches a value the key no longer holds;
 *   - membarrier refused after start-up: the write that takes a direct
 *     branch off is done (one atomic store, coherent for instruction
 *     fetch) but no core is serialized after it, and the store follows;
 *     status DYNCALL_ERR_MEMBARRIER, nothing is written afterwards.
 */
#ifndef DYNCALL_H
#define DYNCALL_H

/* No system header: a file may include this one first and define its
 * feature macros (_GNU_SOURCE, _POSIX_C_SOURCE, ...) after it, which only
 * works while nothing has included <features.h> yet (glibc's <stdint.h>
 * and C++'s <cstddef> do).  The compiler's predefined types are the same
 * types as size_t and uint64_t. */
#ifdef __cplusplus
extern "C" {
#endif

#define DYNCALL_VERSION_MAJOR 0
#define DYNCALL_VERSION_MINOR 1
#define DYNCALL_VERSION_PATCH 0

#if defined(__has_attribute)
#if __has_attribute(dynamic_call)
#define DYNCALL __attribute__((dynamic_call))
#endif
#endif
#ifndef DYNCALL
#define DYNCALL /* no plugin: a plain function pointer */
#endif

/* Statuses: DYNCALL_OK or a negative error. */
enum dyncall_status {
	DYNCALL_OK = 0,
	DYNCALL_ERR_INVAL = -1,      /* bad argument                          */
	DYNCALL_ERR_NOKEY = -2,      /* no registered module uses this key    */
	DYNCALL_ERR_MEMBARRIER = -3, /* no membarrier SYNC_CORE: all slow     */
	DYNCALL_ERR_MPROTECT = -4,   /* mprotect refused: all slow            */
	DYNCALL_ERR_NOMEM = -5,      /* no memory (or none near the sites)    */
	DYNCALL_ERR_BYTES = -6,      /* unexpected bytes at a patch point     */
	DYNCALL_ERR_ABI = -7,        /* table entry this runtime cannot read  */
	DYNCALL_ERR_RANGE = -8,      /* branch cannot reach; no stub in range */
	DYNCALL_ERR_DISABLED = -9,   /* DYNCALL_DISABLE=1                     */
	DYNCALL_ERR_ALIGN = -10,     /* patch point cannot be written safely  */
	DYNCALL_ERR_STUCK = -11,     /* a direct site could not be taken off
				      * its target: the store was NOT done
				      * (see "When patching becomes
				      * impossible" above)                  */
	DYNCALL_ERR_UNSUPPORTED = -12, /* not supported on this arch yet    */
	DYNCALL_ERR_NOFN = -13,      /* not a patchable function (no
				      * __patchable_function_entries entry) */
	DYNCALL_ERR_NOHOOK = -14,    /* no such handler on that function
				      * (or hook list)                       */
	DYNCALL_ERR_EXISTS = -15,    /* hook lists: that handler is there    */
	DYNCALL_ERR_FULL = -16,      /* hook lists: DYNCALL_HOOKS_MAX already */
	DYNCALL_ERR_NORELOCS = -17,  /* redirects at the call sites: the
				      * module's file lists no calls (linked
				      * without --emit-relocs)              */
	DYNCALL_ERR_BUILDID = -18,   /* ...: the module's file is not the
				      * mapped image (no build-id, or
				      * another one)                        */
	DYNCALL_ERR_RUNTIMES = -19,  /* another copy of the runtime in this
				      * process (libdyncall.a and
				      * libdyncall.so): all slow            */
};

/* The state of a site (what its patchable branches currently do). */
enum dyncall_site_state {
	DYNCALL_STATE_SLOW = 0,    /* indirect call through the loaded pointer */
	DYNCALL_STATE_GUARDED = 1, /* guard stub: compare, then direct jump    */
	DYNCALL_STATE_DIRECT = 2,  /* direct call to the target (or far stub)  */
};

/* Store `value` into the variable key `key` (seq_cst) and repatch its
 * sites.  What the plugin calls for every store it sees.  An address that
 * is not a registered key is simply stored to (DYNCALL_ERR_NOKEY). */
int dyncall_set(void *key, void *value);

/* The key was written by code the plugin did not see: repatch its sites
 * for its current value. */
int dyncall_update(void *key);

/* The same for n keys with one core synchronization per phase for the
 * whole batch.  Returns the first error, after doing all it can. */
int dyncall_update_batch(void *const *keys, __SIZE_TYPE__ n);
int dyncall_set_batch(void *const *keys, void *const *values, __SIZE_TYPE__ n);

struct dyncall_key_info {
	const char *name;   /* source name of the key (from its key entry)    */
	const void *value;  /* value the sites are patched for               */
	unsigned nsites;    /* registered sites                               */
	unsigned ndirect;   /* ... in each state                              */
	unsigned nguarded;
	unsigned nslow;
	int escapes;        /* some module let the key's address escape       */
	int type_key;       /* a type key (struct dyncall_type_key)           */
};

/* Describe a key (a variable key's address or a type key's descriptor). */
int dyncall_key_info(const void *key, struct dyncall_key_info *out);

#define DYNCALL_MAX_CALLS 8 /* call instructions recorded per trampoline */
#define DYNCALL_MAX_TARGETS 4 /* targets one guarded site compares       */

struct dyncall_site_info {
	const void *site;     /* first known call/jmp instruction, or NULL    */
	unsigned ncalls;      /* call instructions known (given or discovered) */
	const void *calls[DYNCALL_MAX_CALLS];
	const void *tramp;    /* the trampoline                               */
	const void *func;     /* enclosing function                           */
	const void *target;   /* current target (NULL when slow)              */
	int state;            /* enum dyncall_site_state                      */
	int status;           /* DYNCALL_OK or why the site is not patched    */
	int kind;             /* DYNCALL_KIND_CALL / _TAIL (dyncall/abi.h)    */
	unsigned flags;       /* enum dyncall_site_flags                      */
	int discovering;      /* run-time discovery still active              */
	/* A guarded site compares the loaded pointer with these targets, in
	 * this order (the stored value of a variable key, then what the site
	 * learned from its misses); megamorphic: it stopped learning. */
	unsigned ntargets;
	const void *targets[DYNCALL_MAX_TARGETS];
	int megamorphic;
};

/* Call fn for every site of key, under the runtime lock (fn must not call
 * back into dyncall).  fn returns nonzero to stop.  Returns the number of
 * sites visited or a negative status. */
typedef int (*dyncall_site_fn)(const struct dyncall_site_info *info,
			       void *arg);
int dyncall_foreach_site(const void *key, dyncall_site_fn fn, void *arg);

struct dyncall_stats {
	__UINT64_TYPE__ modules;        /* registered modules                     */
	__UINT64_TYPE__ sites;          /* registered sites                       */
	__UINT64_TYPE__ keys;           /* registered keys                        */
	__UINT64_TYPE__ patches;        /* branch writes done (each step counted) */
	__UINT64_TYPE__ skipped;        /* writes skipped: nothing would change   */
	__UINT64_TYPE__ refused;        /* writes refused: unexpected bytes etc.  */
	__UINT64_TYPE__ membarriers;    /* core synchronizations                  */
	__UINT64_TYPE__ stubs;          /* stubs and thunks generated             */
	__UINT64_TYPE__ discoveries;    /* call instructions discovered           */
	__UINT64_TYPE__ verify_failures;/* discovery checks that failed           */
	__UINT64_TYPE__ guard_misses;   /* checking mode: calls through a stale key */
	__UINT64_TYPE__ stores;         /* stores that repatched                  */
	__UINT64_TYPE__ jump_to_self;   /* branch writes that needed jmp-to-self  */
	/* Sites registered in the direct state dyncall-rewrite relax left
	 * them in (DYNCALL_SITE_RESOLVED, bytes verified, the key still holds
	 * the resolved target): no write, no core sync.  Cumulative, like
	 * `patches`.  A RESOLVED site that needed a write (a store before
	 * registration, an ESCAPES key, checking mode) is not counted. */
	__UINT64_TYPE__ resolved_at_link;
	/* Learning (docs/runtime.md, "Sites that learn"): guard misses
	 * sampled, re-specialisations of a site's stub to its hottest
	 * targets, and sites that stopped learning (megamorphic). */
	__UINT64_TYPE__ learn_samples;
	__UINT64_TYPE__ learned;
	__UINT64_TYPE__ megamorphic;
};

void dyncall_get_stats(struct dyncall_stats *out);

/* DYNCALL_OK when fast paths are available, else why they are off. */
int dyncall_status(void);
/* Human-readable form of the above, e.g.
 * "mprotect(0x5555..., RWX) refused: Permission denied". */
const char *dyncall_status_string(void);
/* "MAJOR.MINOR.PATCH" */
const char *dyncall_version(void);

/*
 * Function-entry patching (docs/prologues.md).  A function built with a
 * patchable prologue (dyncall-cc --dyncall-prologues, or one by one with
 * DYNCALL_PATCHABLE) runs a few NOPs and nothing else until it is hooked
 * (handlers run on entry, then its body) or redirected (every caller
 * reaches another function instead: live patching).  x86_64, aarch64 and
 * ppc64le (GCC with the dyncall plugin; Clang through its XRay entry
 * sleds); elsewhere every call returns
 * DYNCALL_ERR_UNSUPPORTED.
 *
 *	int parse(const char *s) DYNCALL_PATCHABLE;
 *	dyncall_fn_hook(parse, count_calls, &counter);
 *	dyncall_fn_redirect(parse, parse_v2);
 *	dyncall_fn_restore(parse);
 *
 * A refused patch (unexpected bytes, text not writable, no membarrier)
 * returns a status and leaves the function running its original code.
 * These functions take the runtime lock; unlike the rest of the API they
 * must not be called from a signal handler (they look up modules with
 * dl_iterate_phdr).
 */
#if defined(__x86_64__)
/* 24 pre-entry bytes (the ops slot and the out-of-line jump), 5 NOPs at
 * the entry: the layout of dyncall-cc --dyncall-prologues. */
#define DYNCALL_PATCHABLE_N 29
#define DYNCALL_PATCHABLE_M 24
#elif defined(__aarch64__)
/* 2 pre-entry NOPs (the 8-byte ops literal), 2 at the entry (after BTI C):
 * `mov x9, x30` and the NOP <-> `bl` of CALL_OPS. */
#define DYNCALL_PATCHABLE_N 4
#define DYNCALL_PATCHABLE_M 2
#elif defined(__powerpc64__) && defined(__clang__)
/* Clang: an XRay entry sled at the local entry (its driver refuses
 * -fpatchable-function-entry on ppc64le); effective with the XRay flags
 * dyncall-cc adds to every Clang compile for ppc64le (docs/prologues.md),
 * ignored without them. */
#if defined(__has_attribute)
#if __has_attribute(xray_always_instrument)
#define DYNCALL_PATCHABLE __attribute__((xray_always_instrument))
#define DYNCALL_NOT_PATCHABLE __attribute__((xray_never_instrument))
#endif
#endif
#elif defined(__powerpc64__) && defined(__GNUC__) && !defined(__clang__)
/* One NOP right after the local entry, emitted by the dyncall GCC plugin
 * (GCC 12's own -fpatchable-function-entry puts it before the global
 * entry's TOC setup); Clang: an XRay entry sled (above). */
#if defined(__has_attribute)
#if __has_attribute(dyncall_patchable)
#define DYNCALL_PATCHABLE __attribute__((dyncall_patchable))
#define DYNCALL_NOT_PATCHABLE __attribute__((patchable_function_entry(0, 0)))
#endif
#endif
#endif
#if defined(DYNCALL_PATCHABLE_N) && defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define DYNCALL_PATCHABLE \
	__attribute__((patchable_function_entry(DYNCALL_PATCHABLE_N, \
						DYNCALL_PATCHABLE_M), \
		       aligned(8)))
#define DYNCALL_NOT_PATCHABLE __attribute__((patchable_function_entry(0, 0)))
#endif
#endif
#ifndef DYNCALL_PATCHABLE
#define DYNCALL_PATCHABLE /* no patchable prologues here */
#endif
#ifndef DYNCALL_NOT_PATCHABLE
#define DYNCALL_NOT_PATCHABLE
#endif

/* The registers a handler sees and may change: the integer argument
 * registers in ABI order, the caller's return address, and the vector
 * argument registers (their low 128 bits).  Changes to everything but
 * `ret` are what the function then receives.
 *   x86_64:  arg = rdi, rsi, rdx, rcx, r8, r9; rax (the vector-register
 *            count of a variadic call); vec = xmm0..7.
 *   aarch64: arg = x0..x7; x8 (the indirect result address); vec = q0..7.
 *   ppc64le: arg = r3..r10; fpr = f1..f13; vec = v2..v13. */
#if defined(__aarch64__)
struct dyncall_regs {
	__UINT64_TYPE__ arg[8];
	__UINT64_TYPE__ x8;
	__UINT64_TYPE__ ret;
	__UINT64_TYPE__ vec[8][2];
};
#elif defined(__powerpc64__)
struct dyncall_regs {
	__UINT64_TYPE__ arg[8];
	__UINT64_TYPE__ ret;
	__UINT64_TYPE__ fpr[13];
	__UINT64_TYPE__ vec[12][2];
};
#else
struct dyncall_regs {
	__UINT64_TYPE__ arg[6];
	__UINT64_TYPE__ rax;
	__UINT64_TYPE__ ret;
	__UINT64_TYPE__ vec[8][2];
};
#endif

/* A handler: the hooked function, its caller's return address, the data
 * given to dyncall_fn_hook, the argument registers (those the compiler
 * recorded the function receives, dyncall_fn_flags; the other entries of
 * regs are not filled in and writing them has no effect).  Runs before
 * the body, on the calling thread, at most once per call; a hooked
 * function it calls (directly or not) runs without handlers (a per-thread
 * guard). */
typedef void (*dyncall_fn_handler)(void *fn, void *ret, void *data,
				   struct dyncall_regs *regs);

#define DYNCALL_FN_MAX_HANDLERS 16 /* handlers on one function */

/* Add handler (with data) to fn's handlers, after those already there;
 * the same handler twice is DYNCALL_ERR_INVAL. */
int dyncall_fn_hook(void *fn, dyncall_fn_handler handler, void *data);
/* The same with flags (0: dyncall_fn_hook).  DYNCALL_FN_NO_VEC: the vector
 * argument registers need no saving for this handler, because fn takes
 * no argument in them (no float, double or vector parameter, not
 * variadic) or because the handler, and all it calls, leaves them alone
 * (e.g. compiled with -mgeneral-regs-only); regs->vec (ppc64le: also
 * regs->fpr) is then not filled in and writing it has no effect.  When
 * every handler of fn has the flag, x86-64 leaves the xmm0-7 saves out of
 * the jump function, aarch64 the q0-q7 saves and ppc64le the f1-f13 and
 * v2-v13 saves out of the trampoline.  A function the compiler recorded
 * as taking no vector argument (x86-64 and aarch64 dyncall plugin builds,
 * dyncall_fn_flags: DYNCALL_FN_NO_VEC_ABI) gets that jump function
 * whatever the flags.  Another flag: DYNCALL_ERR_INVAL. */
#define DYNCALL_FN_NO_VEC 1u
int dyncall_fn_hook_flags(void *fn, dyncall_fn_handler handler, void *data,
			  unsigned flags);
/* Remove it (DYNCALL_ERR_NOHOOK if fn has no such handler). */
int dyncall_fn_unhook(void *fn, dyncall_fn_handler handler);
/* Every call of fn runs target instead (after fn's handlers, if any). */
int dyncall_fn_redirect(void *fn, void *target);
/* fn back to its original code: no redirect, no handlers, NOPs again. */
int dyncall_fn_restore(void *fn);
/* A callable pointer to fn's original body (skips its patchable entry:
 * what a redirect target calls to reach the original).  NULL if fn is
 * not a patchable function. */
void *dyncall_fn_original(void *fn);
/* The patchable function named `name` (symbol tables of the loaded
 * modules, the main program first), or NULL. */
void *dyncall_fn_find(const char *name);
/* Every patchable function registered in the loaded modules (main program
 * first, then load order; those the runtime refuses too: their
 * dyncall_fn_info status says why), up to max of them into fns (fns may
 * be NULL when max is 0).  Returns how many there are: call again with a
 * larger array if that is more than max.  What a tool that hooks every
 * function uses (docs/prologues.md, "Hooking every function"). */
__SIZE_TYPE__ dyncall_fn_list(void **fns, __SIZE_TYPE__ max);
/* The same changes for n functions with one core synchronization per
 * phase for the whole batch.  Return the first error, after doing all
 * they can. */
int dyncall_fn_hook_batch(void *const *fns, __SIZE_TYPE__ n,
			  dyncall_fn_handler handler, void *data);
/* dyncall_fn_hook_batch with the flags of dyncall_fn_hook_flags (the same
 * flags for every function of the batch). */
int dyncall_fn_hook_batch_flags(void *const *fns, __SIZE_TYPE__ n,
				dyncall_fn_handler handler, void *data,
				unsigned flags);
int dyncall_fn_unhook_batch(void *const *fns, __SIZE_TYPE__ n,
			    dyncall_fn_handler handler);
int dyncall_fn_restore_batch(void *const *fns, __SIZE_TYPE__ n);

/* name: valid until the function's module is dlclosed (the runtime's
 * copy is freed with the module's other records then). */
struct dyncall_fn_info {
	const char *name;     /* symbol name, or NULL                         */
	const void *fn;
	unsigned nhandlers;
	const void *redirect; /* target, or NULL                              */
	int patched;          /* the entry currently leaves the NOPs          */
	int status;           /* DYNCALL_OK or why it cannot be patched       */
};
int dyncall_fn_info(const void *fn, struct dyncall_fn_info *out);
/* What the runtime knows of fn's prototype and what its handlers get
 * (docs/prologues.md, "Vector registers"), in *flags:
 *   DYNCALL_FN_NO_VEC_ABI  the compiler recorded that fn takes no argument
 *       in vector registers (a dyncall plugin build, abi.h
 *       __dyncall_fn_records; x86-64, aarch64; ppc64le: no floating-point
 *       and no vector register): its jump function never saves them,
 *       whatever the handlers' flags;
 *   DYNCALL_FN_VEC_SAVED   fn has handlers and its jump function saves the
 *       vector argument registers its prototype uses: regs->vec[0 ..
 *       DYNCALL_FN_VEC_NREGS(*flags)) (ppc64le: also regs->fpr) hold them
 *       and writes reach the function; the other regs->vec entries are
 *       not filled in.  Clear (with handlers): regs->vec is not filled in
 *       and writing it has no effect;
 *   DYNCALL_FN_VEC_NREGS(*flags)  the number of vector argument registers
 *       fn's prototype uses as far as the runtime knows (x86-64 xmm,
 *       aarch64 v: 0 to 8, 8 when the compiler recorded nothing or fn is
 *       variadic; ppc64le: the floating-point registers f1.., 0 to 13);
 *   DYNCALL_FN_VEC2_NREGS(*flags)  ppc64le: the vector registers v2..
 *       (0 to 12; 12 when the compiler recorded nothing); 0 elsewhere;
 *   DYNCALL_FN_VARIADIC_ABI  the compiler recorded that fn is variadic;
 *   DYNCALL_FN_VEC_YMM, DYNCALL_FN_VEC_ZMM  the compiler recorded a
 *       vector argument wider than 16 bytes (__m256, __m512): the jump
 *       function keeps the saved registers' upper halves (where the CPU
 *       has them) while regs->vec shows their low 16 bytes;
 *   DYNCALL_FN_INT_ABI  the compiler recorded which integer argument
 *       registers fn receives (abi.h DYNCALL_FN_REC_INT_COUNT; not for a
 *       variadic function): its jump function saves the first
 *       DYNCALL_FN_INT_NREGS(*flags) only (x86-64: not rax): regs->arg[0
 *       .. n) hold them and writes reach the function; the other entries
 *       of regs->arg (x86-64: and regs->rax) are not filled in and
 *       writing them has no effect (aarch64: the first n rounded up to
 *       a pair, x8 always; ppc64le: rounded up to 1, 2, 4 or 8, and
 *       not r11);
 *   DYNCALL_FN_INT_NREGS(*flags)  the number of integer argument registers
 *       fn receives as far as the runtime knows (x86-64 rdi..r9: 0 to 6,
 *       aarch64 x0-x7, ppc64le r3-r10: 0 to 8; all of them without
 *       DYNCALL_FN_INT_ABI).
 * DYNCALL_ERR_NOFN if fn is not a registered patchable function. */
#define DYNCALL_FN_NO_VEC_ABI 1u
#define DYNCALL_FN_VEC_SAVED 2u
#define DYNCALL_FN_VARIADIC_ABI 4u
#define DYNCALL_FN_VEC_YMM 8u
#define DYNCALL_FN_VEC_ZMM 16u
#define DYNCALL_FN_VEC_NREGS_SHIFT 8
#define DYNCALL_FN_VEC_NREGS(flags) \
	(((flags) >> DYNCALL_FN_VEC_NREGS_SHIFT) & 15u)
#define DYNCALL_FN_INT_ABI 32u
#define DYNCALL_FN_INT_NREGS_SHIFT 12
#define DYNCALL_FN_INT_NREGS(flags) \
	(((flags) >> DYNCALL_FN_INT_NREGS_SHIFT) & 15u)
#define DYNCALL_FN_VEC2_NREGS_SHIFT 16
#define DYNCALL_FN_VEC2_NREGS(flags) \
	(((flags) >> DYNCALL_FN_VEC2_NREGS_SHIFT) & 15u)
int dyncall_fn_flags(const void *fn, unsigned *flags);

/* Redirects at the call sites (docs/prologues.md, "Redirects at the call
 * sites"; x86-64, aarch64, ppc64le): while fn is redirected and has no handlers,
 * the direct calls and jumps of fn in its own module that the module's
 * file lists (linked with --emit-relocs: dyncall-cc --dyncall-prologues
 * does) call the target themselves; every other call still reaches it
 * through fn's patched entry.  What the runtime knows of them, in *out:
 *   status      DYNCALL_OK: the module's list was read (when a redirect
 *               first needed it); DYNCALL_ERR_NORELOCS: the file lists no
 *               relocations; DYNCALL_ERR_BUILDID: the file is not the
 *               mapped image (no build-id, or another one);
 *               DYNCALL_ERR_UNSUPPORTED: not on this arch
 *   sites       the listed direct calls and jumps of fn
 *   redirected  how many of them call another function now
 *   skipped     how many the last change could not write (other bytes
 *               there, target out of reach, writes refused): they keep
 *               reaching fn's entry, which stays correct
 *   skipped_status  why (the first reason; DYNCALL_OK when none was
 *               skipped): DYNCALL_ERR_BYTES other bytes there,
 *               DYNCALL_ERR_RANGE the target out of the branch's reach,
 *               DYNCALL_ERR_MPROTECT writes refused; ppc64le, every site
 *               of fn: DYNCALL_ERR_INVAL the target is in another module
 *               or sets up another TOC, DYNCALL_ERR_BYTES its local
 *               entry is not known
 * DYNCALL_ERR_NOFN if fn is not a registered patchable function. */
struct dyncall_fn_callers {
	int status;
	unsigned sites;
	unsigned redirected;
	unsigned skipped;
	int skipped_status;
};
int dyncall_fn_callers(const void *fn, struct dyncall_fn_callers *out);

/*
 * Hook lists (docs/hooks.md): any number of void handlers called with the
 * same arguments, in the order they were added, through one patchable
 * site.  The list is a void key of its own; the runtime stores into it
 * NULL (no handler: a conditional site is a NOP), the handler (one, the
 * plain variant: a direct call) or a jump function it generated (several,
 * or the data variant: one direct call to code that calls each handler
 * directly with the arguments preserved).
 *
 *	DYNCALL_HOOKS(pkt_hooks, void, struct pkt *);       // file scope
 *	dyncall_hooks_add(pkt_hooks, log_pkt);              // 0 -> 1
 *	dyncall_hooks_add(pkt_hooks, count_pkt);            // 1 -> 2
 *	DYNCALL_HOOKS_CALL(pkt_hooks, p);                   // both, in order
 *	dyncall_hooks_remove(pkt_hooks, log_pkt);
 *
 *	DYNCALL_HOOKS_DATA(ev_hooks, void, int);  // handlers: void (void *, int)
 *	dyncall_hooks_add_data(ev_hooks, on_ev, &ctx);
 *	DYNCALL_HOOKS_DATA_CALL(ev_hooks, 42);    // on_ev(&ctx, 42)
 *	dyncall_hooks_remove_data(ev_hooks, on_ev, &ctx);
 *
 * The API takes the list's name (not its address): the declaration's
 * signature word (name##__dyncall_sig, below) goes with it.  A storage
 * class may precede DYNCALL_HOOKS (static, extern); `ret` must be void; at
 * most 24 argument types (none: `DYNCALL_HOOKS(name, void)`, called as
 * `DYNCALL_HOOKS_CALL(name)`, a `(void)` prototype), no variadic
 * prototype.  Refused at compile time (docs/hooks.md, "The signature
 * word"): a vector argument wider than 16 bytes (x86-64: the jump function
 * keeps xmm, not ymm/zmm), on aarch64 a struct or union over 16 bytes
 * (passed by reference: the handlers would share it), in C++ a class that
 * is not trivially copyable (the same), over 32 KiB of stack arguments.
 * Status codes, never an
 * abort: DYNCALL_ERR_EXISTS (that handler, or handler and data, is already
 * there), DYNCALL_ERR_NOHOOK (no such handler), DYNCALL_ERR_FULL
 * (DYNCALL_HOOKS_MAX handlers), DYNCALL_ERR_NOMEM, DYNCALL_ERR_INVAL (NULL
 * handler, or the same list declared with another signature elsewhere),
 * DYNCALL_ERR_UNSUPPORTED (a jump function is needed on an arch that has
 * none yet); on any error the list is unchanged.
 *
 * Semantics: a call (one execution of DYNCALL_HOOKS_CALL) runs the handler
 * set of one instant between its start and its end: a call concurrent
 * with add/remove runs either the old set or the new one, each handler of
 * it exactly once, in order.  Grace rule: after dyncall_hooks_remove
 * returns, calls that started before may still run the removed handler;
 * free what it uses only after every thread has passed a point where it
 * was outside the list's calls (a quiescent point of the program's own:
 * thread joined, a per-thread epoch, ...).  Jump functions are never freed
 * or reused (one per distinct handler set, cached), so a thread inside an
 * old one always finds its code intact.
 */
#define DYNCALL_HOOKS_MAX 16

int dyncall_hooks_add_(void *list, unsigned sig, void *fn, void *data);
int dyncall_hooks_remove_(void *list, unsigned sig, void *fn, void *data,
			  int match_data);
/* The number of handlers of the list and, up to max, the handlers and
 * their data (fns/datas may be NULL), in call order. */
int dyncall_hooks_get_(const void *list, void **fns, void **datas,
		       unsigned max);

#define DYNCALL_HOOKS(name, ret, ...)                                     \
	ret (*name)(__VA_ARGS__ DYNCALL_HK_CAT_(DYNCALL_HK_VOID,           \
						__VA_OPT__(_))) DYNCALL;    \
	typedef char name##__dyncall_sig[DYNCALL_HOOKS_SIG_(0, __VA_ARGS__)]; \
	DYNCALL_HOOKS_CHECK_(ret, __VA_ARGS__)
#define DYNCALL_HOOKS_DATA(name, ret, ...)                                \
	ret (*name)(void *, __VA_ARGS__) DYNCALL;                          \
	typedef char name##__dyncall_sig[DYNCALL_HOOKS_SIG_(1, void *,     \
							    __VA_ARGS__)]; \
	DYNCALL_HOOKS_CHECK_(ret, void *, __VA_ARGS__)

/* One load of the key, a test, the call: a conditional site with the
 * plugin (a NOP while the list is empty), else an ordinary `if`. */
#define DYNCALL_HOOKS_CALL(name, ...)                                     \
	do {                                                               \
		__typeof__(name) dyncall_hooks_f_ = (name);                \
		if (dyncall_hooks_f_)                                      \
			dyncall_hooks_f_(__VA_ARGS__);                     \
	} while (0)
/* The data variant: the site passes a placeholder the jump function
 * replaces with each handler's data. */
#define DYNCALL_HOOKS_DATA_CALL(name, ...)                                \
	do {                                                               \
		__typeof__(name) dyncall_hooks_f_ = (name);                \
		if (dyncall_hooks_f_)                                      \
			dyncall_hooks_f_((void *)0, __VA_ARGS__);          \
	} while (0)

#define dyncall_hooks_add(name, fn)                                       \
	dyncall_hooks_add_((void *)&(name), sizeof(name##__dyncall_sig),   \
			   (void *)(1 ? (fn) : (name)), (void *)0)
#define dyncall_hooks_add_data(name, fn, data)                            \
	dyncall_hooks_add_((void *)&(name), sizeof(name##__dyncall_sig),   \
			   (void *)(1 ? (fn) : (name)), (void *)(data))
/* Removes every entry of fn (whatever its data). */
#define dyncall_hooks_remove(name, fn)                                    \
	dyncall_hooks_remove_((void *)&(name), sizeof(name##__dyncall_sig), \
			      (void *)(1 ? (fn) : (name)), (void *)0, 0)
/* Removes the entry of fn with that data. */
#define dyncall_hooks_remove_data(name, fn, data)                         \
	dyncall_hooks_remove_((void *)&(name), sizeof(name##__dyncall_sig), \
			      (void *)(1 ? (fn) : (name)), (void *)(data), 1)
#define dyncall_hooks_count(name)                                         \
	dyncall_hooks_get_((const void *)&(name), (void **)0, (void **)0, 0)

/*
 * The signature word (internal): what a jump function must preserve,
 * computed from the argument types.  Per argument, with its type class
 * (__builtin_classify_type) and size, upper bounds of the integer and
 * vector/FP argument registers it may take and of the stack bytes it may
 * take; the word holds the register counts (capped at the ABI's) and the
 * stack bytes the jump function copies: 0 when every argument surely fits
 * in registers, else the sum of every argument's stack size (an upper
 * bound: the copy may read past the caller's argument area, inside its
 * frame).  Bits: 0-3 integer registers, 4-7 vector/FP registers (ppc64le:
 * FP), 8-19 stack doublewords, 20-23 ppc64le vector registers, 24 the data
 * variant, 28 always set.
 */
#define DYNCALL_HOOKS_SIG_(data, ...)                                     \
	(1u << 28 | (unsigned)(data) << 24 |                                \
	 DYNCALL_HK_MIN_(DYNCALL_HK_SUM_(DYNCALL_HK_G_, __VA_ARGS__),       \
			 DYNCALL_HK_NG) |                                   \
	 DYNCALL_HK_MIN_(DYNCALL_HK_SUM_(DYNCALL_HK_V_, __VA_ARGS__),       \
			 DYNCALL_HK_NV) << 4 |                              \
	 (DYNCALL_HK_SPILL_(__VA_ARGS__) ?                                  \
		  DYNCALL_HK_SUM_(DYNCALL_HK_ST_, __VA_ARGS__) / 8 : 0u) << 8 | \
	 DYNCALL_HK_MIN_(DYNCALL_HK_SUM_(DYNCALL_HK_V2_, __VA_ARGS__), 12) << 20)
#define DYNCALL_HK_MIN_(a, b) ((a) < (b) ? (unsigned)(a) : (unsigned)(b))
#define DYNCALL_HK_CLS_(T) __builtin_classify_type(*(__typeof__(T) *)0)
#define DYNCALL_HK_SZ_(T) sizeof(__typeof__(T))
#define DYNCALL_HK_W_(T) ((DYNCALL_HK_SZ_(T) + 7) / 8)
/* integer, char, enum, bool, pointer, reference */
#define DYNCALL_HK_INT_(T) (DYNCALL_HK_CLS_(T) >= 1 && DYNCALL_HK_CLS_(T) <= 6)
#define DYNCALL_HK_REAL_(T) (DYNCALL_HK_CLS_(T) == 8)
/* a vector type: GCC says -1, Clang 19 */
#define DYNCALL_HK_VEC_(T) (DYNCALL_HK_CLS_(T) == -1 || DYNCALL_HK_CLS_(T) == 19)
#define DYNCALL_HK_ALIGNPAD_(T) (__alignof__(__typeof__(T)) > 8 ? 8u : 0u)
/* anything else: a struct, union, complex, _BitInt, ... */
#define DYNCALL_HK_AGG_(T) \
	(!DYNCALL_HK_INT_(T) && !DYNCALL_HK_REAL_(T) && !DYNCALL_HK_VEC_(T))
#define DYNCALL_HK_REC_(T) (DYNCALL_HK_CLS_(T) == 12 || DYNCALL_HK_CLS_(T) == 13)
#if defined(__aarch64__)
/* x0..x7, v0..v7; a 16-byte-aligned argument (__int128, an aggregate
 * aligned to 16) starts on an even x register: one more; an aggregate:
 * up to two x registers, or an HFA/HVA of up to four v registers.  A
 * struct or union over 16 bytes that is not homogeneous is passed by
 * reference to the caller's copy, which the callee may write: refused
 * (DYNCALL_HK_BAD_), as no HFA test exists at compile time. */
#define DYNCALL_HK_NG 8
#define DYNCALL_HK_NV 8
#define DYNCALL_HK_G_(T) \
	(DYNCALL_HK_REAL_(T) || DYNCALL_HK_VEC_(T) ? 0u : \
	 DYNCALL_HK_INT_(T) || DYNCALL_HK_SZ_(T) <= 16 ? \
		 DYNCALL_HK_W_(T) + DYNCALL_HK_ALIGNPAD_(T) / 8 : 1u)
#define DYNCALL_HK_V_(T) \
	(DYNCALL_HK_INT_(T) ? 0u : DYNCALL_HK_REAL_(T) || DYNCALL_HK_VEC_(T) ? 1u : 4u)
#define DYNCALL_HK_ST_(T) \
	((DYNCALL_HK_SZ_(T) > 8 ? DYNCALL_HK_W_(T) * 8 : 8u) + DYNCALL_HK_ALIGNPAD_(T))
#define DYNCALL_HK_MEM_(T) 0u
#define DYNCALL_HK_BYREF_(T) (DYNCALL_HK_REC_(T) && DYNCALL_HK_SZ_(T) > 16)
#elif defined(__powerpc64__)
/* ELFv2: every argument takes its doublewords of the parameter save area,
 * the first eight in r3..r10; floating point also in f1..f13 (a 16-byte
 * one: __float128 in v2..v13, IBM long double in two f registers: both
 * counted), vectors in v2..v13, homogeneous aggregates in up to 8 of
 * either.  The save area holds stack arguments only past 8 doublewords. */
#define DYNCALL_HK_NG 8
#define DYNCALL_HK_NV 13
#define DYNCALL_HK_G_(T) (DYNCALL_HK_W_(T) + DYNCALL_HK_ALIGNPAD_(T) / 8)
#define DYNCALL_HK_V_(T) \
	(DYNCALL_HK_INT_(T) || DYNCALL_HK_VEC_(T) ? 0u : \
	 DYNCALL_HK_REAL_(T) ? DYNCALL_HK_W_(T) : 8u)
#define DYNCALL_HK_V2_(T) \
	(DYNCALL_HK_VEC_(T) ? 1u : DYNCALL_HK_INT_(T) ? 0u : \
	 DYNCALL_HK_REAL_(T) ? (DYNCALL_HK_SZ_(T) > 8 ? 1u : 0u) : 8u)
#define DYNCALL_HK_ST_(T) (DYNCALL_HK_G_(T) * 8)
#define DYNCALL_HK_MEM_(T) 0u
#define DYNCALL_HK_BYREF_(T) 0
#else
/* x86-64 SysV: rdi rsi rdx rcx r8 r9, xmm0..7.  No exact classification
 * at compile time, so upper bounds of both: a real over 8 bytes is one
 * xmm register (__float128) and memory (long double); every other
 * aggregate (struct, union, complex) may be memory (over 16 bytes, a
 * long double member, a misaligned packed member) and, up to 16 bytes,
 * up to two of either register kind. */
#define DYNCALL_HK_NG 6
#define DYNCALL_HK_NV 8
#define DYNCALL_HK_G_(T) \
	(DYNCALL_HK_REAL_(T) || DYNCALL_HK_VEC_(T) ? 0u : \
	 DYNCALL_HK_INT_(T) || DYNCALL_HK_SZ_(T) <= 16 ? DYNCALL_HK_W_(T) : 0u)
#define DYNCALL_HK_V_(T) \
	(DYNCALL_HK_INT_(T) ? 0u : \
	 DYNCALL_HK_REAL_(T) || DYNCALL_HK_VEC_(T) ? 1u : \
	 DYNCALL_HK_SZ_(T) <= 16 ? DYNCALL_HK_W_(T) : 0u)
#define DYNCALL_HK_ST_(T) (DYNCALL_HK_W_(T) * 8 + DYNCALL_HK_ALIGNPAD_(T))
#define DYNCALL_HK_MEM_(T) \
	(DYNCALL_HK_AGG_(T) || (DYNCALL_HK_REAL_(T) && DYNCALL_HK_SZ_(T) > 8) ? 1u : 0u)
#define DYNCALL_HK_BYREF_(T) 0
#endif
#ifndef DYNCALL_HK_V2_
#define DYNCALL_HK_V2_(T) 0u
#endif
#define DYNCALL_HK_SPILL_(...)                                            \
	(DYNCALL_HK_SUM_(DYNCALL_HK_G_, __VA_ARGS__) > DYNCALL_HK_NG ||     \
	 DYNCALL_HK_SUM_(DYNCALL_HK_V_, __VA_ARGS__) > DYNCALL_HK_NV ||     \
	 DYNCALL_HK_SUM_(DYNCALL_HK_MEM_, __VA_ARGS__) > 0)
/* The stack doublewords fit their 12 bits. */
#define DYNCALL_HK_STACK_OK_(...)                                         \
	(!DYNCALL_HK_SPILL_(__VA_ARGS__) ||                                 \
	 DYNCALL_HK_SUM_(DYNCALL_HK_ST_, __VA_ARGS__) / 8 <= 0xfffu)
/* A vector argument wider than 16 bytes (x86-64: ymm/zmm). */
#define DYNCALL_HK_BAD_(T) (DYNCALL_HK_VEC_(T) && DYNCALL_HK_SZ_(T) > 16)
#ifdef __cplusplus
/* Itanium C++ ABI: a class that is not trivially copyable (a user copy or
 * move constructor, or destructor) is passed by reference to a
 * caller-made temporary the callee may modify: refused. */
#define DYNCALL_HK_NTC_(T) \
	(DYNCALL_HK_REC_(T) && !__is_trivially_copyable(__typeof__(T)))
extern "C++" {
template <bool ok> struct dyncall_hk_check_ {
	static constexpr bool passed = ok;
};
}
/* (through a constant of its own, so that Clang's message shows the
 * message rather than the whole expression) */
#define DYNCALL_HK_SA_(cond, msg) \
	static_assert(dyncall_hk_check_<(cond) != 0>::passed, msg)
#define DYNCALL_HK_VOIDRET_(ret) __is_same(ret, void)
#else
#define DYNCALL_HK_NTC_(T) 0
#define DYNCALL_HK_SA_(cond, msg) \
	_Static_assert(__builtin_choose_expr((cond) != 0, 1, 0), msg)
#define DYNCALL_HK_VOIDRET_(ret) __builtin_types_compatible_p(ret, void)
#endif
#define DYNCALL_HOOKS_CHECK_(ret, ...)                                    \
	DYNCALL_HK_SA_(DYNCALL_HK_VOIDRET_(ret), "hook lists return void"); \
	DYNCALL_HK_SA_(DYNCALL_HK_SUM_(DYNCALL_HK_BAD_, __VA_ARGS__) == 0,   \
		       "hook lists: vector argument wider than 16 bytes"); \
	DYNCALL_HK_SA_(DYNCALL_HK_SUM_(DYNCALL_HK_BYREF_, __VA_ARGS__) == 0, \
		       "hook lists: a struct or union argument over 16 "    \
		       "bytes is passed by reference on aarch64 (handlers " \
		       "would share it): pass a pointer");                  \
	DYNCALL_HK_SA_(DYNCALL_HK_SUM_(DYNCALL_HK_NTC_, __VA_ARGS__) == 0,   \
		       "hook lists: a class argument that is not trivially " \
		       "copyable is passed by reference (handlers would "   \
		       "share it): pass a pointer");                        \
	DYNCALL_HK_SA_(DYNCALL_HK_STACK_OK_(__VA_ARGS__),                    \
		       "hook lists: arguments over 32 KiB of stack")
/* `void` for an empty parameter list (a prototype before C23 too). */
#define DYNCALL_HK_VOID void
#define DYNCALL_HK_VOID_
/* The sum of M(T) over the argument types (0..24). */
#define DYNCALL_HK_SUM_(M, ...)                                           \
	(0u __VA_OPT__(DYNCALL_HK_CAT_(DYNCALL_HK_MAP,                       \
				       DYNCALL_HK_N_(__VA_ARGS__))(M, __VA_ARGS__)))
#define DYNCALL_HK_CAT_(a, b) DYNCALL_HK_CAT2_(a, b)
#define DYNCALL_HK_CAT2_(a, b) a##b
#define DYNCALL_HK_N_(...)                                                \
	DYNCALL_HK_N2_(__VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15,  \
		       14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define DYNCALL_HK_N2_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,   \
		       a13, a14, a15, a16, a17, a18, a19, a20, a21, a22,    \
		       a23, a24, n, ...) n
#define DYNCALL_HK_ONE_(M, T) + (unsigned)(M(T))
#define DYNCALL_HK_MAP1(M, a) DYNCALL_HK_ONE_(M, a)
#define DYNCALL_HK_MAP2(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP1(M, __VA_ARGS__)
#define DYNCALL_HK_MAP3(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP2(M, __VA_ARGS__)
#define DYNCALL_HK_MAP4(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP3(M, __VA_ARGS__)
#define DYNCALL_HK_MAP5(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP4(M, __VA_ARGS__)
#define DYNCALL_HK_MAP6(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP5(M, __VA_ARGS__)
#define DYNCALL_HK_MAP7(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP6(M, __VA_ARGS__)
#define DYNCALL_HK_MAP8(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP7(M, __VA_ARGS__)
#define DYNCALL_HK_MAP9(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP8(M, __VA_ARGS__)
#define DYNCALL_HK_MAP10(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP9(M, __VA_ARGS__)
#define DYNCALL_HK_MAP11(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP10(M, __VA_ARGS__)
#define DYNCALL_HK_MAP12(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP11(M, __VA_ARGS__)
#define DYNCALL_HK_MAP13(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP12(M, __VA_ARGS__)
#define DYNCALL_HK_MAP14(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP13(M, __VA_ARGS__)
#define DYNCALL_HK_MAP15(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP14(M, __VA_ARGS__)
#define DYNCALL_HK_MAP16(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP15(M, __VA_ARGS__)
#define DYNCALL_HK_MAP17(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP16(M, __VA_ARGS__)
#define DYNCALL_HK_MAP18(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP17(M, __VA_ARGS__)
#define DYNCALL_HK_MAP19(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP18(M, __VA_ARGS__)
#define DYNCALL_HK_MAP20(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP19(M, __VA_ARGS__)
#define DYNCALL_HK_MAP21(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP20(M, __VA_ARGS__)
#define DYNCALL_HK_MAP22(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP21(M, __VA_ARGS__)
#define DYNCALL_HK_MAP23(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP22(M, __VA_ARGS__)
#define DYNCALL_HK_MAP24(M, a, ...) DYNCALL_HK_ONE_(M, a) DYNCALL_HK_MAP23(M, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* DYNCALL_H */
