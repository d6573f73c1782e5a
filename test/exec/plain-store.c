// Checks that plain stores to a variable key retarget every call, exactly as in the unannotated program, with the sites registered and patched direct.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.ref > %t.ref.out
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
#include "expect.h"

static int twice(int x) { printf("twice(%d)\n", x); return 2 * x; }
static int square(int x) { printf("square(%d)\n", x); return x * x; }
static int negate(int x) { printf("negate(%d)\n", x); return -x; }

int (*DYNCALL op)(int) = twice;

__attribute__((noinline)) static int apply(int x) { return op(x) + 1; }

int main(void)
{
	int (*const ops[])(int) = { square, negate, twice, square };

	// CHECK: twice(3)
	// CHECK-NEXT: apply(3) = 7
	printf("apply(3) = %d\n", apply(3));
	EXPECT_KEY(op, 1, DYNCALL_STATE_DIRECT, 1);
	for (int i = 0; i < 4; i++) {
		op = ops[i];
		printf("apply(%d) = %d\n", i + 4, apply(i + 4));
		EXPECT_KEY(op, 1, DYNCALL_STATE_DIRECT, 1);
	}
	// CHECK-NEXT: square(4)
	// CHECK-NEXT: apply(4) = 17
	// CHECK-NEXT: negate(5)
	// CHECK-NEXT: apply(5) = -4
	// CHECK-NEXT: twice(6)
	// CHECK-NEXT: apply(6) = 13
	// CHECK-NEXT: square(7)
	// CHECK-NEXT: apply(7) = 50
	op = 0;
	// CHECK-NEXT: null key
	printf("%s key\n", op ? "set" : "null");
	return 0;
}
