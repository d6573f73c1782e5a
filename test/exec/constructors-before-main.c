// Checks that calls through and stores to a key from constructors that run before main (priority 101, default priority, and priority 99, which runs before the module's dyncall registration at 100) and from destructors and atexit handlers behave exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 -Wno-prio-ctor-dtor %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -Wno-prio-ctor-dtor -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clang -O0 -Wno-prio-ctor-dtor -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
#include "expect.h"

typedef int (*fp_t)(int);

static int f_init(int x) { printf("  f_init(%d)\n", x); return x; }
static int f_99(int x) { printf("  f_99(%d)\n", x); return x + 99; }
static int f_101(int x) { printf("  f_101(%d)\n", x); return x + 101; }
static int f_dflt(int x) { printf("  f_dflt(%d)\n", x); return x + 1000; }
static int f_main(int x) { printf("  f_main(%d)\n", x); return x + 5; }
static int f_exit(int x) { printf("  f_exit(%d)\n", x); return x + 7; }

fp_t DYNCALL hook = f_init;

__attribute__((noinline)) static int call(int x) { return hook(x); }

/* Before the module's own registration (priority 100): the store is a
 * plain store, the call takes the slow path. */
__attribute__((constructor(99))) static void ctor_99(void)
{
	printf("ctor 99: %d\n", call(1));
	hook = f_99;
	printf("ctor 99: %d\n", call(2));
}

__attribute__((constructor(101))) static void ctor_101(void)
{
	printf("ctor 101: %d\n", call(3));
	/* Registered by now, and the runtime knows what 99 stored. */
	EXPECT_KEY(hook, 1, DYNCALL_STATE_DIRECT, 0);
	hook = f_101;
	printf("ctor 101: %d\n", call(4));
	EXPECT_KEY(hook, 1, DYNCALL_STATE_DIRECT, 1);
}

__attribute__((constructor)) static void ctor_default(void)
{
	printf("ctor: %d\n", call(5));
	hook = f_dflt;
	printf("ctor: %d\n", call(6));
}

static void at_exit(void)
{
	printf("atexit: %d\n", call(11));
	hook = f_init;
	printf("atexit: %d\n", call(12));
}

__attribute__((destructor)) static void dtor_default(void)
{
	printf("dtor: %d\n", call(13));
	hook = f_99;
	printf("dtor: %d\n", call(14));
}

/* After the module's unregistration (destructor priority 100 runs after
 * this one's would at 101, before 99's): the sites are back to their
 * original bytes. */
__attribute__((destructor(99))) static void dtor_99(void)
{
	printf("dtor 99: %d\n", call(15));
	hook = f_101;
	printf("dtor 99: %d\n", call(16));
	fflush(stdout);
}

int main(void)
{
	EXPECT_KEY(hook, 1, DYNCALL_STATE_DIRECT, 1);
	atexit(at_exit);
	printf("main: %d\n", call(7));
	hook = f_main;
	printf("main: %d\n", call(8));
	hook = f_exit;
	return 0;
}
// CHECK:        f_init(1)
// CHECK-NEXT: ctor 99: 1
// CHECK-NEXT:   f_99(2)
// CHECK-NEXT: ctor 99: 101
// CHECK-NEXT:   f_99(3)
// CHECK-NEXT: ctor 101: 102
// CHECK-NEXT:   f_101(4)
// CHECK-NEXT: ctor 101: 105
// CHECK-NEXT:   f_101(5)
// CHECK-NEXT: ctor: 106
// CHECK-NEXT:   f_dflt(6)
// CHECK-NEXT: ctor: 1006
// CHECK-NEXT:   f_dflt(7)
// CHECK-NEXT: main: 1007
// CHECK-NEXT:   f_main(8)
// CHECK-NEXT: main: 13
// CHECK-NEXT:   f_exit(11)
// CHECK-NEXT: atexit: 18
// CHECK-NEXT:   f_init(12)
// CHECK-NEXT: atexit: 12
// CHECK-NEXT:   f_init(13)
// CHECK-NEXT: dtor: 13
// CHECK-NEXT:   f_99(14)
// CHECK-NEXT: dtor: 113
// CHECK-NEXT:   f_99(15)
// CHECK-NEXT: dtor 99: 114
// CHECK-NEXT:   f_101(16)
// CHECK-NEXT: dtor 99: 117
// CHECK-EMPTY:
