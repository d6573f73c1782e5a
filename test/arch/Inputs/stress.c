/* 4 threads call through two keys while the main thread retargets both
 * with plain C stores N times (the plugin turns them into
 * __dyncall_store).  Every call is checked:
 *   `op` (a FRESH site, patched direct): the target that ran must be
 *     targets[j % K] for some j the key held between the caller's read of
 *     `done` before the call and `started` read by the target;
 *   `gop` (its address escapes: guarded site): the target that ran must be
 *     exactly the pointer the caller loaded (passed as an argument).
 * Prints the number of failures and the final site states.
 *
 * `stress N learn MIN`: gop changes among 2..6 targets in phases of 512
 * stores, 7 in 8 of them plain stores the runtime does not see (code built
 * without the plugin), so its guarded site misses, learns and is
 * re-specialised (a new stub, one branch write) while the threads call;
 * the stores go on past N until the runtime re-specialised sites MIN times
 * (progress, not time: a runtime that never learns fails at 20 N). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

#define K 4
#define THREADS 4

static _Atomic long started, done;
static _Atomic long failures, gfailures, calls;
static _Atomic int stop;

static void check_range(int id, long lo)
{
	long hi = atomic_load(&started);

	/* op holds targets[m % K] after store m (m odd), until m + 2. */
	for (long j = lo; j <= hi; j++) {
		long m = j & 1 ? j : j - 1;
		if ((m < 0 ? 0 : m % K) == id)
			return;
	}
	atomic_fetch_add(&failures, 1);
}

#define TARGET(n)                                                             \
	__attribute__((noinline)) static long t##n(long lo, void *loaded)     \
	{                                                                    \
		if (loaded && loaded != (void *)t##n)                        \
			atomic_fetch_add(&gfailures, 1);                     \
		if (!loaded)                                                 \
			check_range(n, lo);                                  \
		return n;                                                    \
	}
TARGET(0)
TARGET(1)
TARGET(2)
TARGET(3)
TARGET(4)
TARGET(5)
static long (*const targets[K])(long, void *) = { t0, t1, t2, t3 };
static long (*const ltargets[6])(long, void *) = { t0, t1, t2, t3, t4, t5 };

long (*DYNCALL op)(long, void *) = t0;
long (*DYNCALL gop)(long, void *) = t0;

__attribute__((noinline)) void escape(void *volatile *p) { (void)p; }

/* Code built without the plugin: a store the runtime does not see. */
__attribute__((noinline)) void legacy_store(void *volatile *p, void *v)
{
	*p = v;
}

static long learned(void)
{
	struct dyncall_stats st;

	dyncall_get_stats(&st);
	return (long)st.learned;
}

static void *caller(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long lo = atomic_load(&done);
		/* qemu-user translates code in blocks: a thread descheduled
		 * inside a block that both reads `done` and branches through
		 * the site may run a branch the writer already replaced (real
		 * cores refetch after the membarrier; qemu does not re-check a
		 * block it is inside).  A context synchronization here ends
		 * the block in qemu and is harmless on hardware. */
#if defined(__aarch64__)
		__asm__ volatile("isb" ::: "memory");
#elif defined(__powerpc64__)
		__asm__ volatile("isync" ::: "memory");
#endif
		op(lo, 0);
		long (*p)(long, void *) = gop;
		p(0, (void *)p);
		/* Under qemu on a small host, spinning callers starve the
		 * writer: yield now and then (calls still overlap stores). */
		if (!(atomic_fetch_add_explicit(&calls, 2,
						memory_order_relaxed) & 255))
			sched_yield();
	}
	return NULL;
}

static int state(const struct dyncall_site_info *si, void *arg)
{
	*(int *)arg = si->state;
	return 0;
}

static const char *sname(int s)
{
	return s == DYNCALL_STATE_DIRECT ? "direct" :
	       s == DYNCALL_STATE_GUARDED ? "guarded" : "slow";
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int learn = argc > 2 && !strcmp(argv[2], "learn");
	long min_learned = argc > 3 ? atol(argv[3]) : 0, i;
	pthread_t th[THREADS];
	int sd = -1, sg = -1;

	escape((void *volatile *)&gop);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	while (atomic_load(&calls) < 1000)
		;
	/* n retargets in all: op on odd i, gop on even i. */
	for (i = 1; i <= n || (learn && i <= 20 * n &&
			       ((i & 255) || learned() < min_learned));
	     i++) {
		atomic_store(&started, i);
		if (i & 1) {
			op = targets[i % K];
		} else if (!learn) {
			gop = targets[i % K];
		} else {
			long ph = i / 1024, j = i / 2;
			long (*t)(long, void *) =
				ltargets[(3 * ph + j % (2 + ph % 5)) % 6];

			if (j % 8 == 0)
				gop = t;
			else
				legacy_store((void *volatile *)&gop, (void *)t);
		}
		atomic_store(&done, i);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	dyncall_foreach_site((const void *)&op, state, &sd);
	dyncall_foreach_site((const void *)&gop, state, &sg);
	if (learn) {
		printf("learned>=%ld=%s ", min_learned,
		       learned() >= min_learned ? "yes" : "no");
		fprintf(stderr, "learned=%ld\n", learned());
	}
	printf("retargets=%ld calls=%ld failures: direct=%ld guarded=%ld "
	       "op=%s gop=%s status=%s\n",
	       learn ? i - 1 : n, atomic_load(&calls), atomic_load(&failures),
	       atomic_load(&gfailures), sname(sd), sname(sg),
	       dyncall_status_string());
	return atomic_load(&failures) + atomic_load(&gfailures) != 0;
}
