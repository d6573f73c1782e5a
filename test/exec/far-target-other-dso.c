// Checks that a key assigned functions of other DSOs (a -fPIC library and libc's abs/labs/toupper, beyond rel32 reach of a PIE's sites) calls them exactly as in the unannotated program, direct through far stubs.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); -mretpoline is an x86-64 option; dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -fPIC -shared %exec_inputs/far_lib.c -o %t/libfar.so
// RUN: %clang -O2 -fPIE -pie %libdyncall_cflags -I%exec_inputs %s -L%t -lfar -Wl,-rpath,%t -o %t/ref
// RUN: %t/ref > %t/ref.out
// RUN: %dyncall_clang -O2 -fPIE -pie -DWITH_DYNCALL -I%exec_inputs %s -L%t -lfar -Wl,-rpath,%t -o %t/dc %libdyncall_ldflags
// RUN: %t/dc > %t/dc.out
// RUN: diff %t/ref.out %t/dc.out
// RUN: FileCheck %s < %t/dc.out
// RUN: %dyncall_clang -O2 -fno-pie -no-pie -mretpoline -DWITH_DYNCALL -I%exec_inputs %s -L%t -lfar -Wl,-rpath,%t -o %t/nopie %libdyncall_ldflags
// RUN: %t/nopie > %t/nopie.out
// RUN: diff %t/ref.out %t/nopie.out
#include <ctype.h>

#include "expect.h"

typedef int (*fp_t)(int);
typedef long (*lfp_t)(long);

int far_triple(int x);
int far_neg(int x);

static int near_id(int x) { printf("  near_id(%d)\n", x); return x; }

fp_t DYNCALL key = near_id;
lfp_t DYNCALL lkey = labs;

__attribute__((noinline)) static int call(int x) { return key(x); }
__attribute__((noinline)) static long lcall(long x) { return lkey(x); }

int main(void)
{
	fp_t fs[] = { far_triple, abs, far_neg, toupper, near_id, abs };

	for (int i = 0; i < 6; i++) {
		key = fs[i];
		printf("%d: %d\n", i, call(-97 - i));
		EXPECT_KEY(key, 1, DYNCALL_STATE_DIRECT, 1);
	}
	printf("labs: %ld\n", lcall(-1234567890123L));
	EXPECT_KEY(lkey, 1, DYNCALL_STATE_DIRECT, 1);
	return 0;
}
// CHECK:        far_triple(-97)
// CHECK-NEXT: 0: -291
// CHECK-NEXT: 1: 98
// CHECK-NEXT:   far_neg(-99)
// CHECK-NEXT: 2: 99
// CHECK-NEXT: 3: 156
// CHECK-NEXT:   near_id(-101)
// CHECK-NEXT: 4: -101
// CHECK-NEXT: 5: 102
// CHECK-NEXT: labs: 1234567890123
