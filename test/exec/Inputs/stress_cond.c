/*
 * The threads-cond-site-* stress tests: THREADS threads run conditional
 * sites (`if (hook) hook(x)`) of `hook` in a tight loop while a writer
 * thread stores argv[1] values into it, NULL and targets alternating.
 *
 * Store number s (s = 0: the initial value) puts value(s) in the key:
 * NULL when s % K is 0 or K / 2, else target t_(s % K).  Two stores in a
 * row never store the same value.  The writer brackets store s with
 * `epoch` = 2s - 1 before it and 2s after it.  A call of `fire()` is judged
 * against the window of stores lo..hi whose values the key may have held
 * while the site ran:
 *   lo = e0 / 2, e0 read before the call;
 *   hi = e1 / 2 rounded up, e1 read after the call -- and, when e1 is odd
 *        (store s = (e1 + 1) / 2 in progress), the key read right after e1
 *        still holds value(s - 1) and the epoch did not move, store s was
 *        not visible yet: hi = s - 1.
 * Checks, per call:
 *   - missed: nothing ran, but every store of the window stored a target;
 *   - stray:  t_i ran, but no store of the window stored t_i -- judged at
 *             t_i's entry, with hi taken there (so a target that runs
 *             before the store that makes it the key's value is caught);
 *   - doubled: more than one target ran for one call.
 * A window of K - 1 or more stores allows everything: counted as
 * unchecked.  Every target also counts its calls; at the end the counts
 * must equal the calls the callers saw (no call from anywhere else).
 * The `loaded` site is guarded (the pointer it loaded is used after the
 * call): exactly the pointer loaded runs, nothing when it was NULL.
 *
 * -DSTRESS_ESCAPE publishes &hook (every site guarded) and does every
 * other store through it, unseen by the runtime.
 *
 * argv[2], optional: the callers yield the CPU every that many rounds
 * (under qemu-user on a busy host the writer crawls otherwise).
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define K 8
#define THREADS 4

typedef void (*hook_t)(int);

static _Atomic long epoch;
static _Atomic int writer_done;
static _Atomic long failures, unchecked, checked_call, checked_none,
	exact_checked;
static _Atomic long target_calls[K], seen_calls[K];

static _Thread_local long cur_e0;  /* e0 of the call in progress */
static _Thread_local int ran, runs; /* what ran during that call  */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&failures, 1) < 5) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

static void target(int i);
#define T(i) \
	static void t##i(int x) { (void)x; target(i); }
T(1) T(2) T(3) T(5) T(6) T(7)
static hook_t const values[K] = { NULL, t1, t2, t3, NULL, t5, t6, t7 };

hook_t DYNCALL hook; /* store 0: NULL */

#ifdef STRESS_ESCAPE
hook_t *volatile hook_addr = &hook;
#endif

static hook_t value(long s) { return values[s % K]; }

/* hi of a window ending now (the rule above) */
static long window_hi(void)
{
	long e = atomic_load(&epoch);
	hook_t k = atomic_load((_Atomic hook_t *)&hook);
	long s = (e + 1) / 2;

	if ((e & 1) && k == value(s - 1) && atomic_load(&epoch) == e)
		return s - 1;
	return s;
}

/* May outcome i (0: nothing ran) come from a store in lo..hi? */
static int allowed(long lo, long hi, int i, int *checked)
{
	*checked = hi - lo < K - 1;
	if (!*checked)
		return 1;
	for (long s = lo; s <= hi; s++)
		if ((long)(s % K) == i || (i == 0 && !value(s)))
			return 1;
	return 0;
}

static void target(int i)
{
	long lo = cur_e0 / 2, hi = window_hi();
	int checked;

	atomic_fetch_add_explicit(&target_calls[i], 1, memory_order_relaxed);
	ran = i;
	runs++;
	if (!allowed(lo, hi, i, &checked))
		fail("stray call: t%d ran, key held stores %ld..%ld only", i,
		     lo, hi);
}

/* Conditional sites (fresh: direct, or a NOP while NULL). */
__attribute__((noinline)) static void fire_if(int x)
{
	if (hook)
		hook(x);
}

__attribute__((noinline)) static void fire_early(int x)
{
	if (!hook)
		return;
	hook(x);
}

