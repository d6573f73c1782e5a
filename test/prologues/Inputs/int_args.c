// Input of int-args-{x86_64,aarch64,ppc64le}.test: functions whose
// integer argument registers the plugins record (abi.h
// DYNCALL_FN_REC_INT_COUNT), hooked by a handler that adds 1000 to one
// integer argument through regs->arg and then clobbers every integer
// register a C function may (x86-64: rdi rsi rdx rcx r8 r9 rax r10 r11;
// aarch64: x0-x17; ppc64le: r0, r3-r12), and a second that clobbers
// them again.  Each line prints the result before the hook and with it;
// the build without the plugins (no records: every register saved) prints
// the same.  A register the jump function failed to save reaches the
// function clobbered: a different result.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noipa))
#endif

struct s2 {
	long a, b;
};
struct s3 {
	long a, b, c;
};
struct di {
	double d;
	long l;
};
struct ff {
	float a, b;
};
struct r40 {
	long x[5];
};

NOINLINE long i0(void) { return 42; }
NOINLINE long i1(long a) { return a; }
NOINLINE long i2(long a, int b) { return a * 10 + b; }
NOINLINE long i6(long a, long b, long c, long d, long e, long f)
{
	return ((((a * 10 + b) * 10 + c) * 10 + d) * 10 + e) * 10 + f;
}
NOINLINE long i7(long a, long b, long c, long d, long e, long f, long g)
{
	return (((((a * 10 + b) * 10 + c) * 10 + d) * 10 + e) * 10 + f) * 10 + g;
}
NOINLINE long sv2(struct s2 s) { return s.a * 10 + s.b; }
NOINLINE long sv3(struct s3 s) { return (s.a * 10 + s.b) * 10 + s.c; }
NOINLINE long sdi(struct di s) { return (long)s.d * 10 + s.l; }
NOINLINE struct r40 sret(long a)
{
	struct r40 r = { { a, a + 1, a + 2, a + 3, a + 4 } };
	return r;
}
NOINLINE long i128(__int128 a) { return (long)(a >> 64) * 10 + (long)a; }
NOINLINE long li128(long a, __int128 b)
{
	return a * 100 + (long)(b >> 64) * 10 + (long)b;
}
NOINLINE long l5i128(long a, long b, long c, long d, long e, __int128 x)
{
	return ((((a * 10 + b) * 10 + c) * 10 + d) * 10 + e) * 10 + (long)x;
}
NOINLINE long sff(struct ff s, const long *p) { return (long)s.a * 10 + *p; }
NOINLINE long mixed(double a, long b, double c, long d)
{
	return ((long)a * 10 + b) * 10 + (long)c + d * 1000;
}
NOINLINE long var(int n, ...)
{
	va_list ap;
	long r = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		r = r * 10 + va_arg(ap, long);
	va_end(ap);
	return r;
}
#ifndef __clang__
/* GCC's nested function: the static chain in r10 (aarch64: x18), so its
 * record has no integer count (every register saved); not hooked here */
NOINLINE long outer(long a)
{
	long k = 7;
	NOINLINE long inner(long b) { return b * 10 + k; }

	return inner(a);
}
#endif

#if defined(__powerpc64__)
/* ppc64le ELFv2: r3-r10 shadow the parameter save area's first eight
 * doublewords, which every argument takes its place in (also one in an
 * FPR or a VR) */
typedef int v4si __attribute__((vector_size(16)));
struct s9 {
	long a, b, c, d, e, f, g, h, i;
};
struct f10 {
	float x[10];
};
struct f8 {
	float x[8];
};
struct q16 {
	__int128 x;
};

/* the IBM long double in f1-f2 (2 doublewords), i in r5 */
NOINLINE long ld_l(long double x, long i) { return (long)x * 10 + i; }
/* the vector in v2 (2 doublewords), i in r5 */
NOINLINE long v_l(v4si v, long i) { return v[0] * 10 + i; }
/* a in r3, the vector in v2 at doublewords 2-3 (quadword-aligned), b r7 */
NOINLINE long l_v_l(long a, v4si v, long b)
{
	return (a * 10 + v[0]) * 10 + b;
}
/* 72 bytes: r3-r10 and the stack */
NOINLINE long big9(struct s9 s) { return s.a + s.h * 10 + s.i * 100; }
/* ten floats (no homogeneous aggregate: more than 8) in r3-r7, i r8 */
NOINLINE long f10(struct f10 s, long i) { return (long)s.x[9] * 10 + i; }
/* eight floats in f1-f8, packed in 4 doublewords, i in r7 */
NOINLINE long hfa8f(struct f8 s, long i) { return (long)s.x[7] * 10 + i; }
/* a in r3, the 16-byte aligned aggregate in r5-r6 (r4 skipped) */
NOINLINE long lq(long a, struct q16 s) { return a * 10 + (long)s.x; }
/* f1-f2, b in r5 */
NOINLINE long cd(_Complex double c, long b)
{
	return (long)__real__ c * 10 + b;
}
#endif

