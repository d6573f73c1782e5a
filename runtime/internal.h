/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Shared definitions of the runtime.  Everything here is hidden; only the
 * dyncall_* and __dyncall_* entry points are exported (dyncall.map).
 *
 * Objects:
 *   module  one registered (sites, keys) table pair, i.e. one DSO/executable
 *   key     a variable key (its address) or a type key (its descriptor)
 *   site    one site entry: a trampoline plus up to DYNCALL_MAX_CALLS call
 *           instructions that reach it
 *   point   one patchable rel32 branch (a trampoline or a call/jmp)
 *
 * Locking: one global lock (lock.c) guards everything except the discovery
 * slots, which the discovery handler fills lock-free (see discovery.c).
 */
#ifndef DYNCALL_INTERNAL_H
#define DYNCALL_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h" /* arch_flush_icache, for dc_code_changed */
#include "dyncall.h"
#include "dyncall/abi.h"

#define DC_HIDDEN __attribute__((visibility("hidden")))
#define DC_EXPORT __attribute__((visibility("default")))

/* What a point currently branches to. */
enum dc_dest_kind {
	DC_DEST_SLOW = 0,  /* trampoline slow path / the trampoline itself */
	DC_DEST_DISC = 1,  /* the site's discovery thunk                   */
	DC_DEST_GUARD = 2, /* an immutable guard stub                      */
	DC_DEST_DIRECT = 3,/* the target or a far stub to it               */
};

struct dc_point {
	_Atomic uintptr_t addr; /* the branch instruction; 0 = unused slot    */
	uintptr_t cur;          /* destination currently written              */
	uint8_t op;             /* ARCH_OP_CALL / ARCH_OP_JMP                 */
	uint8_t cur_kind;       /* enum dc_dest_kind of cur                   */
	int16_t status;         /* last refusal, DYNCALL_OK otherwise         */
	uint32_t queued;        /* 1 + its index in the batch being built     */
};

struct dc_module;
struct dc_key;

/* What a guarded site learned from its misses (learn.c). */
#define DC_MAX_TARGETS 4  /* targets one stub compares                */
#define DC_LEARN_CANDS 8  /* candidates sampled per window             */
struct dc_learn {
	uintptr_t tg[DC_MAX_TARGETS]; /* learned targets, hottest first  */
	uint8_t ntg;
	uint8_t retargets;            /* re-specialisations so far        */
	_Atomic bool mega;            /* megamorphic: learning stopped    */
	_Atomic uint32_t window;      /* samples that close a window      */
	_Atomic uint32_t samples;     /* samples in this window           */
	_Atomic uint32_t other;       /* samples of no candidate slot     */
	_Atomic uint32_t total;       /* samples over the run (DYNCALL_STATS) */
	_Atomic uintptr_t cand[DC_LEARN_CANDS];
	_Atomic uint32_t cnt[DC_LEARN_CANDS];
};

/* Hot fields first: planning a site with one call instruction reads the
 * first two cache lines only. */
struct dc_site {
	struct dc_key *key;
	struct dc_module *mod;
	struct dc_site *key_next;  /* sites of the same key               */
	uintptr_t tramp;           /* trampoline entry                     */
	uintptr_t slow;            /* trampoline's slow path (tramp + 5)   */
	uintptr_t disc_thunk;      /* 0: no discovery for this site        */
	uintptr_t target;          /* target the site is patched for       */
	uint16_t flags;
	uint8_t kind;
	int status;                /* why the site is not (fully) patched  */
	struct dc_point tramp_pt;
	struct dc_point calls[DYNCALL_MAX_CALLS];
	const struct dyncall_site_entry *e;
	uintptr_t func;
	uintptr_t resolved;        /* RESOLVED entry: the target the file's
				    * (verified) bytes branch to, else 0   */
	/* Inline guards (DYNCALL_KIND_INLINE, state.c "Inline guards"): a
	 * site's `inl` is the record of its guard's entry, the next one; that
	 * record (kind INLINE, no key) has the hit trampoline as `tramp`, the
	 * hit calls as `calls`, and: */
	struct dc_site *inl;
	uintptr_t lit;             /* the literal (8 bytes, writable)      */
	uintptr_t inl_target;      /* T once chosen (never changes), or 0  */
	bool inl_disc;             /* discover the hit calls (Clang)       */
	_Atomic int disc_done;     /* discovery finished                   */
	_Atomic unsigned disc_fail;/* verification failures                */
	_Atomic bool reported;     /* checking mode: stale call reported   */
	struct dc_learn learn;     /* on its own lines: written by misses  */
} __attribute__((aligned(64)));