/* A guarded conditional site: the loaded pointer is used after the call. */
__attribute__((noinline)) static void fire_loaded(int x, hook_t *loaded)
{
	hook_t f = hook;

	if (f)
		f(x);
	*loaded = f;
}

static int index_of(hook_t f)
{
	if (!f)
		return 0;
	for (int i = 1; i < K; i++)
		if (values[i] == f)
			return i;
	return 0;
}

static void judge(long e0)
{
	long lo = e0 / 2, hi = window_hi();
	int checked;

	if (runs > 1)
		fail("doubled call: %d targets ran for one call (last t%d)",
		     runs, ran);
	if (runs)
		atomic_fetch_add_explicit(&seen_calls[ran], 1,
					  memory_order_relaxed);
	if (!allowed(lo, hi, runs ? ran : 0, &checked) && !runs)
		fail("missed call: nothing ran, key held targets only in stores "
		     "%ld..%ld", lo, hi);
	if (!checked)
		atomic_fetch_add_explicit(&unchecked, 1, memory_order_relaxed);
	else if (runs)
		atomic_fetch_add_explicit(&checked_call, 1,
					  memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&checked_none, 1,
					  memory_order_relaxed);
}

static long yield_every; /* argv[2]: 0, never */

static void *caller(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&writer_done, memory_order_acquire) ||
	       n < 1000) {
		hook_t loaded;

		for (int site = 0; site < 3; site++) {
			ran = runs = 0;
			cur_e0 = atomic_load(&epoch);
			if (site == 0)
				fire_if((int)n);
			else if (site == 1)
				fire_early((int)n);
			else
				fire_loaded((int)n, &loaded);
			judge(cur_e0);
		}
		if (index_of(loaded) != (runs ? ran : 0))
			fail("inexact call: t%d ran, t%d loaded",
			     runs ? ran : 0, index_of(loaded));
		else
			atomic_fetch_add_explicit(&exact_checked, 1,
						  memory_order_relaxed);
		n++;
		if (yield_every && n % yield_every == 0)
			sched_yield();
	}
	return NULL;
}

static void *writer(void *arg)
{
	long stores = *(long *)arg;

	/* (one more store when the last one was NULL: the callers' last
	 * rounds, after the storm, make calls) */
	if (!value(stores))
		stores++;
	for (long s = 1; s <= stores; s++) {
		atomic_store(&epoch, 2 * s - 1);
#ifdef STRESS_ESCAPE
		if (s & 1)
			*hook_addr = value(s); /* unseen, but guarded */
		else
			hook = value(s);
#else
		hook = value(s);
#endif
		atomic_store(&epoch, 2 * s);
	}
	atomic_store_explicit(&writer_done, 1, memory_order_release);
	return NULL;
}

int main(int argc, char **argv)
{
	long stores = argc > 1 ? atol(argv[1]) : 100000;
	yield_every = argc > 2 ? atol(argv[2]) : 0;
	pthread_t w, c[THREADS];
	long mismatched = 0;

	/* Discovered and patched before the storm starts. */
	fire_if(0);
	fire_early(0);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&c[i], NULL, caller, NULL);
	pthread_create(&w, NULL, writer, &stores);
	pthread_join(w, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(c[i], NULL);

	for (int i = 0; i < K; i++)
		mismatched += atomic_load(&target_calls[i]) !=
			      atomic_load(&seen_calls[i]);
	long cc = atomic_load(&checked_call), cn = atomic_load(&checked_none);
	long un = atomic_load(&unchecked);
	printf("stores %ld failures %ld\n", stores,
	       (long)atomic_load(&failures));
	printf("per-target counts %s\n", mismatched ? "differ" : "agree");
	/* Nearly every call had a narrow enough window to be checked (how
	 * many were made and how many skipped depends on the timing: stderr
	 * only). */
	printf("checked %s\n",
	       cc + cn >= 8000 && un * 10 <= cc + cn ? "enough" : "too few");
	printf("exact %s\n",
	       atomic_load(&exact_checked) >= 4000 ? "enough" : "too few");
	fprintf(stderr, "checked: %ld calls, %ld skips; unchecked %ld; exact %ld\n",
		cc, cn, un, (long)atomic_load(&exact_checked));
#ifdef STRESS_ESCAPE
#ifdef WITH_DYNCALL
	dyncall_update(&hook); /* the last store may have been unseen */
#endif
#endif
	return atomic_load(&failures) != 0 || mismatched;
}
