/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * bench/call_cost: ns per call and ratio to a direct call, for
 *   direct              x = callee(x)
 *   dyncall             x = dc_fn(x), dc_fn annotated DYNCALL (patched)
 *   plain indirect      x = plain_fp(x), built without -mretpoline
 *   retpoline indirect  x = plain_fp(x), built with -mretpoline
 * all in this one process (see call_cost.h for how it is built).
 *
 * Each variant runs ITERS calls (default 2,000,000), REPS times (default 41),
 * interleaved; the minimum is reported. Many short runs rather than a few
 * long ones: on a shared machine a run of a few milliseconds often goes
 * undisturbed, a run of a second rarely does. Usage: call_cost [iters] [reps]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dyncall.h>

#include "call_cost.h"

#ifndef BUILD_NAME
#define BUILD_NAME "?"
#endif

/* Not static, and its address is only taken in call_cost_callee.c (built
 * without the plugin): taking it here would mark the key ESCAPES, which
 * keeps its sites guarded instead of direct. */
work_fn DYNCALL dc_fn = callee_alt;

__attribute__((noinline)) static unsigned loop_direct(unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = callee(x);
	return x;
}

/* The same loop and the same work without a call: subtracted from the
 * others to get the cost of the call itself (the "net" column). The asm
 * keeps the compiler from folding the additions. */
__attribute__((noinline)) static unsigned loop_no_call(unsigned x, long n)
{
	for (long i = 0; i < n; i++) {
		x += 0x9e3779b9u;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static unsigned loop_dyncall(unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = dc_fn(x);
	return x;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct variant {
	const char *name;
	unsigned (*loop)(unsigned, long);
	double best;
};

static int site_state(const struct dyncall_site_info *info, void *arg)
{
	int *state = arg;

	if (info->state > *state)
		*state = info->state;
	return 0;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 41;
	struct variant v[] = {
		{ "direct", loop_direct, 0 },
		{ "dyncall", loop_dyncall, 0 },
		{ "plain indirect", loop_plain_indirect, 0 },
		{ "retpoline indirect", loop_retpoline_indirect, 0 },
		{ "no call (baseline)", loop_no_call, 0 },
	};
	const int nv = sizeof(v) / sizeof(v[0]);
	unsigned sink = 0, expect = 0;
	cpu_set_t cpus;

	/* One CPU: no migration in the middle of a run. */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);

	/* A plain store retargets every site of dc_fn (the plugin turns it into
	 * __dyncall_store): first elsewhere, then to the measured callee. */
	dc_fn = callee_alt;
	loop_dyncall(1, 1000);
	dc_fn = callee;
	/* Warm up: run-time discovery patches a site on its first call. */
	for (int i = 0; i < nv; i++)
		v[i].loop(1, iters / 10);

	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < nv; i++) {
			double t0 = now_ns();
			unsigned x = v[i].loop(r, iters);
			double t = (now_ns() - t0) / iters;

			if (i == 0)
				expect = x;
			else if (x != expect) {
				fprintf(stderr, "call_cost: %s computed %u, direct %u\n",
					v[i].name, x, expect);
				return 1;
			}
			sink += x;
			if (r == 0 || t < v[i].best)
				v[i].best = t;
		}
	}

	int state = -1;
	dyncall_foreach_site(dc_fn_key(), site_state, &state);
	static const char *const states[] = { "slow", "guarded", "direct" };

	printf("call cost, %s build: %ld calls x %d runs, minimum\n", BUILD_NAME,
	       iters, reps);
	/* net: minus the loop and the work, i.e. what the call itself costs */
	double base = v[nv - 1].best, net_direct = v[0].best - base;
	printf("  %-20s %9s %10s %9s %10s\n", "variant", "ns/call", "vs direct",
	       "net ns", "vs direct");
	/* On some cores a direct call hides entirely in the loop's latency
	 * (direct = no call, to the picosecond): a ratio to a net cost of
	 * about zero would print nonsense, so then the column says so. */
	bool net_ok = net_direct > 0.05 * base;

	for (int i = 0; i < nv - 1; i++) {
		printf("  %-20s %9.3f %9.2fx %9.3f", v[i].name, v[i].best,
		       v[i].best / v[0].best, v[i].best - base);
		if (net_ok)
			printf(" %9.2fx\n", (v[i].best - base) / net_direct);
		else
			printf(" %10s\n", "-");
	}
	printf("  %-20s %9.3f\n", v[nv - 1].name, base);
	if (!net_ok)
		printf("  (net vs direct omitted: a direct call costs %.3f ns over "
		       "the loop here, below the timer's resolution)\n",
		       net_direct);
	printf("  dyncall: runtime %s, site %s, status: %s\n", dyncall_version(),
	       state >= 0 && state <= 2 ? states[state] : "unregistered",
	       dyncall_status_string());
	printf("  dyncall vs retpoline indirect: %.1fx cheaper (net %.1fx); vs plain indirect: %.2fx\n",
	       v[3].best / v[1].best, (v[3].best - base) / (v[1].best - base),
	       v[1].best / v[2].best);
	return sink == 0xdeadbeef; /* keep the results alive */
}
