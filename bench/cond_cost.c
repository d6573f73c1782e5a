/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * bench/cond_cost: ns per loop iteration of a conditional site
 * (`if (k) k(i)` through a void DYNCALL key, docs/hooks.md), unset and set,
 * against
 *   empty loop          the same loop without the site
 *   plain if (k) k(i)   an unannotated pointer, tested then called, in a
 *                       unit built without the plugin (-mretpoline in the
 *                       bench: the indirect call is a retpoline)
 *   direct call         hook_body(i) called directly
 * all in this one process. Every loop reloads its key each iteration
 * (an empty asm with a memory clobber), as a hook in real code is reloaded.
 * Each variant runs ITERS iterations (default 2,000,000), REPS times
 * (default 41), interleaved; the minimum is reported.
 * Usage: cond_cost [iters] [reps]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dyncall.h>

#include "cond_cost.h"

/* Its address is never taken here: the key does not escape, its site may
 * be a NOP (unset) or a direct call (set). */
hook_fn DYNCALL dc_hook;

__attribute__((noinline)) static void loop_empty(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) static void loop_dc_cond(long n)
{
	for (long i = 0; i < n; i++) {
		__asm__ volatile("" : : : "memory"); /* reload the key */
		if (dc_hook)
			dc_hook(i);
	}
}

__attribute__((noinline)) static void loop_direct(long n)
{
	for (long i = 0; i < n; i++) {
		__asm__ volatile("" : : : "memory");
		hook_body(i);
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct variant {
	const char *name;
	void (*loop)(long);
	int set; /* run with the hooks set */
	double best;
};

static int site_state(const struct dyncall_site_info *info, void *arg)
{
	int *state = arg;

	*state = info->kind == 6 ? info->state : -2; /* DYNCALL_KIND_COND */
	return 0;
}

static void set_hooks(int set)
{
	dc_hook = set ? hook_body : NULL; /* __dyncall_store: repatches */
	plain_hook = set ? hook_body : NULL;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 41;
	struct variant v[] = {
		{ "empty loop", loop_empty, 0, 0 },
		{ "unset: dyncall cond", loop_dc_cond, 0, 0 },
		{ "unset: plain if", loop_plain_cond, 0, 0 },
		{ "set: dyncall cond", loop_dc_cond, 1, 0 },
		{ "set: plain if", loop_plain_cond, 1, 0 },
		{ "set: direct call", loop_direct, 1, 0 },
	};
	const int nv = sizeof(v) / sizeof(v[0]);
	int state[2] = { -1, -1 };
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);

	/* Warm up (run-time discovery patches the site on its first run),
	 * set and unset. */
	for (int s = 0; s < 2; s++) {
		set_hooks(s);
		for (int i = 0; i < nv; i++)
			v[i].loop(iters / 10);
	}
	for (int r = 0; r < reps; r++) {
		for (int s = 0; s < 2; s++) {
			set_hooks(s);
			if (r == 0)
				dyncall_foreach_site(&dc_hook, site_state,
						     &state[s]);
			for (int i = 0; i < nv; i++) {
				double t0, t;

				if (v[i].set != s)
					continue;
				t0 = now_ns();
				v[i].loop(iters);
				t = (now_ns() - t0) / iters;
				if (r == 0 || t < v[i].best)
					v[i].best = t;
			}
		}
	}

	static const char *const states[] = { "slow", "guarded", "direct" };
	double base = v[0].best;

	printf("conditional site cost, %s build: %ld iterations x %d runs, "
	       "minimum\n", BUILD_NAME, iters, reps);
	printf("  %-22s %9s %12s\n", "variant", "ns/iter", "over empty");
	for (int i = 0; i < nv; i++)
		printf("  %-22s %9.3f %12.3f\n", v[i].name, v[i].best,
		       v[i].best - base);
	printf("  unset: dyncall cond over empty loop: %.3f ns; plain if over "
	       "empty: %.3f ns\n", v[1].best - base, v[2].best - base);
	printf("  set: dyncall cond / direct call: %.2fx; plain if "
	       "(retpoline) / dyncall cond: %.1fx\n", v[3].best / v[5].best,
	       v[4].best / v[3].best);
	printf("  dyncall: site unset %s, set %s; status: %s\n",
	       state[0] >= 0 ? states[state[0]] : "not a conditional site",
	       state[1] >= 0 ? states[state[1]] : "not a conditional site",
	       dyncall_status_string());
	return 0;
}
