/* The prototypes the vector-argument record tests share
 * (vec-args-x86_64.c, vec-args-aarch64.c, vec-args-ppc64le.c: each checks
 * its arch's record of each, ASM and LIST).  The records are checked in
 * the order the compilers emit the functions: Clang in the order of
 * their definitions, GCC in the order main first calls them, which is
 * d1, the test's own, var last.  So this header is included twice: at
 * the top for d1 (and the others below) and var's declaration, then,
 * with VEC_ARGS_VAR defined, after the test's own functions for var's
 * definition.  VEC_ARGS_HFA adds the aggregates and the long double of
 * aarch64's and ppc64le's floating-point argument rules: an HFA of three
 * doubles, a struct of a float and an int (none: it goes in an integer
 * register), a long double (one q register; f1-f2). */
#ifndef VEC_ARGS_VAR
#ifndef VEC_ARGS_H
#define VEC_ARGS_H
#include <stdarg.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

NOINLINE double d1(double a, long b) { return a * 10 + b; }

#ifdef VEC_ARGS_HFA
struct h3 {
	double a, b, c;
};
struct fi {
	float f;
	int i;
};

NOINLINE double hfa3(struct h3 s) { return (s.a * 10 + s.b) * 10 + s.c; }
NOINLINE double fi(struct fi s) { return s.f * 10 + s.i; }
NOINLINE long double q(long double x, long i) { return x * 10 + i; }
#endif

NOINLINE double var(int n, ...);
#endif
#else
/* every vector argument register (DYNCALL_FN_REC_VARIADIC) */
NOINLINE double var(int n, ...)
{
	va_list ap;
	double r = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		r = r * 10 + va_arg(ap, double);
	va_end(ap);
	return r;
}
#endif
