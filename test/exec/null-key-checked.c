// Checks that a key that is NULL, tested before calling (`if (key) key(x)`, `key ? key(x) : d`), and then set and reset to NULL behaves exactly as in the unannotated program.
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
typedef void (*notify_t)(const char *);

static int plus(int x) { printf("  plus(%d)\n", x); return x + 1; }
static void say(const char *s) { printf("  say(%s)\n", s); }

fp_t DYNCALL key;       /* NULL until set */
notify_t DYNCALL notify; /* void, tested then called */

__attribute__((noinline)) static int maybe(int x)
{
	if (key)
		return key(x);
	return -1;
}

__attribute__((noinline)) static int cond(int x) { return key ? key(x) * 2 : -2; }

__attribute__((noinline)) static void event(const char *s)
{
	if (notify)
		notify(s);
}

int main(void)
{
	// CHECK: null: -1 -2
	printf("null: %d %d\n", maybe(1), cond(2));
	event("dropped");
	EXPECT_KEY(key, 2, ST_ANY, 2);
	key = plus;
	notify = say;
	// CHECK-NEXT:   plus(3)
	// CHECK-NEXT:   plus(4)
	// CHECK-NEXT: set: 4 10
	printf("set: %d %d\n", maybe(3), cond(4));
	// CHECK-NEXT:   say(delivered)
	event("delivered");
	EXPECT_KEY(key, 2, DYNCALL_STATE_DIRECT, 1);
	/* At -O2, `if (key) return key(x);` is a conditional tail jump to the
	 * trampoline (jne), which the pass announced as a call: run-time
	 * discovery fails its check a few times (8), then patches the
	 * trampoline.  Enough calls to get there. */
	for (int i = 0; i < 10; i++)
		maybe(100 + i);
	for (int i = 0; i < 10; i++)
		event("warm");
	// CHECK-COUNT-10: plus(1{{[0-9][0-9]}})
	// CHECK-COUNT-10: say(warm)
	EXPECT_KEY(key, 2, DYNCALL_STATE_DIRECT, 2);
	EXPECT_KEY(notify, 1, DYNCALL_STATE_DIRECT, 1);
	key = NULL;
	notify = NULL;
	// CHECK-NEXT: null again: -1 -2
	printf("null again: %d %d\n", maybe(5), cond(6));
	event("dropped");
	EXPECT_KEY(key, 2, DYNCALL_STATE_SLOW, 2);
	key = plus;
	notify = say;
	// CHECK-NEXT:   plus(7)
	// CHECK-NEXT:   plus(8)
	// CHECK-NEXT: set again: 8 18
	printf("set again: %d %d\n", maybe(7), cond(8));
	// CHECK-NEXT:   say(again)
	event("again");
	EXPECT_KEY(key, 2, DYNCALL_STATE_DIRECT, 2);
	return 0;
}
