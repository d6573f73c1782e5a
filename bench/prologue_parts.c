// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * prologue_parts: what each part of an x86-64 hooked call costs (the
 * copies of the jump function in prologue_parts.S; docs/prologues.md
 * "Measured numbers").  Each variant is called N times in a loop whose
 * result feeds the next call, every variant in turn, R rounds; prints the
 * median and minimum ns per call and the median over the bare function.
 *
 *   prologue_parts [N [R]]    default N = 200000, R = 51 (short runs: a
 *                             shared machine disturbs fewer of them)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long pp_count;

void pp_handler(void *fn, void *ret, void *data, void *regs)
{
	++*(long *)data;
	(void)fn, (void)ret, (void)regs;
}

#define VARIANTS(X)                                                        \
	X(pp_body, "the function alone")                                   \
	X(pp_call_only, "the handler call alone")                          \
	X(pp_empty_call, "  the same, the handler empty (a ret)")          \
	X(pp_floor, "the floor: jmp; call an empty handler; jmp")          \
	X(pp_old_novec, "old jump function, no vector saves")              \
	X(pp_old_novec_noguard, "  the same without the guard's 2 stores") \
	X(pp_old_novec_nosaves, "  the same without the 7 argument saves") \
	X(pp_old_vec, "old jump function, vector saves")                   \
	X(pp_new_novec, "new jump function, no vector saves")              \
	X(pp_new_vec, "new jump function, vector saves")                   \
	X(pp_new_vec1, "new jump function, xmm0 saved")                    \
	X(pp_new_novec_vzu, "  no vector saves, vzeroupper")               \
	X(pp_new_vec1_vzu, "  xmm0 saved, vzeroupper")                     \
	X(pp_new_novec_noguard, "  no vector saves, vzu, no guard stores") \
	X(pp_new_novec_1arg, "  no vector saves, vzu, only rdi saved")      \
	X(pp_new_vec1_1arg, "  xmm0 saved, vzu, only rdi saved")           \
	X(pp_new_1arg_entry, "  the same without xmm0, entered by a jmp")

#define DECL(f, d) long f(long);
VARIANTS(DECL)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long sink;

#define RUN(f, d)                                       \
	static double run_##f(long n)                   \
	{                                               \
		long x = 0;                             \
		double t = now();                       \
		for (long i = 0; i < n; i++)            \
			x = f(x);                       \
		t = now() - t;                          \
		sink += x;                              \
		return t / n;                           \
	}
VARIANTS(RUN)

static const struct {
	const char *name, *what;
	double (*run)(long);
} vs[] = {
#define ENT(f, d) { #f, d, run_##f },
	VARIANTS(ENT)
};
#define NV (sizeof(vs) / sizeof(vs[0]))
#define MAX_REPS 201

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int reps = argc > 2 ? atoi(argv[2]) : 51;
	static double t[NV][MAX_REPS];
	double base;

	if (n < 1 || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "usage: prologue_parts [calls [runs: 1..%d]]\n",
			MAX_REPS);
		return 2;
	}
	for (int r = 0; r < reps; r++)
		for (unsigned v = 0; v < NV; v++)
			t[v][r] = vs[v].run(n);
	for (unsigned v = 0; v < NV; v++)
		qsort(t[v], (size_t)reps, sizeof(double), cmp);
	base = t[0][reps / 2];
	printf("prologue_parts: %ld calls x %d runs, ns/call (median, "
	       "minimum, median over the function alone)\n", n, reps);
	for (unsigned v = 0; v < NV; v++)
		printf("%-42s %7.3f %7.3f %+7.3f\n", vs[v].what,
		       t[v][reps / 2], t[v][0], t[v][reps / 2] - base);
	return sink == 42;
}
