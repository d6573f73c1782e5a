// Checks that stores to a key from another translation unit built with the plugin (extern declaration) retarget the sites of both units, which stay direct, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s %exec_inputs/other_tu_key.c -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/other_tu_key.c -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// ThinLTO across the two units (with lld when there is one).
// RUN: %if lld %{ %dyncall_clang -O1 -flto=thin -fuse-ld=lld -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/other_tu_key.c -o %t.thin %libdyncall_ldflags %}
// RUN: %if lld %{ %t.thin > %t.thin.out %}
// RUN: %if lld %{ diff %t.ref.out %t.thin.out %}
#include "expect.h"

typedef int (*fp_t)(int);
void other_set(int which);
int other_call(int x);

static int mine(int x) { printf("mine(%d)\n", x); return x; }

fp_t DYNCALL shared_key = mine;

__attribute__((noinline)) static int here(int x) { return shared_key(x) + 2; }

int main(void)
{
	// CHECK: mine(1)
	// CHECK-NEXT: here 3
	// CHECK-NEXT: mine(2)
	// CHECK-NEXT: there 3
	printf("here %d\n", here(1));
	printf("there %d\n", other_call(2));
	EXPECT_KEY(shared_key, 2, DYNCALL_STATE_DIRECT, 2);
	other_set(0);
	// CHECK-NEXT: other_a(3)
	// CHECK-NEXT: here 302
	// CHECK-NEXT: other_a(4)
	// CHECK-NEXT: there 401
	printf("here %d\n", here(3));
	printf("there %d\n", other_call(4));
	EXPECT_KEY(shared_key, 2, DYNCALL_STATE_DIRECT, 2);
	other_set(1);
	// CHECK-NEXT: other_b(5)
	// CHECK-NEXT: here 5002
	// CHECK-NEXT: other_b(6)
	// CHECK-NEXT: there 6001
	printf("here %d\n", here(5));
	printf("there %d\n", other_call(6));
	EXPECT_KEY(shared_key, 2, DYNCALL_STATE_DIRECT, 2);
	shared_key = mine;
	// CHECK-NEXT: mine(7)
	// CHECK-NEXT: here 9
	// CHECK-NEXT: mine(8)
	// CHECK-NEXT: there 9
	printf("here %d\n", here(7));
	printf("there %d\n", other_call(8));
	EXPECT_KEY(shared_key, 2, DYNCALL_STATE_DIRECT, 2);
	EXPECT_ESCAPES(shared_key, 0);
	return 0;
}
