// Checks that stores through an escaped address of a key (`fp_t *p = &key; *p = g;`, also volatile and memcpy) are followed by every call, exactly as in the unannotated program, the sites being guarded.
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
#include "expect.h"

typedef int (*fp_t)(int);

static int f1(int x) { printf("f1(%d)\n", x); return x + 1; }
static int f2(int x) { printf("f2(%d)\n", x); return x + 2; }
static int f3(int x) { printf("f3(%d)\n", x); return x + 3; }
static int f4(int x) { printf("f4(%d)\n", x); return x + 4; }

fp_t DYNCALL key = f1;

__attribute__((noinline)) static int call(int x) { return key(x); }

int main(void)
{
	fp_t *p = &key;
	fp_t *volatile vp = &key;

	// CHECK: f1(1)
	// CHECK-NEXT: = 2
	printf("= %d\n", call(1));
	EXPECT_ESCAPES(key, 1);
	EXPECT_KEY(key, 1, DYNCALL_STATE_GUARDED, 1);
	*p = f2;
	// CHECK-NEXT: f2(2)
	// CHECK-NEXT: = 4
	printf("= %d\n", call(2));
	// The runtime did not see that store; the guarded site followed it.
	EXPECT_SITES(key, 1, DYNCALL_STATE_GUARDED, 1);
	*vp = f3;
	// CHECK-NEXT: f3(3)
	// CHECK-NEXT: = 6
	printf("= %d\n", call(3));
	// CHECK-NEXT: f3(4)
	// CHECK-NEXT: = 7
	printf("= %d\n", key(4));
	fp_t g = f4;
	memcpy(p, &g, sizeof(g));
	// CHECK-NEXT: f4(5)
	// CHECK-NEXT: = 9
	printf("= %d\n", call(5));
	key = f1; /* a store the plugin sees: the runtime repatches */
	// CHECK-NEXT: f1(6)
	// CHECK-NEXT: = 7
	printf("= %d\n", call(6));
	EXPECT_KEY(key, 1, DYNCALL_STATE_GUARDED, 1);
	for (int i = 0; i < 4; i++) {
		*p = (i & 1) ? f1 : f2;
		printf("= %d\n", call(10 + i));
	}
	// CHECK-NEXT: f2(10)
	// CHECK-NEXT: = 12
	// CHECK-NEXT: f1(11)
	// CHECK-NEXT: = 12
	// CHECK-NEXT: f2(12)
	// CHECK-NEXT: = 14
	// CHECK-NEXT: f1(13)
	// CHECK-NEXT: = 14
	return 0;
}
