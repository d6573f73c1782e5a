// Checks that no call ever goes astray while 4 threads (and a signal handler) call through a guarded (escaped) key's site and a type key's site whose targets change among 2..6 handlers in phases, so that both sites are re-specialised (learning) many times under load, another thread stores to the escaped key, and the sites end megamorphic (second run).
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O2 -pthread %s -o %t %libdyncall_ldflags
// Many re-specialisations: every miss sampled, a window of 1 (doubling),
// up to 64 of them per site before it would be megamorphic.
// RUN: env DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=1 DYNCALL_LEARN_RETARGETS=64 %t 60 3 | FileCheck %s --check-prefix=LEARN
// LEARN: OK: failures=0 learned>=60=yes targets>=3=yes megamorphic={{[0-2]}} site_esc:mega={{[01]}} site_type:mega={{[01]}}
// The cut-off under load: 3 re-specialisations, then megamorphic (one
// compare + the plain slow path) while the threads keep calling.
// RUN: env DYNCALL_LEARN_PERIOD=2 DYNCALL_LEARN_WINDOW=2 DYNCALL_LEARN_RETARGETS=3 %t 8 0 | FileCheck %s --check-prefix=MEGA
// MEGA: OK: failures=0 learned>=8=yes targets>=0=yes megamorphic=2 site_esc:mega=1 site_type:mega=1
//
// The check.  Each site passes the pointer it loaded to the target (the
// asm copies %r10 to %rsi); every handler checks that it is exactly that
// pointer: a guard stub that jumps to a target other than the one it
// compared, a stub published before it is written, or a stale branch into
// a stub being replaced gives a stray call, and a single one fails.
//
// The load: phase p uses handlers set(p) (2..6 of h0..h5, changing every
// phase).  A writer thread stores set(p)'s handlers to the escaped key in
// turn with __dyncall_store (each store repatches the site: its stored
// value first, then what it learned); the main thread gives the objects of
// the type key set(p)'s handlers (the plugin's store + __dyncall_note) and
// signals the callers.  Both sites miss on the handlers they do not
// compare, sample the misses, and are re-specialised by whichever calling
// thread fills the window.  Phases go on until both the number of phases
// and the number of re-specialisations (stats.learned) reach the minimum
// given as argv[1] (no timing: only progress counts; a runtime that never
// learned would not finish, so there is an upper bound that fails).
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "dyncall_test.h"

#define NH 6
#define THREADS 4
#define NOBJ 12
#define CALLS_PER_PHASE 20000
#define MAX_PHASES 20000

struct obj {
	void *handler; /* an annotated field: a type key */
};

void *key_esc;

__asm__(".include \"dyncall_asm.inc\"\n"
	"	.data\n	.balign 16\n	.globl tkey\n"
	"tkey:	.quad 0, 0\n"
	"DC_KEYCELL tkey_cell, tkey\n"
	"DC_KEY_ENTRY tkey_cell, handler, DC_KTYPE\n"
	"DC_KEYCELL esc_cell, key_esc\n"
	"DC_KEY_ENTRY esc_cell, key_esc, DC_ESCAPES\n"
	/* long fname(struct obj *o) -> handler(o, loaded) */
	".macro LEARN_SITE fname, load, cell, flags\n"
	"	DC_TRAMP \\fname\\()_tramp\n"
	"	.text\n	.globl \\fname\n	.balign 16\n"
	"\\fname:\n"
	"	sub $8, %rsp\n"
	"	mov \\load, %r10\n"
	"	mov %r10, %rsi\n"
	"	.balign 8, 0x90\n	.skip 3, 0x90\n"
	"\\fname\\()_call:\n"
	"	.byte 0xe8\n	.long \\fname\\()_tramp - . - 4\n"
	"	add $8, %rsp\n	ret\n"
	"	DC_SITE_ENTRY \\fname\\()_call, \\fname\\()_tramp, \\cell, \\fname, DC_CALL, \\flags\n"
	".endm\n"
	"LEARN_SITE site_esc, key_esc(%rip), esc_cell, DC_FRESH\n"
	"LEARN_SITE site_type, (%rdi), tkey_cell, DC_FRESH|DC_TYPEKEY\n");

extern struct dyncall_type_key tkey;
void __dyncall_note(struct dyncall_type_key *tk, void *value);
long site_esc(struct obj *), site_type(struct obj *);
extern char site_esc_call[], site_type_call[];

static _Atomic long failures, calls, sig_calls;
static _Atomic int stop, phase;

#define H(n)                                                                 \
	long h##n(struct obj *o, void *loaded);                              \
	long h##n(struct obj *o, void *loaded)                               \
	{                                                                    \
		(void)o;                                                     \
		if (loaded != (void *)h##n &&                                \
		    atomic_fetch_add(&failures, 1) < 5)                      \
			fprintf(stderr, "FAIL: h" #n " ran, site loaded %p\n", \
				loaded);                                     \
		return n;                                                    \
	}
H(0)
H(1)
H(2)
H(3)
H(4)
H(5)
static void *const handlers[NH] = { h0, h1, h2, h3, h4, h5 };

