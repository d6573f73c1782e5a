// Checks that sites return every kind of value exactly as the unannotated program does: a large struct (sret), a two-register struct, float, double, long double (x87), _Complex double, __int128, and void.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clang -O0 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
#include <complex.h>

#include "expect.h"

struct big { long a, b, c, d; char name[16]; };
struct pair { long lo; double hi; };

static struct big make_big(int x) { struct big b = { x, 2L * x, 3L * x, 4L * x, "big" }; return b; }
static struct big make_big2(int x) { struct big b = { -x, 0, 0, 1, "big2" }; return b; }
static struct pair make_pair(int x) { struct pair p = { x * 1000L, x / 4.0 }; return p; }
static float f_half(float x) { return x / 2; }
static double d_third(double x) { return x / 3; }
static long double ld_sq(long double x) { return x * x; }
static double _Complex c_rot(double x) { return x * I; }
static __int128 wide(long x) { return (__int128)x << 64 | 7; }
static int side;
static void v_set(int x) { side = x; }

struct big (*DYNCALL k_big)(int) = make_big;
struct pair (*DYNCALL k_pair)(int) = make_pair;
float (*DYNCALL k_f)(float) = f_half;
double (*DYNCALL k_d)(double) = d_third;
long double (*DYNCALL k_ld)(long double) = ld_sq;
double _Complex (*DYNCALL k_c)(double) = c_rot;
__int128 (*DYNCALL k_w)(long) = wide;
void (*DYNCALL k_v)(int) = v_set;

__attribute__((noinline)) static struct big call_big(int x) { return k_big(x); }
__attribute__((noinline)) static long call_big_field(int x) { return k_big(x).c + 1; }
__attribute__((noinline)) static struct pair call_pair(int x) { return k_pair(x); }
__attribute__((noinline)) static float call_f(float x) { return k_f(x) + 1; }
__attribute__((noinline)) static double call_d(double x) { return k_d(x); }
__attribute__((noinline)) static long double call_ld(long double x) { return k_ld(x) + 1; }
__attribute__((noinline)) static double _Complex call_c(double x) { return k_c(x); }
__attribute__((noinline)) static __int128 call_w(long x) { return k_w(x); }
__attribute__((noinline)) static void call_v(int x) { k_v(x); }

int main(void)
{
	for (int r = 0; r < 2; r++) {
		struct big b = call_big(5 + r);
		printf("big %ld %ld %ld %ld %s\n", b.a, b.b, b.c, b.d, b.name);
		printf("big.c %ld\n", call_big_field(7));
		struct pair p = call_pair(9);
		printf("pair %ld %g\n", p.lo, p.hi);
		printf("float %.4f\n", call_f(3.5f));
		printf("double %.10f\n", call_d(10));
		printf("long double %.6Lf\n", call_ld(1.5L));
		double _Complex c = call_c(2.5);
		printf("complex %g %g\n", creal(c), cimag(c));
		__int128 w = call_w(-3);
		printf("int128 %lld %llu\n", (long long)(w >> 64), (unsigned long long)w);
		call_v(11 + r);
		printf("void %d\n", side);
		k_big = make_big2;
	}
	EXPECT_KEY(k_big, 2, DYNCALL_STATE_DIRECT, 2);
	EXPECT_KEY(k_pair, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(k_f, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(k_d, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(k_ld, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(k_c, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(k_w, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(k_v, 1, DYNCALL_STATE_DIRECT, 1);
	return 0;
}
// CHECK:      big 5 10 15 20 big
// CHECK-NEXT: big.c 22
// CHECK-NEXT: pair 9000 2.25
// CHECK-NEXT: float 2.7500
// CHECK-NEXT: double 3.3333333333
// CHECK-NEXT: long double 3.250000
// CHECK-NEXT: complex {{-?}}0 2.5
// CHECK-NEXT: int128 -3 7
// CHECK-NEXT: void 11
// CHECK-NEXT: big -6 0 0 1 big2
// CHECK-NEXT: big.c 1
// CHECK:      void 12
