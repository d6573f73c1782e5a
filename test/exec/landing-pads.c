// Checks (with the runtime's introspection under Clang, by the same output under gcc) that in a module built with IBT (-fcf-protection=branch) a site is made direct, or gets a target in its guard stub, only when the target starts with endbr64: a key holding a function address past its endbr64 keeps the indirect path (fresh key: slow; escaped key: never learned), with Clang and GCC, and every call still reaches what the site loaded.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// RUN: %clang -O2 -fcf-protection=branch %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -fcf-protection=branch -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %if gcc-plugin %{ %dyncall_gcc -O2 -fcf-protection=branch -I%exec_inputs %s -o %t.gcc %libdyncall_ldflags && %t.gcc > %t.gcc.out && diff %t.ref.out %t.gcc.out %}
#include "expect.h"

typedef int (*fn_t)(int);

__attribute__((noinline)) int add1(int x)
{
	return x + 1;
}

__attribute__((noinline)) int add2(int x)
{
	return x + 2;
}

/* The same code without its landing pad: the address of add2's body. A
 * direct branch would reach it; an indirect call under IBT enforcement
 * would fault, and dyncall must not change which of the two happens. */
static fn_t past_pad(fn_t f)
{
	const unsigned char *p = (const unsigned char *)f;

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	return (fn_t)p;
}

fn_t fresh DYNCALL;
fn_t escaped DYNCALL;
fn_t *volatile escape_hatch = &escaped;

__attribute__((noinline)) static int call_fresh(int x)
{
	return fresh(x);
}

__attribute__((noinline)) static int call_escaped(int x)
{
	return escaped(x);
}

#ifdef WITH_DYNCALL
static int no_target(const struct dyncall_site_info *si, void *arg)
{
	for (unsigned i = 0; i < si->ntargets; i++)
		if (si->targets[i] == arg)
			EXPECT_FAIL(__FILE__, __LINE__,
				    "a target past its landing pad in a stub");
	if (si->state == DYNCALL_STATE_DIRECT && si->target == arg)
		EXPECT_FAIL(__FILE__, __LINE__,
			    "a direct call past a landing pad");
	return 0;
}
#endif

int main(void)
{
	long sum = 0;

	fresh = add1;
	// CHECK: fresh add1: 2
	printf("fresh add1: %d\n", call_fresh(1));
	EXPECT_KEY(fresh, 1, DYNCALL_STATE_DIRECT, 1);
	fresh = past_pad(add2);
	// CHECK-NEXT: fresh past the pad: 3
	printf("fresh past the pad: %d\n", call_fresh(1));
	EXPECT_KEY(fresh, 1, DYNCALL_STATE_SLOW, 1);
	fresh = add1;
	// CHECK-NEXT: fresh add1 again: 2
	printf("fresh add1 again: %d\n", call_fresh(1));
	EXPECT_KEY(fresh, 1, DYNCALL_STATE_DIRECT, 1);

	/* An escaped key whose calls alternate between add1 and add2's body:
	 * the site learns add1, never the target past the pad. */
	for (int i = 0; i < 20000; i++) {
		*escape_hatch = i & 1 ? past_pad(add2) : add1;
		sum += call_escaped(i);
	}
	// CHECK-NEXT: escaped: 200020000
	printf("escaped: %ld\n", sum);
#ifdef WITH_DYNCALL
	dyncall_foreach_site((const void *)&escaped, no_target,
			     (void *)past_pad(add2));
#endif
	return 0;
}