/* Phase p's handlers: 2 + p % 5 of them (2..6), starting at 3p % 6. */
static unsigned set_size(int p)
{
	return 2 + (unsigned)p % 5;
}

static void *set_handler(int p, unsigned i)
{
	return handlers[(3 * (unsigned)p + i % set_size(p)) % NH];
}

static struct obj objs[NOBJ];

/* What the plugin emits for `o->handler = h;`. */
static void obj_store(struct obj *o, void *h)
{
	atomic_store_explicit((_Atomic(void *) *)&o->handler, h,
			      memory_order_relaxed);
	if (tkey.last != h)
		__dyncall_note(&tkey, h);
}

static void one_call(unsigned *seed)
{
	struct obj *o = &objs[rand_r(seed) % NOBJ];

	site_esc(o);
	site_type(o);
}

static void on_signal(int sig)
{
	unsigned seed = 12345;

	(void)sig;
	for (int i = 0; i < 4; i++)
		one_call(&seed);
	atomic_fetch_add(&sig_calls, 1);
}

static void *caller(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		one_call(&seed);
		/* 2 cores: spinning callers must not starve the writer */
		if (!(atomic_fetch_add_explicit(&calls, 1,
						memory_order_relaxed) & 255))
			sched_yield();
	}
	return NULL;
}

/* Stores to the escaped key: one in 8 through the runtime (it repatches
 * the site: the stored value first, then what the site learned), the
 * others plain stores the runtime does not see (code built without the
 * plugin, memcpy: legal for an escaped key, the guard keeps them correct),
 * which the site learns from its misses. */
static void *writer(void *arg)
{
	unsigned j = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		void *h = set_handler(atomic_load(&phase), j);

		if (j++ % 8 == 0)
			__dyncall_store(&key_esc, h);
		else
			atomic_store_explicit((_Atomic(void *) *)&key_esc, h,
					      memory_order_relaxed);
		for (int i = 0; i < 64; i++)
			__asm__ volatile("pause");
	}
	return NULL;
}

/* The most targets each site compared at the end of a phase. */
static unsigned max_targets[2];

static int watch_cb(const struct dyncall_site_info *si, void *arg)
{
	unsigned *m = arg;

	if (si->ntargets > *m)
		*m = si->ntargets;
	return 0;
}

static int site_cb(const struct dyncall_site_info *si, void *arg)
{
	(void)arg;
	printf(" %s:mega=%d", si->site == site_esc_call ? "site_esc" :
			      si->site == site_type_call ? "site_type" : "?",
	       si->megamorphic);
	fprintf(stderr, "  site %p: ntargets=%u megamorphic=%d\n", si->site,
		si->ntargets, si->megamorphic);
	return 0;
}

int main(int argc, char **argv)
{
	long min_learned = argc > 1 ? atol(argv[1]) : 60;
	unsigned min_targets = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	pthread_t th[THREADS], wr;
	struct dyncall_stats st;
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART };
	int p;

	for (int i = 0; i < NOBJ; i++)
		obj_store(&objs[i], set_handler(0, (unsigned)i));
	__dyncall_store(&key_esc, set_handler(0, 0));
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, caller, (void *)(uintptr_t)(i + 1));
	pthread_create(&wr, NULL, writer, NULL);
	for (p = 1; p < MAX_PHASES; p++) {
		long until = atomic_load(&calls) + CALLS_PER_PHASE;

		atomic_store(&phase, p);
		for (int i = 0; i < NOBJ; i++)
			obj_store(&objs[i], set_handler(p, (unsigned)i));
		pthread_kill(th[p % THREADS], SIGUSR1);
		while (atomic_load(&calls) < until)
			sched_yield();
		dyncall_foreach_site(&key_esc, watch_cb, &max_targets[0]);
		dyncall_foreach_site(&tkey, watch_cb, &max_targets[1]);
		dyncall_get_stats(&st);
		if (p >= 24 && (long)st.learned >= min_learned &&
		    max_targets[0] >= min_targets &&
		    max_targets[1] >= min_targets)
			break;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_join(wr, NULL);
	dyncall_get_stats(&st);
	fprintf(stderr,
		"phases=%d calls=%ld sig_calls=%ld samples=%lu learned=%lu "
		"megamorphic=%lu stores=%lu stubs=%lu max_targets=%u,%u\n",
		p, (long)calls, (long)sig_calls,
		(unsigned long)st.learn_samples, (unsigned long)st.learned,
		(unsigned long)st.megamorphic, (unsigned long)st.stores,
		(unsigned long)st.stubs, max_targets[0], max_targets[1]);
	printf("%s: failures=%ld learned>=%ld=%s targets>=%u=%s megamorphic=%lu",
	       failures || !sig_calls ? "FAILED" : "OK", (long)failures,
	       min_learned, (long)st.learned >= min_learned ? "yes" : "no",
	       min_targets,
	       max_targets[0] >= min_targets && max_targets[1] >= min_targets ?
		       "yes" : "no",
	       (unsigned long)st.megamorphic);
	dyncall_foreach_site(&key_esc, site_cb, NULL);
	dyncall_foreach_site(&tkey, site_cb, NULL);
	printf("\n");
	return failures || !sig_calls || (long)st.learned < min_learned;
}
