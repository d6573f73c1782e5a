// Checks that a jump function saves exactly the vector argument registers a function's record says its prototype uses (docs/prologues.md "Vector registers: what the compiler records"): per compiler (Clang 19, GCC 12, GCC 11) the records of double, two doubles, a struct of doubles, _Complex double (xmm0+xmm1), long double (memory: none), nine doubles (8), mixed float/int/struct arguments, a variadic function (8, DYNCALL_FN_REC_VARIADIC); the jump function saves that many (movaps counted in its code); handlers that clobber every vector register and read and change the arguments through regs->vec leave every function with the result of the build without the plugins (no records: xmm0-7 saved), which runs the same checks.  Saving one register too few makes this test fail (checked once by breaking the runtime's count).
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s --check-prefixes=OUT,REC -DRECUPPER=%rec_upper
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s --check-prefixes=OUT,REC -DRECUPPER=%rec_upper
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 %s -o %t.gcc11 %}
// RUN: %if gcc11-plugin %{ %t.gcc11 | FileCheck %s --check-prefixes=OUT,REC -DRECUPPER=%rec_upper %}
// RUN: %dyncall_rewrite list --prologues %t.gcc | FileCheck %s --check-prefix=LIST
// RUN: %dyncall_rewrite list --prologues %t.clang | FileCheck %s --check-prefix=LIST
// the same program without the plugins: no record, xmm0-7 saved
// RUN: %clang -fpatchable-function-entry=29,24 -falign-functions=8 -O2 %libdyncall_cflags %s -o %t.plain %libdyncall_ldflags
// RUN: %t.plain | FileCheck %s --check-prefixes=OUT,PLAIN -DRECUPPER=%rec_upper
// RUN: gcc-12 -fpatchable-function-entry=29,24 -falign-functions=8 -O2 %libdyncall_cflags %s -o %t.plain-gcc %libdyncall_ldflags
// RUN: %t.plain-gcc | FileCheck %s --check-prefixes=OUT,PLAIN -DRECUPPER=%rec_upper
//
// The records, flags = DYNCALL_FN_REC_VEC_COUNT (2) | n << 8
// (| DYNCALL_FN_REC_VARIADIC (4)), or DYNCALL_FN_REC_NO_VEC (1), and (but
// for the variadic one) DYNCALL_FN_REC_INT_COUNT (0x20) | int regs << 12:
// ASM: {{.quad|.8byte}} d1
// ASM-NEXT: {{.long|.4byte}} 4386
// ASM: {{.quad|.8byte}} d2
// ASM-NEXT: {{.long|.4byte}} 546
// ASM: {{.quad|.8byte}} sdd
// ASM-NEXT: {{.long|.4byte}} 546
// ASM: {{.quad|.8byte}} cd
// ASM-NEXT: {{.long|.4byte}} 546
// ASM: {{.quad|.8byte}} ld
// ASM-NEXT: {{.long|.4byte}} 4129
// ASM: {{.quad|.8byte}} nine
// ASM-NEXT: {{.long|.4byte}} 2082
// ASM: {{.quad|.8byte}} mixed
// ASM-NEXT: {{.long|.4byte}} 9250
// ASM: {{.quad|.8byte}} var
// ASM-NEXT: {{.long|.4byte}} 2054
// LIST-DAG: <d1> {{.*}} vecregs=1 intregs=1{{$}}
// LIST-DAG: <d2> {{.*}} vecregs=2 intregs=0{{$}}
// LIST-DAG: <cd> {{.*}} vecregs=2 intregs=0{{$}}
// LIST-DAG: <ld> {{.*}} novec=yes sled=nops vecregs=0 intregs=1{{$}}
// LIST-DAG: <mixed> {{.*}} vecregs=4 intregs=2{{$}}
// LIST-DAG: <var> {{.*}} vecregs=8 variadic intregs=6{{$}}
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#include "Inputs/vec_args.h"

struct dd {
	double a, b;
};
struct fl {
	float a, b;
};

