/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Update latency of a key store (__dyncall_store alternating two targets),
 * wall clock per update, median and p90 over many updates, for keys with
 * 1, 100 and 10,000 sites:
 *   direct   FRESH sites of a key no module lets escape (the store
 *            protocol: safe state, membarrier, store, direct);
 *   guarded  the same sites of a key that escapes (guard stubs: no
 *            membarrier at all);
 *   busy     the direct keys again while another thread calls one of the
 *            key's sites in a loop: the membarrier and the TLB shootdown
 *            of restoring R-X then interrupt a running core (IPIs, very
 *            expensive under KVM).
 * Goals (issue 2): 1 site <= 20 us, 10,000 sites <= 5 ms per update.  The
 * goal column compares the wall-clock median.  "cpu med" is the median
 * thread CPU time of an update (user + kernel): on a shared machine it
 * shows what the wall clock would be without preemption.  Every site is a call instruction + a
 * trampoline, so an update writes 4 branches per site (2 points, safe
 * state then final state).
 *
 *   ninja -C build bench-update-latency && build/bin/bench-update-latency
 *   build/bin/bench-update-latency 5     # 5x more updates
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dyncall.h"
#include "dyncall_test.h"

long bench_a(long a, long b) { return a + b; }
long bench_b(long a, long b) { return a * b; }
void *key1 = (void *)bench_a, *key100 = (void *)bench_a,
     *key10000 = (void *)bench_a;
void *gkey1 = (void *)bench_a, *gkey100 = (void *)bench_a,
     *gkey10000 = (void *)bench_a;
long key1_site(long, long), key100_site(long, long),
	key10000_site(long, long);

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static _Atomic int stop;
static _Atomic long busy_calls;
static volatile long sink;

static void *caller(void *arg)
{
	long (*site)(long, long) = (long (*)(long, long))arg;
	long n = 0, sum = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		sum += site(n, 3);
		n++;
	}
	sink = sum;
	atomic_fetch_add(&busy_calls, n);
	return NULL;
}

static void bench(const char *label, void **key, int iters,
		  long (*busy)(long, long))
{
	struct dyncall_key_info ki;
	struct dyncall_stats s0, s1;
	double *lat = malloc(iters * sizeof(*lat)), goal = 0;
	double *cpu = malloc(iters * sizeof(*cpu));
	pthread_t th;

	if (!lat || !cpu)
		exit(1);
	if (busy) {
		atomic_store(&stop, 0);
		pthread_create(&th, NULL, caller, (void *)busy);
	}
	for (int i = 0; i < 4; i++) /* warm up: stubs, pages, caches */
		__dyncall_store(key, i & 1 ? (void *)bench_a : (void *)bench_b);
	dyncall_get_stats(&s0);
	for (int i = 0; i < iters; i++) {
		double c0 = cpu_us(), t0 = now_us();

		__dyncall_store(key, i & 1 ? (void *)bench_a : (void *)bench_b);
		lat[i] = now_us() - t0;
		cpu[i] = cpu_us() - c0;
	}
	dyncall_get_stats(&s1);
	if (busy) {
		atomic_store(&stop, 1);
		pthread_join(th, NULL);
	}
	dyncall_key_info(key, &ki);
	qsort(lat, iters, sizeof(*lat), cmp_double);
	qsort(cpu, iters, sizeof(*cpu), cmp_double);
	if (!busy && ki.ndirect && ki.nsites == 1)
		goal = 20;
	if (!busy && ki.ndirect && ki.nsites == 10000)
		goal = 5000;
	printf("%-8s %6u  %-8s %10.1f %10.1f %10.1f %7.1f %8.0f", label,
	       ki.nsites,
	       ki.ndirect ? "direct" : ki.nguarded ? "guarded" : "slow",
	       lat[iters / 2], lat[iters * 9 / 10], cpu[iters / 2],
	       (double)(s1.membarriers - s0.membarriers) / iters,
	       (double)(s1.patches - s0.patches) / iters);
	if (goal)
		printf("   <= %.0f us: %s", goal,
		       lat[iters / 2] <= goal ? "met" : "MISSED");
	printf("\n");
	free(lat);
	free(cpu);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;

	if (scale < 1)
		scale = 1;
	if (dyncall_status())
		printf("fast paths off: %s\n", dyncall_status_string());
	printf("%-8s %6s  %-8s %10s %10s %10s %7s %8s   %s\n", "", "sites",
	       "state", "median us", "p90 us", "cpu med us", "membar",
	       "writes", "goal (median)");
	bench("direct", &key1, 5000 * scale, NULL);
	bench("direct", &key100, 2000 * scale, NULL);
	bench("direct", &key10000, 100 * scale, NULL);
	bench("guarded", &gkey1, 5000 * scale, NULL);
	bench("guarded", &gkey100, 2000 * scale, NULL);
	bench("guarded", &gkey10000, 100 * scale, NULL);
	bench("busy", &key1, 2000 * scale, key1_site);
	bench("busy", &key100, 1000 * scale, key100_site);
	bench("busy", &key10000, 50 * scale, key10000_site);
	printf("(busy: another thread calls the key's first site meanwhile, "
	       "%ld calls)\n", (long)atomic_load(&busy_calls));
	return 0;
}