static long calls;

#include "clobber_int.h"

/* data: the index in regs->arg of the argument to add 1000 to (-1: none) */
static void bump(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	int i = *(const int *)data;

	(void)fn, (void)ret;
	calls++;
	if (i >= 0)
		r->arg[i] += 1000;
	CLOBBER();
}

static void clobber(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	(void)fn, (void)ret, (void)data, (void)r;
	calls++;
	CLOBBER();
}

static char ints[512];

/* hook f with bump (data i) and clobber; its integer registers as the
 * runtime knows them ("-" without a record's count) go to ints */
static void hook(const char *name, void *f, const int *i)
{
	unsigned fl = 0;
	int s = dyncall_fn_hook(f, bump, (void *)i);
	int t = dyncall_fn_hook(f, clobber, NULL);
	size_t n = strlen(ints);

	dyncall_fn_flags(f, &fl);
	if (fl & DYNCALL_FN_INT_ABI)
		snprintf(ints + n, sizeof(ints) - n, " %s=%u", name,
			 DYNCALL_FN_INT_NREGS(fl));
	else
		snprintf(ints + n, sizeof(ints) - n, " %s=-", name);
	printf("%s: %d %d", name, s, t);
}

/* Which register holds what, per arch (the index into regs->arg). */
#if defined(__x86_64__)
enum { SDI_L = 0, SRET_A = 1, LI128_B = 1, L5I128 = 4 };
#elif defined(__powerpc64__)
/* the sret pointer in r3, a in r4; li128's b in r4-r5, l5i128's x r8-r9 */
enum { SDI_L = 1, SRET_A = 1, LI128_B = 1, L5I128 = 5 };
#else
enum { SDI_L = 1, SRET_A = 0, LI128_B = 2, L5I128 = 6 };
#endif

