// Checks checking mode (DYNCALL_CHECK=1): after a store from a unit built without the plugin, the program still calls the right function, and stderr names the stale key, the site's function and both pointers, once per site.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); -mretpoline is an x86-64 option; dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s %exec_inputs/unseen_store.c -o %t/ref
// RUN: %t/ref > %t/ref.out 2> %t/ref.err
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs -c %s -o %t/main.o
// RUN: %clang -O2 -c %exec_inputs/unseen_store.c -o %t/unseen.o
// RUN: %clang -rdynamic %t/main.o %t/unseen.o -o %t/dc %libdyncall_ldflags
// RUN: env DYNCALL_CHECK=1 %t/dc > %t/dc.out 2> %t/dc.err
// RUN: diff %t/ref.out %t/dc.out
// RUN: FileCheck %s < %t/dc.out
// RUN: FileCheck --check-prefix=ERR %s < %t/dc.err
// The same at -O0 and with a retpoline slow path.
// RUN: %dyncall_clang -O0 -mretpoline -DWITH_DYNCALL -I%exec_inputs -c %s -o %t/main0.o
// RUN: %clang -rdynamic %t/main0.o %t/unseen.o -o %t/dc0 %libdyncall_ldflags
// RUN: env DYNCALL_CHECK=1 %t/dc0 > %t/dc0.out 2> %t/dc0.err
// RUN: diff %t/ref.out %t/dc0.out
// RUN: FileCheck --check-prefix=ERR %s < %t/dc0.err
#include "expect.h"

typedef int (*fp_t)(int);
void unseen_set(fp_t f);

int first(int x) { printf("  first(%d)\n", x); return x + 1; }
int second(int x) { printf("  second(%d)\n", x); return x + 2; }
int third(int x) { printf("  third(%d)\n", x); return x + 3; }

fp_t DYNCALL hook = first;

__attribute__((noinline)) int call_hook(int x) { return hook(x) * 10; }

int main(void)
{
	fprintf(stderr, "first=%p second=%p third=%p\n", (void *)first,
		(void *)second, (void *)third);
	// CHECK:        first(1)
	// CHECK-NEXT: = 20
	printf("= %d\n", call_hook(1));
	/* Checking mode guards every site, fresh ones included. */
	EXPECT_KEY(hook, 1, DYNCALL_STATE_GUARDED, 1);
	unseen_set(second);
	// CHECK-NEXT:   second(2)
	// CHECK-NEXT: = 40
	// CHECK-NEXT:   second(3)
	// CHECK-NEXT: = 50
	printf("= %d\n", call_hook(2));
	printf("= %d\n", call_hook(3)); /* reported once */
	fflush(stderr);
	/* A store the plugin sees resynchronizes: no report. */
	hook = first;
	// CHECK-NEXT:   first(4)
	// CHECK-NEXT: = 50
	printf("= %d\n", call_hook(4));
	unseen_set(third);
	// CHECK-NEXT:   third(5)
	// CHECK-NEXT: = 80
	printf("= %d\n", call_hook(5));
#ifdef WITH_DYNCALL
	struct dyncall_stats st;

	dyncall_get_stats(&st);
	/* Misses: calls 2, 3 and 5. */
	fprintf(stderr, "guard misses %llu\n", (unsigned long long)st.guard_misses);
#else
	fprintf(stderr, "guard misses 3\n");
#endif
	return 0;
}
// ERR:      first=[[FIRST:0x[0-9a-f]+]] second=[[SECOND:0x[0-9a-f]+]] third=[[THIRD:0x[0-9a-f]+]]
// ERR-NEXT: dyncall: stale key 'hook' at call_hook+0x{{[0-9a-f]+}} (0x{{[0-9a-f]+}}): called [[SECOND]], sites patched to [[FIRST]]
// ERR-NOT:  stale key
// ERR:      guard misses 3
