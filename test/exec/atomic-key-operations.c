// Checks that an _Atomic key follows atomic_store, atomic_store_explicit, atomic_exchange and compare_exchange (success and failure) in every call, exactly as in the unannotated program.
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
#include <stdatomic.h>

#include "expect.h"

typedef int (*fp_t)(int);

static int f1(int x) { printf("f1(%d)\n", x); return x + 1; }
static int f2(int x) { printf("f2(%d)\n", x); return x + 2; }
static int f3(int x) { printf("f3(%d)\n", x); return x + 3; }
static int f4(int x) { printf("f4(%d)\n", x); return x + 4; }

_Atomic fp_t DYNCALL akey = f1; /* read-modify-writes: escapes */
_Atomic fp_t DYNCALL skey = f1; /* only loads and atomic stores */

__attribute__((noinline)) static int call_a(int x) { return akey(x); }
__attribute__((noinline)) static int call_s(int x) { return skey(x); }
/* At -O0 the copy `f` lives in memory: a call through a local copy of a
 * key is an ordinary indirect call (only optimized builds see that f is
 * the loaded key). */
#ifdef __OPTIMIZE__
#define SKEY_SITES 2
#else
#define SKEY_SITES 1
#endif
__attribute__((noinline)) static int call_s_loaded(int x)
{
	fp_t f = atomic_load_explicit(&skey, memory_order_acquire);
	return f ? f(x) : -1;
}

int main(void)
{
	// CHECK: f1(1)
	// CHECK-NEXT: = 2
	printf("= %d\n", call_a(1));
	atomic_store(&akey, f2);
	// CHECK-NEXT: f2(2)
	// CHECK-NEXT: = 4
	printf("= %d\n", call_a(2));
	EXPECT_KEY(akey, 1, DYNCALL_STATE_GUARDED, 1);
	fp_t old = atomic_exchange(&akey, f3);
	// CHECK-NEXT: exchanged f2
	printf("exchanged %s\n", old == f2 ? "f2" : "?");
	// CHECK-NEXT: f3(3)
	// CHECK-NEXT: = 6
	printf("= %d\n", call_a(3));
	EXPECT_KEY(akey, 1, DYNCALL_STATE_GUARDED, 1);
	fp_t expected = f1; /* wrong: fails, loads f3 */
	int ok = atomic_compare_exchange_strong(&akey, &expected, f4);
	// CHECK-NEXT: cas 0 saw f3
	printf("cas %d saw %s\n", ok, expected == f3 ? "f3" : "?");
	// CHECK-NEXT: f3(4)
	// CHECK-NEXT: = 7
	printf("= %d\n", call_a(4));
	ok = atomic_compare_exchange_strong(&akey, &expected, f4);
	// CHECK-NEXT: cas 1
	printf("cas %d\n", ok);
	// CHECK-NEXT: f4(5)
	// CHECK-NEXT: = 9
	printf("= %d\n", call_a(5));
	EXPECT_KEY(akey, 1, DYNCALL_STATE_GUARDED, 1);
	expected = f4;
	while (!atomic_compare_exchange_weak(&akey, &expected, f1))
		;
	// CHECK-NEXT: f1(6)
	// CHECK-NEXT: = 7
	printf("= %d\n", call_a(6));
	EXPECT_KEY(akey, 1, DYNCALL_STATE_GUARDED, 1);

	// CHECK-NEXT: f1(7)
	// CHECK-NEXT: = 8
	printf("= %d\n", call_s(7));
	atomic_store_explicit(&skey, f2, memory_order_release);
	// CHECK-NEXT: f2(8)
	// CHECK-NEXT: = 10
	printf("= %d\n", call_s(8));
	skey = f3; /* a plain assignment to an _Atomic: seq_cst store */
	// CHECK-NEXT: f3(9)
	// CHECK-NEXT: = 12
	printf("= %d\n", call_s(9));
	// CHECK-NEXT: f3(10)
	// CHECK-NEXT: = 13
	printf("= %d\n", call_s_loaded(10));
	EXPECT_KEY(skey, SKEY_SITES, ST_ANY, SKEY_SITES);
	atomic_store_explicit(&skey, NULL, memory_order_relaxed);
	// CHECK-NEXT: = -1
	printf("= %d\n", call_s_loaded(11));
	atomic_store(&skey, f4);
	// CHECK-NEXT: f4(12)
	// CHECK-NEXT: = 16
	printf("= %d\n", call_s_loaded(12));
	EXPECT_KEY(skey, SKEY_SITES, ST_ANY, SKEY_SITES);
	return 0;
}