int main(void)
{
	long (*volatile pi0)(void) = i0;
	long (*volatile pi1)(long) = i1;
	long (*volatile pi2)(long, int) = i2;
	long (*volatile pi6)(long, long, long, long, long, long) = i6;
	long (*volatile pi7)(long, long, long, long, long, long, long) = i7;
	long (*volatile psv2)(struct s2) = sv2;
	long (*volatile psv3)(struct s3) = sv3;
	long (*volatile psdi)(struct di) = sdi;
	struct r40 (*volatile psret)(long) = sret;
	long (*volatile pi128)(__int128) = i128;
	long (*volatile pli128)(long, __int128) = li128;
	long (*volatile pl5i128)(long, long, long, long, long, __int128) =
		l5i128;
	long (*volatile pvar)(int, ...) = var;
	long (*volatile psff)(struct ff, const long *) = sff;
	long (*volatile pmixed)(double, long, double, long) = mixed;
	static const int none = -1, a0 = 0, a1 = 1, a5 = 5, sdi_l = SDI_L,
			 sret_a = SRET_A, li128_b = LI128_B, l5 = L5I128;
	struct s2 s2 = { 1, 2 };
	struct s3 s3 = { 1, 2, 3 };
	struct di di = { 1.0, 2 };
	struct ff ff = { 1, 2 };
	__int128 w = ((__int128)3 << 64) | 4;
	static const long seven = 7;
	long u;
	struct r40 r;

	u = pi0();
	hook("i0", (void *)i0, &none);
	printf(" -> %ld %ld\n", u, pi0());
	u = pi1(1);
	hook("i1", (void *)i1, &a0);
	printf(" -> %ld %ld\n", u, pi1(1));
	u = pi2(1, 2);
	hook("i2", (void *)i2, &a1);
	printf(" -> %ld %ld\n", u, pi2(1, 2));
	u = pi6(1, 2, 3, 4, 5, 6);
	hook("i6", (void *)i6, &a5);
	printf(" -> %ld %ld\n", u, pi6(1, 2, 3, 4, 5, 6));
	u = pi7(1, 2, 3, 4, 5, 6, 7);
	hook("i7", (void *)i7, &a5);
	printf(" -> %ld %ld\n", u, pi7(1, 2, 3, 4, 5, 6, 7));
	u = psv2(s2);
	hook("sv2", (void *)sv2, &a1);
	printf(" -> %ld %ld\n", u, psv2(s2));
	u = psv3(s3);
	hook("sv3", (void *)sv3, &none);
	printf(" -> %ld %ld\n", u, psv3(s3));
	u = psdi(di);
	hook("sdi", (void *)sdi, &sdi_l);
	printf(" -> %ld %ld\n", u, psdi(di));
	u = psret(1).x[4];
	hook("sret", (void *)sret, &sret_a);
	r = psret(1);
	printf(" -> %ld %ld %ld\n", u, r.x[0], r.x[4]);
	u = pi128(w);
	hook("i128", (void *)i128, &a0);
	printf(" -> %ld %ld\n", u, pi128(w));
	u = pli128(1, w);
	hook("li128", (void *)li128, &li128_b);
	printf(" -> %ld %ld\n", u, pli128(1, w));
	u = pl5i128(1, 2, 3, 4, 5, w);
	hook("l5i128", (void *)l5i128, &l5);
	printf(" -> %ld %ld\n", u, pl5i128(1, 2, 3, 4, 5, w));
	u = pvar(3, 1L, 2L, 3L);
	hook("var", (void *)var, &a1);
	printf(" -> %ld %ld\n", u, pvar(3, 1L, 2L, 3L));
	u = psff(ff, &seven);
	hook("sff", (void *)sff, &none);
	printf(" -> %ld %ld\n", u, psff(ff, &seven));
	u = pmixed(1, 2, 3, 4);
	hook("mixed", (void *)mixed, &a1);
	printf(" -> %ld %ld\n", u, pmixed(1, 2, 3, 4));
#if defined(__powerpc64__)
	{
		long (*volatile pld_l)(long double, long) = ld_l;
		long (*volatile pv_l)(v4si, long) = v_l;
		long (*volatile pl_v_l)(long, v4si, long) = l_v_l;
		long (*volatile pbig9)(struct s9) = big9;
		long (*volatile pf10)(struct f10, long) = f10;
		long (*volatile phfa8f)(struct f8, long) = hfa8f;
		long (*volatile plq)(long, struct q16) = lq;
		long (*volatile pcd)(_Complex double, long) = cd;
		static const int a2 = 2, a4 = 4, a5 = 5, a7 = 7;
		v4si v = { 3, 0, 0, 0 };
		struct s9 s9 = { 1, 0, 0, 0, 0, 0, 0, 2, 3 };
		struct f10 sf10 = { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 } };
		struct f8 sf8 = { { 0, 0, 0, 0, 0, 0, 0, 6 } };
		struct q16 q = { 5 };

		u = pld_l(2.0L, 1);
		hook("ld_l", (void *)ld_l, &a2);
		printf(" -> %ld %ld\n", u, pld_l(2.0L, 1));
		u = pv_l(v, 1);
		hook("v_l", (void *)v_l, &a2);
		printf(" -> %ld %ld\n", u, pv_l(v, 1));
		u = pl_v_l(1, v, 2);
		hook("l_v_l", (void *)l_v_l, &a4);
		printf(" -> %ld %ld\n", u, pl_v_l(1, v, 2));
		u = pbig9(s9);
		hook("big9", (void *)big9, &a7);
		printf(" -> %ld %ld\n", u, pbig9(s9));
		u = pf10(sf10, 1);
		hook("f10", (void *)f10, &a5);
		printf(" -> %ld %ld\n", u, pf10(sf10, 1));
		u = phfa8f(sf8, 1);
		hook("hfa8f", (void *)hfa8f, &a4);
		printf(" -> %ld %ld\n", u, phfa8f(sf8, 1));
		u = plq(1, q);
		hook("lq", (void *)lq, &a2);
		printf(" -> %ld %ld\n", u, plq(1, q));
		u = pcd(2.0, 1);
		hook("cd", (void *)cd, &a2);
		printf(" -> %ld %ld\n", u, pcd(2.0, 1));
	}
#endif
	printf("calls %ld\nints:%s\n", calls, ints);
	return 0;
}