/* The executable PT_LOAD segments of a loaded object (segments.c). */
#define DC_MAX_EXEC_SEGS 4
struct dc_segs {
	unsigned n;
	uintptr_t lo[DC_MAX_EXEC_SEGS], hi[DC_MAX_EXEC_SEGS];
};

struct dc_module {
	struct dc_module *next;
	const struct dyncall_site_entry *sb, *se;
	const struct dyncall_key_entry *kb, *ke;
	unsigned refs;           /* registrations of the same tables       */
	unsigned nsites;         /* entries (inline guards included)       */
	unsigned ninline;        /* DYNCALL_KIND_INLINE entries            */
	struct dc_site *sites;
	struct dc_segs exec;     /* executable PT_LOAD segments            */
	uintptr_t lo, hi;        /* hull of the executable segments        */
	const char *path;
};

struct dc_key {
	struct dc_key *hnext;    /* hash chain                             */
	void *id;                /* variable address or type key descriptor */
	const char *name;
	bool type;
	bool escapes;            /* sticky: once escaped, always guarded   */
	bool konst;              /* a key entry says const: never stored    */
	unsigned refs;           /* key entries + sites referring to it    */
	uintptr_t value;         /* value the sites are patched for        */
	unsigned nsites;
	struct dc_site *sites;
	struct dc_key *batch_next;
	bool in_batch;
	size_t fin_lo, fin_hi;   /* store protocol: its step-3 writes      */
};

/* --- lock.c: the runtime lock; holders have all signals blocked and
 * cancellation disabled --- */
void dc_lock(sigset_t *saved) DC_HIDDEN;
extern unsigned dc_lock_hold DC_HIDDEN; /* odd while held (lock.c) */
bool dc_trylock(sigset_t *saved) DC_HIDDEN;
void dc_unlock(sigset_t *saved) DC_HIDDEN;
void dc_lock_reset_child(void) DC_HIDDEN;

/* --- init.c: configuration and status --- */
struct dc_config {
	bool inited;
	bool check;      /* DYNCALL_CHECK=1                             */
	bool stats;      /* DYNCALL_STATS=1: report the sites at exit   */
	bool disabled;   /* no patching at all (status says why)        */
	int status;
	char status_str[256];
};
extern struct dc_config dc_cfg DC_HIDDEN;
void dc_init_locked(void) DC_HIDDEN;
/* A boolean variable: 1/0, yes/no, true/false, on/off; else a warning. */
bool dc_env_bool(const char *name, bool dflt) DC_HIDDEN;
void dc_set_status(int status, const char *fmt, ...) DC_HIDDEN
	__attribute__((format(printf, 2, 3)));
void dc_fatal(const char *fmt, ...) DC_HIDDEN __attribute__((noreturn,
	format(printf, 1, 2)));

/* --- stats.c --- */
struct dc_stats {
	_Atomic uint64_t modules, sites, keys, patches, skipped, refused,
		membarriers, stubs, discoveries, verify_failures, guard_misses,
		stores, jump_to_self, resolved_at_link, samples, learned,
		megamorphic, inlined;
};
extern struct dc_stats dc_stats DC_HIDDEN;
#define DC_STAT_ADD(f, n) \
	atomic_fetch_add_explicit(&dc_stats.f, (n), memory_order_relaxed)

/* --- one_runtime.c: another dyncall runtime in the process looked for
 * (once: only if never yet); if there is one, both stop patching.  Not
 * under the lock. --- */
