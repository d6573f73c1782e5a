// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * prologue_cost's wide-vector rows (prologue_cost.c): a function taking a
 * __m256d (ymm0) and a double (-DW=256, built with -mavx2), or a __m512d
 * (zmm0) and a double (-DW=512, -mavx512f: Clang passes a vector in
 * registers only when the translation unit has the ISA), compiled by
 * prologue_cost.bench.sh twice each: with -DPFE and the
 * --dyncall-prologues flags (patchable, records DYNCALL_FN_REC_VEC_YMM,
 * _ZMM), and without (no NOPs; the loop that calls them, which passes the
 * vector in a register).  The caller only runs them where the CPU has
 * AVX2 (AVX-512F for the zmm one).
 */
#include <immintrin.h>
#include <time.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#if W == 512
#define VEC __m512d
#define SET1 _mm512_set1_pd
#define LAST 7
#define CAT(a) a##512
#else
#define VEC __m256d
#define SET1 _mm256_set1_pd
#define LAST 3
#define CAT(a) a##256
#endif

#ifdef PFE
NOINLINE double CAT(t_pfe_w)(VEC v, double x) { return v[LAST] + x; }
#else
double CAT(t_pfe_w)(VEC, double);
NOINLINE double CAT(t_plain_w)(VEC v, double x) { return v[LAST] + x; }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per call of n calls, x = f(v, x); pfe: the patchable one */
double CAT(run_w)(long n, int pfe, long *sink)
{
	VEC v = SET1(1.0);
	double x = 0, t = now();

	if (pfe)
		for (long i = 0; i < n; i++)
			x = CAT(t_pfe_w)(v, x);
	else
		for (long i = 0; i < n; i++)
			x = CAT(t_plain_w)(v, x);
	t = now() - t;
	*sink += (long)x;
	return t / n;
}
#endif
