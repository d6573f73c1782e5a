/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * bench/learn_cost: ns per call of ONE call site whose target cycles over
 * N = 1..6 functions (objects o[i % 8] hold work0..work{N-1} round-robin),
 *   dyncall             a learned site: an annotated struct field (type
 *                       key), the stub compares up to DYNCALL_LEARN_TARGETS
 *   plain indirect      the same loop, no plugin, no -mretpoline
 *   retpoline indirect  the same loop, no plugin, -mretpoline
 * measured in this one process, interleaved, minimum of REPS runs.  Run it
 * with DYNCALL_LEARN_TARGETS=1,2,4 to see what K buys (learn_cost.bench.sh).
 * Usage: learn_cost [iters] [reps]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dyncall.h>

#include "learn_cost.h"

#ifndef BUILD_NAME
#define BUILD_NAME "?"
#endif

struct obj {
	work_fn fn DYNCALL;
	unsigned pad;
};
_Static_assert(sizeof(struct obj) == sizeof(struct plain_obj), "layout");

#define NOBJ 8
static struct obj objs[NOBJ];

__attribute__((noinline)) static unsigned loop_dyncall(const struct obj *o,
						       unsigned mask,
						       unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = o[i & mask].fn(x);
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000000;
	int reps = argc > 2 ? atoi(argv[2]) : 15;
	const char *k = getenv("DYNCALL_LEARN_TARGETS");
	unsigned sink = 0;
	double worst_mega = 0;
	int nmega = 0;

	printf("learn cost, %s build, DYNCALL_LEARN_TARGETS=%s: %ld calls x "
	       "%d runs, minimum ns/call\n", BUILD_NAME, k ? k : "default",
	       iters, reps);
	printf("  targets  dyncall  plain  retpoline  dyncall/retpoline  "
	       "megamorphic\n");
	for (int nt = 1; nt <= LEARN_COST_FUNCS; nt++) {
		double best[3] = { 1e9, 1e9, 1e9 };
		struct dyncall_stats st;

		for (int i = 0; i < NOBJ; i++)
			objs[i].fn = learn_cost_funcs[i % nt];
		/* warm up: the site learns this round's targets */
		sink += loop_dyncall(objs, NOBJ - 1, 1, 200000);
		for (int r = 0; r < reps; r++) {
			double t0 = now();

			sink += loop_dyncall(objs, NOBJ - 1, r, iters);
			double t1 = now();

			sink += loop_plain_indirect(
				(const struct plain_obj *)objs, NOBJ - 1, r,
				iters);
			double t2 = now();

			sink += loop_retpoline_indirect(
				(const struct plain_obj *)objs, NOBJ - 1, r,
				iters);
			double t3 = now();

			if (t1 - t0 < best[0])
				best[0] = t1 - t0;
			if (t2 - t1 < best[1])
				best[1] = t2 - t1;
			if (t3 - t2 < best[2])
				best[2] = t3 - t2;
		}
		dyncall_get_stats(&st);
		if (st.megamorphic) { /* this round's site is megamorphic */
			nmega++;
			if (best[0] / best[2] > worst_mega)
				worst_mega = best[0] / best[2];
		}
		printf("  %7d  %7.2f  %5.2f  %9.2f  %16.2fx  %11llu\n", nt,
		       best[0] * 1e9 / iters, best[1] * 1e9 / iters,
		       best[2] * 1e9 / iters, best[0] / best[2],
		       (unsigned long long)st.megamorphic);
	}
	/* issue 13: a megamorphic site costs <= 1.1x its retpoline call */
	if (nmega)
		printf("  megamorphic site: worst dyncall/retpoline %.2fx over "
		       "%d rows (goal <= 1.10x: %s)\n", worst_mega, nmega,
		       worst_mega <= 1.10 ? "met" : "NOT met");
	else
		printf("  megamorphic site: none in this run\n");
	printf("  (sink %u) dyncall runtime %s: %s\n", sink & 1,
	       dyncall_version(), dyncall_status_string());
	return 0;
}