void dc_runtime_claim(bool once) DC_HIDDEN;
/* registry.c: every direct branch of every module back to its slow path
 * (under the lock, patching disabled) */
void dc_modules_slow(void) DC_HIDDEN;

/* --- code_changed.c: after the runtime wrote [addr, addr + len) of code:
 * the arch's cache maintenance, and Valgrind told (its translations of
 * those bytes discarded) --- */
void dc_code_changed_init(void) DC_HIDDEN; /* at start-up */
#ifdef DYNCALL_HAVE_VALGRIND_H
extern bool dc_under_valgrind DC_HIDDEN;
void dc_valgrind_discard(uintptr_t addr, size_t len) DC_HIDDEN;
#endif
static inline void dc_code_changed(uintptr_t addr, size_t len)
{
	arch_flush_icache(addr, len);
#ifdef DYNCALL_HAVE_VALGRIND_H
	if (dc_under_valgrind)
		dc_valgrind_discard(addr, len);
#endif
}

/* --- mem.c: signal-safe allocation (mmap-backed bump + free lists) --- */
void *dc_alloc(size_t size) DC_HIDDEN; /* zeroed, never NULL-checked-free */
void dc_free(void *p, size_t size) DC_HIDDEN;
void *dc_alloc_scratch(size_t size) DC_HIDDEN; /* not zeroed */

/* --- unwind.c: unwind information of generated code (docs/prologues.md
 * "Unwinding from a handler") --- */
struct arch_cfi;
/* a jump function's FDE (pc in the pool chunk or the stub region that
 * starts at `chunk`), pending until dc_unwind_commit registers the
 * pending ones, one object per chunk */
void dc_unwind_add(uintptr_t chunk, uintptr_t pc, size_t len,
		   const struct arch_cfi *cfi) DC_HIDDEN;
void dc_unwind_commit(void) DC_HIDDEN;
/* room for n more pending FDEs of function-entry jump functions at once
 * (a batch's functions) */
void dc_unwind_reserve(size_t n) DC_HIDDEN;

/* --- registry.c --- */
struct dc_key *dc_key_find(const void *id) DC_HIDDEN;
extern struct dc_module *dc_modules DC_HIDDEN;
/* the module __dyncall_register is writing (not yet in dc_modules) */
extern const struct dc_module *dc_registering DC_HIDDEN;

/* --- segments.c: executable segments of loaded objects --- */
struct dl_phdr_info;
void dc_segs_read(const struct dl_phdr_info *info, struct dc_segs *s)
	DC_HIDDEN;
/* [lo, hi) inside one segment (paged: inside its pages) */
bool dc_segs_contain(const struct dc_segs *s, uintptr_t lo, uintptr_t hi,
		     bool paged) DC_HIDDEN;
/* the segments and path of the object that maps addr; false: none */
bool dc_segs_of(const void *addr, struct dc_segs *s, const char **path)
	DC_HIDDEN;
bool dc_in_exec(const struct dc_module *m, uintptr_t lo, uintptr_t hi)
	DC_HIDDEN;
/* [lo, hi) in the pages of one executable segment of a known module */
bool dc_same_segment(uintptr_t lo, uintptr_t hi) DC_HIDDEN;

/* --- patch.c: batched branch writes --- */
struct dc_bent {               /* one queued branch write               */
	struct dc_point *p;
	uintptr_t at;           /* p->addr                                */
	uintptr_t cur;          /* p->cur when queued                     */
	uintptr_t want;         /* destination to write                   */
	uint8_t op;
	uint8_t cur_kind;
	uint8_t want_kind;
	uint8_t nsteps;         /* planned steps                          */
	uint8_t writer;         /* patch.c: how it is written             */
};
#define DC_BATCH_INLINE 16
struct dc_batch {
	struct dc_bent *e;      /* ent[] or a larger buffer              */
	unsigned n, cap;
	int status;             /* first failure                          */
	unsigned direct_left;   /* DIRECT points that could not be moved  */
	bool unshared;          /* only points no other thread can be
				 * running yet: no sync after the batch
				 * (registration, fast paths off)        */
	uint64_t skipped;       /* statistics, added once per run         */
	struct dc_bent ent[DC_BATCH_INLINE];
};
void dc_batch_add(struct dc_batch *b, struct dc_point *p, uintptr_t want,
		  int want_kind) DC_HIDDEN;
