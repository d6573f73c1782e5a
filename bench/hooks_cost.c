/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * bench/hooks_cost: ns per call of a hook list (DYNCALL_HOOKS_CALL,
 * docs/hooks.md) with 0, 1, 2, 4, 8 handlers, against
 *   array loop            the plain C loop over an array of function
 *                         pointers with the same handlers (a unit built
 *                         without the plugin, without retpolines)
 *   array loop, retp.     the same loop built with -mretpoline
 *   direct call           one handler called directly: the unit
 * all in this one process (built with -mretpoline), after an empty loop
 * (subtracted).  Every loop reloads its list each iteration (an empty asm
 * with a memory clobber).  Each variant runs ITERS iterations (default
 * 2,000,000), REPS times (default 41), interleaved; the minimum is
 * reported.  Usage: hooks_cost [iters] [reps]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dyncall.h>

#include "hooks_cost.h"

DYNCALL_HOOKS(list, void, long);

__attribute__((noinline)) static void loop_empty(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) static void loop_list(long n)
{
	for (long i = 0; i < n; i++) {
		__asm__ volatile("" : : : "memory"); /* reload the key */
		DYNCALL_HOOKS_CALL(list, i);
	}
}

/* k direct calls per iteration: what a hook list of k handlers would
 * cost at best if the calls were written out in the source. */
#define CALLS1(i) hook_h0(i)
#define CALLS2(i) CALLS1(i), hook_h1(i)
#define CALLS4(i) CALLS2(i), hook_h2(i), hook_h3(i)
#define CALLS8(i) CALLS4(i), hook_h4(i), hook_h5(i), hook_h6(i), hook_h7(i)
#define DIRECT(k)                                                             \
	__attribute__((noinline)) static void loop_direct##k(long n)         \
	{                                                                     \
		for (long i = 0; i < n; i++) {                                \
			__asm__ volatile("" : : : "memory");                  \
			CALLS##k(i);                                          \
		}                                                             \
	}
DIRECT(1)
DIRECT(2)
DIRECT(4)
DIRECT(8)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double run(void (*loop)(long), long iters)
{
	double t0 = now_ns();

	loop(iters);
	return (now_ns() - t0) / iters;
}

static const int ks[] = { 0, 1, 2, 4, 8 };
#define NK 5
enum { V_LIST, V_DIRECT, V_ARRAY, V_RETP, NV };

static void set_count(int k)
{
	while (dyncall_hooks_count(list) > k)
		dyncall_hooks_remove(list, handlers[dyncall_hooks_count(list) - 1]);
	while (dyncall_hooks_count(list) < k)
		dyncall_hooks_add(list, handlers[dyncall_hooks_count(list)]);
	for (int j = 0; j < 8; j++)
		hook_array[j] = handlers[j];
	hook_count = k;
}

static int site_state(const struct dyncall_site_info *info, void *arg)
{
	int *state = arg;

	*state = info->kind == 6 ? info->state : -2; /* DYNCALL_KIND_COND */
	return 0;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 41;
	void (*direct[NK])(long) = { loop_empty, loop_direct1, loop_direct2,
				     loop_direct4, loop_direct8 };
	void (*loops[NV])(long) = { loop_list, NULL, loop_array,
				    loop_array_retp };
	static const char *const names[NV] = { "dyncall list", "k direct",
					       "array loop", "array, retp." };
	double best[NK][NV], empty = 0;
	int state[NK];
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (int k = 0; k < NK; k++) { /* warm up, discover the site */
		set_count(ks[k]);
		loops[V_DIRECT] = direct[k];
		for (int v = 0; v < NV; v++)
			loops[v](iters / 10);
	}
	for (int r = 0; r < reps; r++) {
		double t = run(loop_empty, iters);

		empty = r == 0 || t < empty ? t : empty;
		for (int k = 0; k < NK; k++) {
			set_count(ks[k]);
			loops[V_DIRECT] = direct[k];
			if (r == 0)
				dyncall_foreach_site(&list, site_state,
						     &state[k]);
			for (int v = 0; v < NV; v++) {
				t = run(loops[v], iters);
				if (r == 0 || t < best[k][v])
					best[k][v] = t;
			}
		}
	}

	double unit = (best[NK - 1][V_DIRECT] - empty) / 8;
	static const char *const states[] = { "slow", "guarded", "direct" };

	printf("hook list cost, retpoline build: %ld iterations x %d runs, "
	       "minimum; ns per call of the list over the empty loop "
	       "(%.3f ns)\n",
	       iters, reps, empty);
	printf("  one direct call (8 direct calls / 8): %.3f ns\n", unit);
	printf("  %8s %13s %10s %11s %13s %12s %10s\n", "handlers", names[0],
	       names[1], names[2], names[3], "list/direct", "goal");
	for (int k = 0; k < NK; k++) {
		double l = best[k][V_LIST] - empty;
		char goal[32] = "-";

		if (ks[k] >= 2)
			snprintf(goal, sizeof(goal), "<= %.1f",
				 (ks[k] + 1) * 1.2);
		else if (ks[k] == 1)
			snprintf(goal, sizeof(goal), "1");
		printf("  %8d %13.3f %10.3f %11.3f %13.3f %12.2f %10s\n",
		       ks[k], l, best[k][V_DIRECT] - empty,
		       best[k][V_ARRAY] - empty, best[k][V_RETP] - empty,
		       l / unit, goal);
	}
	printf("  (list/direct: the list's cost in direct calls; goal: k >= 2 "
	       "handlers in <= (k + 1) x 1.2, one handler in one)\n");
	printf("  dyncall site:");
	for (int k = 0; k < NK; k++)
		printf(" %d: %s", ks[k],
		       state[k] >= 0 ? states[state[k]] :
				       "not a conditional site");
	printf("; status: %s\n", dyncall_status_string());
	return 0;
}
