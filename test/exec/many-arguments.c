// Checks that sites pass every argument exactly as the unannotated program does: 12 ints (stack-passed), 10 doubles (stack-passed), mixed, structs by value (in registers and in memory), and variadic targets through variadic pointer types (%al), fresh and guarded.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); -mretpoline is an x86-64 option; dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clang -O0 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
// RUN: %dyncall_clang -O3 -mretpoline -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc3 %libdyncall_ldflags
// RUN: %t.dc3 > %t.dc3.out
// RUN: diff %t.ref.out %t.dc3.out
#include <stdarg.h>

#include "expect.h"

typedef long (*ints_t)(int, int, int, int, int, int, int, int, int, int, int, int);
typedef double (*dbls_t)(double, double, double, double, double, double, double, double, double, double);
typedef double (*mixed_t)(int, double, long, float, char, double, short, double, int, double, double, double, double, double, double, long);
struct small { int a; float b; };         /* in registers */
struct big { long v[5]; char tag[9]; };   /* in memory */
typedef long (*structs_t)(struct small, struct big, int, struct small);
typedef int (*vfmt_t)(const char *, ...);

static long ints_a(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k, int l)
{
	printf("  ints_a %d %d %d %d %d %d %d %d %d %d %d %d\n", a, b, c, d, e, f, g, h, i, j, k, l);
	return a + 2L * b + 3L * c + 4L * d + 5L * e + 6L * f + 7L * g + 8L * h + 9L * i + 10L * j + 11L * k + 12L * l;
}
static long ints_b(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k, int l)
{
	return -ints_a(l, k, j, i, h, g, f, e, d, c, b, a);
}
static double dbls_a(double a, double b, double c, double d, double e, double f, double g, double h, double i, double j)
{
	printf("  dbls_a %g %g %g %g %g %g %g %g %g %g\n", a, b, c, d, e, f, g, h, i, j);
	return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10;
}
static double mixed_a(int a, double b, long c, float d, char e, double f, short g, double h, int i, double j, double k, double l, double m, double n, double o, long p)
{
	printf("  mixed_a %d %g %ld %g %c %g %d %g %d %g %g %g %g %g %g %ld\n", a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p);
	return a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p;
}
static long structs_a(struct small s, struct big b, int n, struct small t)
{
	printf("  structs_a {%d %g} {%ld %ld %ld %ld %ld %s} %d {%d %g}\n", s.a, s.b, b.v[0], b.v[1], b.v[2], b.v[3], b.v[4], b.tag, n, t.a, t.b);
	return s.a + b.v[0] + b.v[4] + n + t.a;
}
static int vfmt_a(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	printf("  vfmt_a: ");
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

ints_t DYNCALL ints = ints_a;
dbls_t DYNCALL dbls = dbls_a;
mixed_t DYNCALL mixed = mixed_a;
structs_t DYNCALL structs = structs_a;
vfmt_t DYNCALL vfmt = vfmt_a;
vfmt_t DYNCALL vfmt_esc = vfmt_a;
vfmt_t *volatile vfmt_addr = &vfmt_esc; /* escapes: guarded */

__attribute__((noinline)) static long call_ints(int x)
{
	return ints(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9, x + 10, x + 11);
}
__attribute__((noinline)) static double call_dbls(double x)
{
	return dbls(x, x + .5, x + 1, x + 1.5, x + 2, x + 2.5, x + 3, x + 3.5, x + 4, x + 4.5);
}
__attribute__((noinline)) static double call_mixed(int x)
{
	return mixed(x, x * .25, 1L << 40, 1.5f, 'q', -2.5, -7, 1e10, -x, .125, 3, 4, 5, 6, 7, -(1L << 41));
}
__attribute__((noinline)) static long call_structs(int x)
{
	struct small s = { x, 0.5f }, t = { -x, -0.25f };
	struct big b = { { 1, 2, 3, 4, x * 100L }, "tag-bytes" };

	return structs(s, b, 42, t);
}
__attribute__((noinline)) static int call_vfmt(int x)
{
	return vfmt("%d %s %.3f %ld %c %g %g %g %g %g %g %g %g %g\n", x, "str", 3.25, 1L << 50, 'z', 1., 2., 3., 4., 5., 6., 7., 8., 9.5);
}
__attribute__((noinline)) static int call_vfmt_esc(int x)
{
	return vfmt_esc("esc %d %.1f %.1f\n", x, 1.5, 2.5);
}

int main(void)
{
	for (int r = 0; r < 2; r++) {
		printf("ints %ld\n", call_ints(r + 1));
		printf("dbls %g\n", call_dbls(r + .25));
		printf("mixed %.6g\n", call_mixed(r + 3));
		printf("structs %ld\n", call_structs(r + 5));
		printf("vfmt %d\n", call_vfmt(r + 7));
		printf("vfmt_esc %d\n", call_vfmt_esc(r + 8));
		ints = ints_b;
		vfmt = printf;
		*vfmt_addr = printf;
	}
	EXPECT_KEY(ints, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(dbls, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(mixed, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(structs, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(vfmt, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_SITES(vfmt_esc, 1, DYNCALL_STATE_GUARDED, 1);
	return 0;
}
// CHECK:        ints_a 1 2 3 4 5 6 7 8 9 10 11 12
// CHECK-NEXT: ints 650
// CHECK-NEXT:   dbls_a 0.25 0.75 1.25 1.75 2.25 2.75 3.25 3.75 4.25 4.75
// CHECK-NEXT: dbls 178.75
// CHECK-NEXT:   mixed_a 3 0.75 1099511627776 1.5 q -2.5 -7 1e+10 -3 0.125 3 4 5 6 7 -2199023255552
// CHECK-NEXT: mixed -1.08951e+12
// CHECK-NEXT:   structs_a {5 0.5} {1 2 3 4 500 tag-bytes} 42 {-5 -0.25}
// CHECK-NEXT: structs 543
// CHECK-NEXT:   vfmt_a: 7 str 3.250 1125899906842624 z 1 2 3 4 5 6 7 8 9.5
// CHECK-NEXT: vfmt 51
// CHECK-NEXT:   vfmt_a: esc 8 1.5 2.5
// CHECK-NEXT: vfmt_esc 14
// CHECK-NEXT:   ints_a 13 12 11 10 9 8 7 6 5 4 3 2
// CHECK-NEXT: ints -442
// CHECK:      structs 643
// CHECK-NEXT: 8 str 3.250 1125899906842624 z 1 2 3 4 5 6 7 8 9.5
// CHECK-NEXT: vfmt 51
// CHECK-NEXT: esc 9 1.5 2.5
// CHECK-NEXT: vfmt_esc 14
