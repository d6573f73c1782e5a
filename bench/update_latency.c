/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Update latency of a key store (__dyncall_store: undo direct sites, sync,
 * store, repatch, sync) for keys with 1, 100 and 10,000 direct sites, plus
 * a guarded key (dyncall_update after an escape) for comparison.
 * Goals: 1 site <= 20 us, 10,000 sites <= 5 ms per update.
 *
 *   ninja -C build bench-update-latency && build/bin/bench-update-latency
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dyncall.h"
#include "dyncall_test.h"

long bench_a(long a, long b) { return a + b; }
long bench_b(long a, long b) { return a * b; }
void *key1 = (void *)bench_a, *key100 = (void *)bench_a,
     *key10000 = (void *)bench_a;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void bench(const char *name, void **key, int iters)
{
	struct dyncall_key_info ki;
	struct dyncall_stats s0, s1;
	double t0, t;

	dyncall_get_stats(&s0);
	t0 = now_us();
	for (int i = 0; i < iters; i++)
		__dyncall_store(key, i & 1 ? (void *)bench_a : (void *)bench_b);
	t = (now_us() - t0) / iters;
	dyncall_get_stats(&s1);
	dyncall_key_info(key, &ki);
	printf("%-9s sites=%-6u direct=%-6u %10.1f us/update  "
	       "(%.1f membarriers, %.0f writes per update)\n",
	       name, ki.nsites, ki.ndirect, t,
	       (double)(s1.membarriers - s0.membarriers) / iters,
	       (double)(s1.patches - s0.patches) / iters);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;

	if (dyncall_status())
		printf("fast paths off: %s\n", dyncall_status_string());
	bench("1", &key1, 2000 * scale);
	bench("100", &key100, 500 * scale);
	bench("10000", &key10000, 20 * scale);
	return 0;
}