int dc_batch_run(struct dc_batch *b) DC_HIDDEN;
int dc_sync_cores(void) DC_HIDDEN;
/* sort.c: in-place heapsort of n elements of size bytes by lt (no malloc) */
void dc_sort(void *base, size_t n, size_t size,
	     bool (*lt)(const void *, const void *)) DC_HIDDEN;
int dc_text_write(uintptr_t addr, const void *bytes, size_t len) DC_HIDDEN;
struct arch_step;
size_t dc_text_steps(const struct arch_step *s, size_t n, bool *ok) DC_HIDDEN;

/* --- prologue.c: function-entry patching --- */
bool dc_fentry_same_segment(uintptr_t lo, uintptr_t hi) DC_HIDDEN;
void dc_text_begin(void) DC_HIDDEN;
void dc_text_end(void) DC_HIDDEN;
/* Text writers (patch.c, docs/runtime.md "Never writable and executable"):
 * memfd alias, /proc/self/mem, mprotect RWX as the last resort. */
enum { DC_WRITE_ALIAS = 1, DC_WRITE_MEM = 2, DC_WRITE_PROT = 4 };
void dc_text_init(unsigned allowed) DC_HIDDEN;
void dc_text_forked(void) DC_HIDDEN;
void dc_text_forget(uintptr_t lo, uintptr_t hi) DC_HIDDEN;
/* Fresh code memory written through an alias from the start (patch.c):
 * [at, at + len), mapped already, becomes R-X from a new memfd with its
 * RW view registered; 0 or an error (the mapping is then unchanged). */
int dc_text_code_map(uintptr_t at, size_t len) DC_HIDDEN;
/* Make the pages of [lo, hi) of such memory present in both views. */
void dc_text_prefault(uintptr_t lo, uintptr_t hi) DC_HIDDEN;
/* The writers DYNCALL_TEXT_WRITE allows (DC_WRITE_*). */
unsigned dc_text_writers(void) DC_HIDDEN;

/* --- code_pool.c: memory for function-entry patching's generated code --- */
/* A block of size bytes within 1 GiB of near (0: anywhere); 0 if none. */
uintptr_t dc_pool_get(size_t size, uintptr_t near) DC_HIDDEN;
/* Give back the tail of the block just taken: it needs only len bytes. */
void dc_pool_trim(uintptr_t at, size_t size, size_t len) DC_HIDDEN;
/* Write the block just taken at `at`; 0 or a status. */
int dc_pool_write(uintptr_t at, const void *bytes, size_t len) DC_HIDDEN;
/* [lo, hi) lies in one chunk the text writers may alias. */
bool dc_pool_alias_chunk(uintptr_t lo, uintptr_t hi) DC_HIDDEN;
/* A batch generating many blocks: they go to fresh pages, made R-X by
 * dc_pool_bulk_end (false: some were refused, dc_pool_bulk_refused). */
void dc_pool_bulk_begin(void) DC_HIDDEN;
bool dc_pool_bulk_end(void) DC_HIDDEN;
bool dc_pool_bulk_refused(uintptr_t at) DC_HIDDEN;
uintptr_t dc_pool_chunk(uintptr_t at) DC_HIDDEN;

/* --- stubs.c: executable memory near the sites --- */
enum dc_stub_flavor {
	DC_FLAVOR_RETPOLINE = 1 << 0, /* never an indirect branch          */
};
/* A guard stub comparing tg[0..n) in order (n <= ARCH_MAX_TARGETS); on a
 * miss the slow path, or with miss_entry dc_miss(site) first.  0: none
 * (no memory near the sites, or n == 0 without miss_entry). */
uintptr_t dc_guard_stub(uintptr_t near_lo, uintptr_t near_hi,
			const uintptr_t *tg, unsigned n, unsigned flavor,
			bool miss_entry, const struct dc_site *site) DC_HIDDEN;