NOINLINE double d2(double a, double b) { return a * 10 + b; }
NOINLINE double sdd(struct dd s) { return s.a * 10 + s.b; }
NOINLINE double cd(_Complex double z) { return __real__ z * 10 + __imag__ z; }
NOINLINE long double ld(long double x, long i) { return x * 10 + i; }
NOINLINE double nine(double a, double b, double c, double d, double e,
		     double f, double g, double h, double i)
{
	return (((((((a * 10 + b) * 10 + c) * 10 + d) * 10 + e) * 10 + f) *
			 10 +
		 g) *
			10 +
		h) * 10 +
	       i;
}
/* xmm0: b, xmm1: c, xmm2: d (two floats), xmm3: e; a and i in GPRs */
NOINLINE double mixed(int a, float b, double c, struct fl d, double e, long i)
{
	return ((((a * 10 + b) * 10 + c) * 10 + d.a + d.b) * 10 + e) * 10 + i;
}
#define VEC_ARGS_VAR
#include "Inputs/vec_args.h"

/* A handler that leaves no vector register as it found it (all ones: a
 * NaN in every double), after reading the vector arguments (the first
 * `seen` of regs->vec) and adding 100 to the last of them. */
struct want {
	int seen;     /* vector argument registers to read */
	int is_float; /* the last one holds a float (mixed: e is a double) */
};
static double got[8];
static long calls;

static void clobber(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	const struct want *w = data;

	(void)fn, (void)ret;
	calls++;
	for (int i = 0; i < w->seen; i++)
		memcpy(&got[i], &r->vec[i][0], 8);
	if (w->seen) {
		double d;

		memcpy(&d, &r->vec[w->seen - 1][0], 8);
		d += 100;
		memcpy(&r->vec[w->seen - 1][0], &d, 8);
	}
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\tpcmpeqd %%xmm1, %%xmm1\n\t"
			 "pcmpeqd %%xmm2, %%xmm2\n\tpcmpeqd %%xmm3, %%xmm3\n\t"
			 "pcmpeqd %%xmm4, %%xmm4\n\tpcmpeqd %%xmm5, %%xmm5\n\t"
			 "pcmpeqd %%xmm6, %%xmm6\n\tpcmpeqd %%xmm7, %%xmm7\n\t"
			 "pcmpeqd %%xmm8, %%xmm8\n\tpcmpeqd %%xmm9, %%xmm9\n\t"
			 "pcmpeqd %%xmm10, %%xmm10\n\tpcmpeqd %%xmm11, %%xmm11\n\t"
			 "pcmpeqd %%xmm12, %%xmm12\n\tpcmpeqd %%xmm13, %%xmm13\n\t"
			 "pcmpeqd %%xmm14, %%xmm14\n\tpcmpeqd %%xmm15, %%xmm15"
			 :
			 :
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15");
}

/* DYNCALL_FN_MAX_HANDLERS (16) distinct handlers: the largest jump
 * function there is (with all eight vector saves) */
#define CNT(i)                                                               \
	static void cnt##i(void *fn, void *ret, void *data,                  \
			   struct dyncall_regs *r)                           \
	{                                                                    \
		(void)fn, (void)ret, (void)data, (void)r;                    \
		calls++;                                                     \
	}
CNT(0) CNT(1) CNT(2) CNT(3) CNT(4) CNT(5) CNT(6) CNT(7) CNT(8) CNT(9)
CNT(10) CNT(11) CNT(12) CNT(13) CNT(14) CNT(15)
static const dyncall_fn_handler cnts[16] = {
	cnt0, cnt1, cnt2,  cnt3,  cnt4,  cnt5,  cnt6,  cnt7,
	cnt8, cnt9, cnt10, cnt11, cnt12, cnt13, cnt14, cnt15,
};

/* The jump function Q leads to (Q = f - 8: 90 90 90 e9 <rel32>), and the
 * number of movaps saves right after regs->ret (after its 46 bytes of
 * guard and frame, the integer saves, 5 bytes each, and the 9 of
 * regs->ret), after the vzeroupper of a function with a record (counted
 * in vzus, of jfs). */
