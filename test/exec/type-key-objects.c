// Checks a type key (an annotated struct field): several objects with different handlers, calls through each (one site seeing many targets) hit each object's own handler, stores to one object's field do not affect the others, and the sites are guarded, never direct.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/tkeys.c -DTKEY_OPS_APPLY -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clang -O0 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/tkeys.c -DTKEY_OPS_APPLY -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
#include "expect.h"

struct ops {
	const char *name;
	int (*DYNCALL apply)(int);
};

/* The type key's descriptor (Inputs/tkeys.c). */
void **tkey_ops_apply(void);

static int add1(int x) { return x + 1; }
static int mul3(int x) { return x * 3; }
static int sub7(int x) { return x - 7; }
static int sq(int x) { return x * x; }

__attribute__((noinline)) static int call(struct ops *o, int x) { return o->apply(x); }

int main(void)
{
	struct ops objs[4] = { { "a", add1 }, { "b", mul3 }, { "c", sub7 }, { "d", sq } };
	static struct ops global = { "g", sq };

	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 4; i++)
			printf("%s(%d)=%d ", objs[i].name, 10 + r, call(&objs[i], 10 + r));
		printf("%s=%d\n", global.name, call(&global, r));
	}
	// CHECK:      a(10)=11 b(10)=30 c(10)=3 d(10)=100 g=0
	// CHECK-NEXT: a(11)=12 b(11)=33 c(11)=4 d(11)=121 g=1
	// CHECK-NEXT: a(12)=13 b(12)=36 c(12)=5 d(12)=144 g=4
	objs[1].apply = add1; /* only b changes */
	global.apply = mul3;
	for (int i = 0; i < 4; i++)
		printf("%s=%d ", objs[i].name, call(&objs[i], 5));
	printf("%s=%d\n", global.name, call(&global, 5));
	// CHECK-NEXT: a=6 b=6 c=-2 d=25 g=15
	/* A long run on one object: the guard hits. */
	long sum = 0;
	for (int i = 0; i < 100000; i++)
		sum += call(&objs[2], i);
	// CHECK-NEXT: sum 4999250000
	printf("sum %ld\n", sum);
#ifdef WITH_DYNCALL
	{
		struct dyncall_key_info ki;

		if (dyncall_key_info(tkey_ops_apply(), &ki) != DYNCALL_OK)
			EXPECT_FAIL(__FILE__, __LINE__, "type key not registered");
		if (!ki.type_key || strcmp(ki.name, "struct ops.apply") != 0 ||
		    ki.nsites < 1 || ki.ndirect != 0)
			EXPECT_FAIL(__FILE__, __LINE__,
				    "type key %s: type %d sites %u direct %u",
				    ki.name, ki.type_key, ki.nsites, ki.ndirect);
	}
	EXPECT_LEARNING(*tkey_ops_apply(), "struct ops.apply", 1,
			DYNCALL_STATE_GUARDED, 1);
#endif
	return 0;
}