uintptr_t dc_far_stub(uintptr_t near_lo, uintptr_t near_hi,
		      uintptr_t target, unsigned flavor) DC_HIDDEN;
int dc_disc_thunks(struct dc_module *m) DC_HIDDEN;
uintptr_t dc_disc_thunk_one(struct dc_site *s) DC_HIDDEN;
uintptr_t dc_code_near(uintptr_t lo, uintptr_t hi, size_t size,
		       int *why) DC_HIDDEN;
bool dc_is_stub(uintptr_t addr) DC_HIDDEN;
/* The stub region addr is in (its base), or 0 (unwind.c keeps the unwind
 * information of each region's hook-list jump functions apart). */
uintptr_t dc_stub_region(uintptr_t addr) DC_HIDDEN;
void dc_stub_forget_site(const struct dc_site *site) DC_HIDDEN;
extern bool dc_stubs_dirty DC_HIDDEN; /* written since the last sync */

/* --- state.c: what a site should look like, the store protocol --- */
void dc_site_plan(struct dc_batch *b, struct dc_site *s) DC_HIDDEN;
void dc_inline_set(struct dc_site *p, uintptr_t target) DC_HIDDEN;
void dc_site_plan_slow(struct dc_batch *b, struct dc_site *s, bool all)
	DC_HIDDEN;
bool dc_site_resolved_keep(const struct dc_site *s) DC_HIDDEN;
bool dc_point_keeps_link(const struct dc_site *s, const struct dc_point *p)
	DC_HIDDEN;
int dc_keys_update(struct dc_key **keys, void *const *values, size_t n)
	DC_HIDDEN;
int dc_site_state(const struct dc_site *s) DC_HIDDEN;
uintptr_t dc_key_load(const struct dc_key *k) DC_HIDDEN;

/* --- learn.c: sites that learn their targets from their misses --- */
struct dc_learn_config {
	bool on;            /* DYNCALL_LEARN                              */
	unsigned targets;   /* DYNCALL_LEARN_TARGETS: 1..DC_MAX_TARGETS   */
	unsigned period;    /* DYNCALL_LEARN_PERIOD: sample 1 miss in P   */
	unsigned window;    /* DYNCALL_LEARN_WINDOW: samples to specialise */
	unsigned retargets; /* DYNCALL_LEARN_RETARGETS: then megamorphic  */
	/* DYNCALL_TEST_INLINE_DELAY_US: a test knob, a sleep between the
	 * writes of an inline guard and its literal store (state.c) that
	 * widens the window a broken protocol would lose a call in */
	unsigned inline_delay_us;
};
extern struct dc_learn_config dc_learn_cfg DC_HIDDEN;
void dc_learn_init(void) DC_HIDDEN;
void dc_learn_site_init(struct dc_site *s) DC_HIDDEN;
unsigned dc_learn_targets(const struct dc_site *s, uintptr_t v,
			  uintptr_t *tg, bool *miss_entry) DC_HIDDEN;

/* --- landing.c: never bypass an IBT/BTI landing-pad check --- */
bool dc_landing_pad_ok(const struct dc_site *s, uintptr_t target) DC_HIDDEN;

/* --- report.c: DYNCALL_STATS=1 --- */
void dc_report_at_exit(void) DC_HIDDEN;
void dc_report_retire(const struct dc_module *m) DC_HIDDEN;

/* --- check.c --- */
void dc_check_miss(struct dc_site *s, uintptr_t ret, uintptr_t loaded)
	DC_HIDDEN;

/* --- discovery.c / learn.c, called from arch assembly --- */
/* loaded: the static chain, read only for a conditional site;
 * returns the slow path's flavor, 2 = return without a call (x86_64.S,
 * aarch64.S). */
int dc_discover(struct dc_site *s, uintptr_t ret, uintptr_t loaded) DC_HIDDEN;
#define DC_GO_RETURN 2
int dc_miss(const uintptr_t *site_lit, uintptr_t ret, uintptr_t loaded)
	DC_HIDDEN;

#endif /* DYNCALL_INTERNAL_H */
