/* Per-call cost under qemu-user (aarch64, ppc64le): direct call, dyncall
 * site (direct state), dyncall site of an escaped key (guarded), plain
 * indirect call; then the update latency of a key with 1 site.  Absolute
 * numbers under qemu mean little (TCG translates each guest block into
 * host code): read the ratios, and the instruction counts per call in
 * docs/arches.md.  Built and run by bench/arch_call_cost.sh. */
#include <stdio.h>
#include <time.h>

#include <dyncall.h>

#define N 20000000L
#define STORES 2000

static volatile long sink;
__attribute__((noinline)) long f(long x) { sink = x; return x + 1; }
__attribute__((noinline)) long g(long x) { sink = x; return x + 2; }

long (*DYNCALL key)(long) = f;  /* FRESH, never escapes: direct */
long (*DYNCALL gkey)(long) = f; /* escapes: guarded */
long (*volatile plain)(long) = f;

__attribute__((noinline)) void escape(void *volatile *p) { (void)p; }

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

#define LOOP(name, call)                                                      \
	__attribute__((noinline)) static double name(void)                    \
	{                                                                    \
		long s = 0;                                                  \
		double t = now();                                            \
		for (long i = 0; i < N; i++)                                 \
			s += call;                                           \
		t = now() - t;                                               \
		sink = s;                                                    \
		return t / N;                                                \
	}
LOOP(run_direct, f(i))
LOOP(run_dyncall, key(i))
LOOP(run_guarded, gkey(i))
LOOP(run_indirect, plain(i))

int main(void)
{
	double d, k, gk, p, t;

	escape((void *volatile *)&gkey);
	key(0);
	gkey(0); /* discovery (aarch64) before timing */
	d = run_direct();
	k = run_dyncall();
	gk = run_guarded();
	p = run_indirect();
	printf("%-22s %8.2f ns/call  %5.2fx direct\n", "direct", d, 1.0);
	printf("%-22s %8.2f ns/call  %5.2fx direct\n", "dyncall (direct)", k,
	       k / d);
	printf("%-22s %8.2f ns/call  %5.2fx direct\n", "dyncall (guarded)", gk,
	       gk / d);
	printf("%-22s %8.2f ns/call  %5.2fx direct\n", "plain indirect", p,
	       p / d);
	t = now();
	for (int i = 0; i < STORES; i++)
		key = i & 1 ? f : g;
	t = now() - t;
	printf("%-22s %8.1f us/store (1 site, qemu)\n", "update latency",
	       t / STORES / 1e3);
	return 0;
}
