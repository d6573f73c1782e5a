// Checks that a target that longjmps out of a dyncall site (call and tail sites, fresh and guarded, first call during discovery and later patched calls) returns to the caller's setjmp exactly as in the unannotated program, with the stack intact.
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
#include <setjmp.h>

#include "expect.h"

typedef int (*fp_t)(int);

static jmp_buf env;
static sigjmp_buf senv;

static int jumper(int x) { longjmp(env, x + 1); }
static int sjumper(int x) { siglongjmp(senv, x + 1); }
static int normal(int x) { return x * 2; }

fp_t DYNCALL fresh = jumper;
fp_t DYNCALL guarded = jumper;
fp_t *volatile guarded_addr = &guarded; /* escapes: guarded sites */

__attribute__((noinline)) static int call_fresh(int x) { return fresh(x) + 1; }
__attribute__((noinline)) static int tail_fresh(int x) { return fresh(x); }
__attribute__((noinline)) static int call_guarded(int x) { return guarded(x) + 1; }

/* Deep in the stack: the longjmp unwinds these frames. */
__attribute__((noinline)) static int deep(int n, int (*site)(int), int x)
{
	volatile int pad[16];

	pad[n & 15] = n;
	if (n)
		return deep(n - 1, site, x) + pad[n & 15] - n;
	return site(x);
}

static int run(const char *what, int (*site)(int), int x)
{
	volatile int marker = 0x5a5a;
	int r = setjmp(env);

	if (r) {
		printf("%s: longjmp %d marker %#x\n", what, r, marker);
		return r;
	}
	r = deep(8, site, x);
	printf("%s: returned %d\n", what, r);
	return r;
}

int main(void)
{
	long sum = 0;

	// CHECK:      fresh: longjmp 2 marker 0x5a5a
	// CHECK-NEXT: tail: longjmp 3 marker 0x5a5a
	// CHECK-NEXT: guarded: longjmp 4 marker 0x5a5a
	run("fresh", call_fresh, 1);
	run("tail", tail_fresh, 2);
	run("guarded", call_guarded, 3);
	/* Patched by now: many more, the stack must not drift. */
	for (int i = 0; i < 10000; i++) {
		int r = setjmp(env);
		if (r) {
			sum += r;
			continue;
		}
		switch (i % 3) {
		case 0: call_fresh(i); break;
		case 1: tail_fresh(i); break;
		default: call_guarded(i); break;
		}
	}
	// CHECK-NEXT: loop sum 50005000
	printf("loop sum %ld\n", sum);
	EXPECT_KEY(fresh, 2, DYNCALL_STATE_DIRECT, 2);
	EXPECT_KEY(guarded, 1, DYNCALL_STATE_GUARDED, 1);

	fresh = normal;
	*guarded_addr = normal;
	// CHECK-NEXT: fresh: returned 21
	// CHECK-NEXT: tail: returned 40
	// CHECK-NEXT: guarded: returned 61
	run("fresh", call_fresh, 10);
	run("tail", tail_fresh, 20);
	run("guarded", call_guarded, 30);

	/* siglongjmp, from a target reached after a retarget. */
	fresh = sjumper;
	int r = sigsetjmp(senv, 1);
	if (!r)
		call_fresh(41);
	// CHECK-NEXT: siglongjmp 42
	printf("siglongjmp %d\n", r);
	EXPECT_KEY(fresh, 2, DYNCALL_STATE_DIRECT, 2);
	return 0;
}
