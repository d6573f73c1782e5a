/*
 * The threads-retarget-* stress tests: THREADS threads call through
 * plugin-compiled sites of `key` in a tight loop while a writer thread
 * retargets it argv[1] times.  Every call is checked:
 *
 *  - window check (every site): target t_i returns i.  The writer's store
 *    number s puts targets[s % K] in the key (s = 0: the initial value) and
 *    is bracketed by `epoch` = 2s - 1 before it and 2s after it (and, with
 *    -DSTRESS_UNSEEN, after its dyncall_update).  A caller reads e0 before
 *    its call and e1 after it; the key held only values of stores
 *    lo = e0 / 2 .. hi = (e1 + 1) / 2 meanwhile, so the target that ran
 *    must be one of those: any other is a stray call.  (A window of K or
 *    more stores allows every target: counted as unchecked.)
 *  - exact check (the `loaded` site, guarded: the loaded pointer is used
 *    after the call): the target that ran is the pointer the caller loaded.
 *
 * -DSTRESS_ESCAPE publishes &key (every site guarded).  -DSTRESS_UNSEEN
 * stores through Inputs/stress_plain_store.c, built without the plugin,
 * then calls dyncall_update(&key) (the documented contract for such
 * stores; the fresh sites are direct and call the previous target until
 * then, which the window allows).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define K 8
#define THREADS 4

typedef int (*fp_t)(int);

#define T(i) \
	static int t##i(int x) { return i + (x & 0); }
T(0) T(1) T(2) T(3) T(4) T(5) T(6) T(7)
static fp_t const targets[K] = { t0, t1, t2, t3, t4, t5, t6, t7 };

fp_t DYNCALL key = t0;

#ifdef STRESS_ESCAPE
fp_t *volatile key_addr = &key;
#endif
#ifdef STRESS_UNSEEN
void plain_store(fp_t value); /* stress_plain_store.c, no plugin */
#endif

static _Atomic long epoch;
static _Atomic int writer_done;
static _Atomic long failures, unchecked, checked, exact_checked;

/* A fresh site (guarded under STRESS_ESCAPE). */
__attribute__((noinline)) static int call_key(int x) { return key(x); }

/* A guarded site: the loaded pointer is used again after the call. */
__attribute__((noinline)) static int call_loaded(int x, fp_t *loaded)
{
	fp_t f = key;
	int r = f(x);

	*loaded = f;
	return r;
}

static int index_of(fp_t f)
{
	for (int i = 0; i < K; i++)
		if (targets[i] == f)
			return i;
	return -1;
}

static void window_check(long e0, long e1, int ran)
{
	long lo = e0 / 2, hi = (e1 + 1) / 2;

	if (hi - lo >= K - 1) {
		atomic_fetch_add_explicit(&unchecked, 1, memory_order_relaxed);
		return;
	}
	for (long s = lo; s <= hi; s++)
		if (s % K == ran) {
			atomic_fetch_add_explicit(&checked, 1,
						  memory_order_relaxed);
			return;
		}
	if (atomic_fetch_add(&failures, 1) < 5)
		fprintf(stderr, "stray call: t%d ran, key held stores %ld..%ld\n",
			ran, lo, hi);
}

static void *caller(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&writer_done, memory_order_acquire) ||
	       n < 1000) {
		long e0 = atomic_load(&epoch);
		int r = call_key((int)n);
		long e1 = atomic_load(&epoch);

		window_check(e0, e1, r);

		fp_t loaded;
		e0 = atomic_load(&epoch);
		r = call_loaded((int)n, &loaded);
		e1 = atomic_load(&epoch);
		if (index_of(loaded) != r) {
			if (atomic_fetch_add(&failures, 1) < 5)
				fprintf(stderr, "stray call: t%d ran, t%d loaded\n",
					r, index_of(loaded));
		} else {
			atomic_fetch_add_explicit(&exact_checked, 1,
						  memory_order_relaxed);
		}
		window_check(e0, e1, r);
		n++;
	}
	return NULL;
}

static void *writer(void *arg)
{
	long stores = *(long *)arg;

	for (long s = 1; s <= stores; s++) {
		atomic_store(&epoch, 2 * s - 1);
#if defined(STRESS_UNSEEN)
		plain_store(targets[s % K]);
#ifdef WITH_DYNCALL
		dyncall_update(&key);
#endif
#elif defined(STRESS_ESCAPE)
		if (s & 1)
			*key_addr = targets[s % K]; /* unseen, but guarded */
		else
			key = targets[s % K];
#else
		key = targets[s % K];
#endif
		atomic_store(&epoch, 2 * s);
	}
	atomic_store_explicit(&writer_done, 1, memory_order_release);
	return NULL;
}

int main(int argc, char **argv)
{
	long stores = argc > 1 ? atol(argv[1]) : 100000;
	pthread_t w, c[THREADS];

	/* Patched before the storm starts: the callers begin on fast paths. */
	call_key(0);
	call_key(0);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&c[i], NULL, caller, NULL);
	pthread_create(&w, NULL, writer, &stores);
	pthread_join(w, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(c[i], NULL);

	long ch = atomic_load(&checked), un = atomic_load(&unchecked);
	printf("stores %ld failures %ld\n", stores, (long)atomic_load(&failures));
	/* Nearly every call had a narrow enough window to be checked. */
	printf("checked %s\n", ch >= 8000 && un * 10 <= ch ? "enough" : "too few");
	printf("exact %s\n", atomic_load(&exact_checked) >= 4000 ? "enough" : "too few");
	fprintf(stderr, "checked %ld unchecked %ld exact %ld\n", ch, un,
		(long)atomic_load(&exact_checked));
	/* The key's final value; every site patched for it. */
#ifdef STRESS_ESCAPE
#ifdef WITH_DYNCALL
	dyncall_update(&key); /* the last store may have been unseen */
#endif
	EXPECT_KEY(key, 2, DYNCALL_STATE_GUARDED, 2);
#else
	EXPECT_KEY(key, 2, DYNCALL_STATE_DIRECT, 1);
#endif
	return atomic_load(&failures) != 0;
}