static int jfs, vzus, probes;
static int saves(void *f)
{
	const volatile uint8_t *q = (const volatile uint8_t *)f - 8;
	const uint8_t *p;
	uint32_t rel = 0;
	int n = 0;

	if (q[3] != 0xe9)
		return -1;
	for (int i = 3; i >= 0; i--)
		rel = rel << 8 | q[4 + i];
	p = (const uint8_t *)q + 8 + (int32_t)rel + 46;
	while ((p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x89 && p[3] == 0x24)
		p += 5; /* mov %reg, disp8(%rsp) */
	if (!(p[0] == 0x48 && p[1] == 0x8b && p[2] == 0x75)) /* regs->ret */
		return -2;
	p += 9;
	jfs++;
	/* a function without a record: the probe of the upper halves
	 * (vorps %ymm1, %ymm0, %ymm8 | vpord %zmm1, %zmm0, %zmm8 ...), and the
	 * wide saves it may skip, up to its vzeroupper (upper-state-x86_64.c
	 * has it in full) */
	if ((p[0] == 0xc5 && p[1] == 0x7c && p[2] == 0x56) ||
	    (p[0] == 0x62 && p[1] == 0x71 && p[2] == 0x7d)) {
		probes++;
		while (!(p[0] == 0xc5 && p[1] == 0xf8 && p[2] == 0x77))
			p++;
	}
	if (p[0] == 0xc5 && p[1] == 0xf8 && p[2] == 0x77) { /* vzeroupper */
		vzus++;
		p += 3;
	}
	for (; p[0] == 0x0f && p[1] == 0x29; n++)
		p += (p[2] & 0xc0) == 0x40 ? 5 : 8; /* disp8 | disp32 */
	return n;
}

static void hook(const char *name, void *f, const struct want *w)
{
	unsigned fl = 0;
	int s = dyncall_fn_hook(f, clobber, (void *)w);

	dyncall_fn_flags(f, &fl);
	printf("%s: %d nregs %u saves %d", name, s, DYNCALL_FN_VEC_NREGS(fl),
	       saves(f));
	memset(got, 0, sizeof(got));
}

static void seen(int n)
{
	printf(" seen");
	for (int i = 0; i < n; i++)
		printf(" %g", got[i]);
}

int main(void)
{
	double (*volatile pd1)(double, long) = d1;
	double (*volatile pd2)(double, double) = d2;
	double (*volatile psdd)(struct dd) = sdd;
	double (*volatile pcd)(_Complex double) = cd;
	long double (*volatile pld)(long double, long) = ld;
	double (*volatile pnine)(double, double, double, double, double, double,
				 double, double, double) = nine;
	double (*volatile pmixed)(int, float, double, struct fl, double,
				  long) = mixed;
	double (*volatile pvar)(int, ...) = var;
	static const struct want w0 = { 0, 0 }, w1 = { 1, 0 }, w2 = { 2, 0 },
				 w4 = { 4, 0 }, w8 = { 8, 0 };
	struct dd s = { 1, 2 };
	struct fl f = { 3, 4 };

	/* each line: the result unhooked, then hooked (the last vector
	 * argument + 100; the rest as passed) */
	// REC:   d1: 0 nregs 1 saves 1 seen 1 -> 12 1012
	// PLAIN: d1: 0 nregs 8 saves 8 seen 1 -> 12 1012
	double u = pd1(1, 2);
	hook("d1", (void *)d1, &w1);
	double v = pd1(1, 2);
	seen(1);
	printf(" -> %g %g\n", u, v);
	// REC-NEXT:   d2: 0 nregs 2 saves 2 seen 1 2 -> 12 112
	// PLAIN-NEXT: d2: 0 nregs 8 saves 8 seen 1 2 -> 12 112
	u = pd2(1, 2);
	hook("d2", (void *)d2, &w2);
	v = pd2(1, 2);
	seen(2);
	printf(" -> %g %g\n", u, v);
	// REC-NEXT:   sdd: 0 nregs 2 saves 2 seen 1 2 -> 12 112
	// PLAIN-NEXT: sdd: 0 nregs 8 saves 8 seen 1 2 -> 12 112
	u = psdd(s);
	hook("sdd", (void *)sdd, &w2);
	v = psdd(s);
	seen(2);
	printf(" -> %g %g\n", u, v);
	// REC-NEXT:   cd: 0 nregs 2 saves 2 seen 1 2 -> 12 112
	// PLAIN-NEXT: cd: 0 nregs 8 saves 8 seen 1 2 -> 12 112
	u = pcd(1 + 2 * 1.0i);
	hook("cd", (void *)cd, &w2);
	v = pcd(1 + 2 * 1.0i);
	seen(2);
	printf(" -> %g %g\n", u, v);
	/* long double: in memory, no vector register (the handler changes
	 * nothing, the result is intact) */
	// REC-NEXT:   ld: 0 nregs 0 saves 0 -> 12 12
	// PLAIN-NEXT: ld: 0 nregs 8 saves 8 -> 12 12
	long double lu = pld(1, 2);
	hook("ld", (void *)ld, &w0);
	long double lv = pld(1, 2);
	printf(" -> %Lg %Lg\n", lu, lv);
	/* the ninth double on the stack */
	// OUT-NEXT: nine: 0 nregs 8 saves 8 seen 1 2 3 4 5 6 7 8 -> 123456789 123457789
	u = pnine(1, 2, 3, 4, 5, 6, 7, 8, 9);
	hook("nine", (void *)nine, &w8);
	v = pnine(1, 2, 3, 4, 5, 6, 7, 8, 9);
	seen(8);
	printf(" -> %.0f %.0f\n", u, v);
	// REC-NEXT:   mixed: 0 nregs 4 saves 4 seen c 3 -> 123756 124756
	// PLAIN-NEXT: mixed: 0 nregs 8 saves 8 seen c 3 -> 123756 124756
	u = pmixed(1, 2, 3, f, 5, 6);
	hook("mixed", (void *)mixed, &w4);
	v = pmixed(1, 2, 3, f, 5, 6);
	printf(" seen c %g -> %g %g\n", got[1], u, v);
	/* variadic: %al and xmm0-7 kept (the handler changes the third) */
	// OUT-NEXT: var: 0 nregs 8 saves 8 seen 1 2 3 -> 123 223
	static const struct want w3 = { 3, 0 };
	u = pvar(3, 1.0, 2.0, 3.0);
	hook("var", (void *)var, &w3);
	v = pvar(3, 1.0, 2.0, 3.0);
	seen(3);
	printf(" -> %g %g\n", u, v);
	// OUT-NEXT: calls 8
	printf("calls %ld\n", calls);
	/* 16 handlers on nine (its record: all eight saved) */
	int st = 0;

	dyncall_fn_restore((void *)nine);
	for (int i = 0; i < 16; i++)
		st |= dyncall_fn_hook((void *)nine, cnts[i], NULL);
	// OUT-NEXT: 16 handlers: 0 saves 8 -> 123456789 calls 24
	printf("16 handlers: %d saves %d", st, saves((void *)nine));
	v = pnine(1, 2, 3, 4, 5, 6, 7, 8, 9);
	printf(" -> %.0f calls %ld\n", v, calls);
	/* with records, every jump function clears the upper halves first
	 * (where the CPU has AVX: %rec_upper, lit.local.cfg); without, every
	 * one probes them first, then clears them */
	// REC-NEXT:   vzeroupper: [[RECUPPER]]; probes: none
	// PLAIN-NEXT: vzeroupper: [[RECUPPER]]; probes: [[RECUPPER]]
	printf("vzeroupper: %s; ", vzus == jfs ? "all" : vzus ? "some" : "none");
	printf("probes: %s\n", probes == jfs ? "all" : probes ? "some" : "none");
	return 0;
}
