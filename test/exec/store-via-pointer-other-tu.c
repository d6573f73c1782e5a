// Checks that stores through a key's address passed to a function in another translation unit (built with the plugin too) are followed by every call, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s %exec_inputs/store_through.c -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/store_through.c -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// Full LTO may inline the other unit's stores: still right (GNU ld: needs LLVMgold.so).
// RUN: %if llvmgold %{ %dyncall_clang -O2 -flto -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/store_through.c -o %t.lto %libdyncall_ldflags %}
// RUN: %if llvmgold %{ %t.lto > %t.lto.out %}
// RUN: %if llvmgold %{ diff %t.ref.out %t.lto.out %}
#include "expect.h"

typedef int (*fp_t)(int);
void store_through(fp_t *where, fp_t value);
fp_t exchange_through(fp_t *where, fp_t value);

static int f1(int x) { printf("f1(%d)\n", x); return x + 1; }
static int f2(int x) { printf("f2(%d)\n", x); return x + 2; }
static int f3(int x) { printf("f3(%d)\n", x); return x + 3; }

fp_t DYNCALL key = f1;

__attribute__((noinline)) static int call(int x) { return key(x) * 10; }

int main(void)
{
	// CHECK: f1(1)
	// CHECK-NEXT: = 20
	printf("= %d\n", call(1));
	store_through(&key, f2);
	// CHECK-NEXT: f2(2)
	// CHECK-NEXT: = 40
	printf("= %d\n", call(2));
	EXPECT_ESCAPES(key, 1);
	EXPECT_SITES(key, 1, DYNCALL_STATE_GUARDED, 1);
	fp_t old = exchange_through(&key, f3);
	// CHECK-NEXT: old is f2
	printf("old is %s\n", old == f2 ? "f2" : "?");
	// CHECK-NEXT: f3(3)
	// CHECK-NEXT: = 60
	printf("= %d\n", call(3));
	// The key also calls right from the other direction: a direct call
	// of what the key holds.
	// CHECK-NEXT: f3(4)
	// CHECK-NEXT: = 7
	printf("= %d\n", key(4));
	for (int i = 0; i < 6; i++) {
		store_through(&key, i % 3 == 0 ? f1 : i % 3 == 1 ? f2 : f3);
		printf("= %d\n", call(i));
	}
	// CHECK-NEXT: f1(0)
	// CHECK-NEXT: = 10
	// CHECK-NEXT: f2(1)
	// CHECK-NEXT: = 30
	// CHECK-NEXT: f3(2)
	// CHECK-NEXT: = 50
	// CHECK-NEXT: f1(3)
	// CHECK-NEXT: = 40
	// CHECK-NEXT: f2(4)
	// CHECK-NEXT: = 60
	// CHECK-NEXT: f3(5)
	// CHECK-NEXT: = 80
	return 0;
}
