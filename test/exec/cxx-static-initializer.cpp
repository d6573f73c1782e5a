// Checks that C++ dynamic initialization (a key initialized by a function call, a static object whose constructor stores and calls a key, a function-local static) behaves exactly as in the unannotated program, before and after main.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clangxx -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clangxx -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clangxx -O0 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
#include "expect.h"

typedef int (*fp_t)(int);

static int g_one(int x) { printf("  g_one(%d)\n", x); return x + 1; }
static int g_two(int x) { printf("  g_two(%d)\n", x); return x + 2; }
static int g_three(int x) { printf("  g_three(%d)\n", x); return x + 3; }

static fp_t pick()
{
	printf("pick\n");
	return g_one;
}

fp_t DYNCALL key = pick(); // dynamic initialization: a store at startup

__attribute__((noinline)) static int call(int x) { return key(x); }

struct Registrar {
	Registrar()
	{
		printf("Registrar: %d\n", call(1));
		key = g_two;
		printf("Registrar: %d\n", call(2));
	}
	~Registrar()
	{
		printf("~Registrar: %d\n", call(9));
		key = g_one;
		printf("~Registrar: %d\n", call(10));
	}
};

static Registrar registrar; // after `key` in this unit: in order

static int local_static()
{
	static int v = call(5) * 10; // first use, inside main
	return v;
}

int main()
{
	EXPECT_KEY(key, 1, DYNCALL_STATE_DIRECT, 1);
	printf("main: %d\n", call(3));
	key = g_three;
	printf("main: %d\n", call(4));
	printf("local: %d\n", local_static());
	printf("local: %d\n", local_static());
	EXPECT_KEY(key, 1, DYNCALL_STATE_DIRECT, 1);
	return 0;
}
// CHECK:      pick
// CHECK-NEXT:   g_one(1)
// CHECK-NEXT: Registrar: 2
// CHECK-NEXT:   g_two(2)
// CHECK-NEXT: Registrar: 4
// CHECK-NEXT:   g_two(3)
// CHECK-NEXT: main: 5
// CHECK-NEXT:   g_three(4)
// CHECK-NEXT: main: 7
// CHECK-NEXT:   g_three(5)
// CHECK-NEXT: local: 80
// CHECK-NEXT: local: 80
// CHECK-NEXT:   g_three(9)
// CHECK-NEXT: ~Registrar: 12
// CHECK-NEXT:   g_one(10)
// CHECK-NEXT: ~Registrar: 11
// CHECK-EMPTY:
