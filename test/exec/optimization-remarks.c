// Checks the dynamic-call optimization remarks: -Rpass names each new site and whether it is fresh or guarded, -Rpass-missed explains each call through a key left indirect (musttail, a non-C calling convention); the program still behaves exactly as the unannotated one.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs -Rpass=dynamic-call -c %s -o %t/pass.o 2>&1 | FileCheck --check-prefix=PASS --implicit-check-not=remark: %s
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs -Rpass-missed=dynamic-call -c %s -o %t/missed.o 2>&1 | FileCheck --check-prefix=MISSED --implicit-check-not=remark: %s
// RUN: %dyncall_clang -O0 -DWITH_DYNCALL -I%exec_inputs -Rpass-missed=dynamic-call -c %s -o %t/missed0.o 2>&1 | FileCheck --check-prefix=MISSED --implicit-check-not=remark: %s
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t/ref
// RUN: %t/ref > %t/ref.out
// RUN: %clang %t/pass.o -o %t/dc %libdyncall_ldflags
// RUN: %t/dc > %t/dc.out
// RUN: diff %t/ref.out %t/dc.out
// RUN: FileCheck --check-prefix=OUT %s < %t/dc.out
#include "expect.h"

typedef int (*fp_t)(int);
typedef int (__attribute__((ms_abi)) *ms_fp_t)(int);

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
static int __attribute__((ms_abi)) ms_twice(int x) { return 2 * x; }

fp_t DYNCALL key = twice;
fp_t DYNCALL escaping = twice;
fp_t *volatile escaping_addr = &escaping;
ms_fp_t DYNCALL ms_key = ms_twice;

// PASS: optimization-remarks.c:[[@LINE+1]]:{{[0-9]+}}: remark: call through dynamic_call key 'key' is now site __dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}} (fresh)
__attribute__((noinline)) int fresh_site(int x) { return key(x) + 1; }

// A key whose address escapes: the site itself is fresh (the runtime
// guards it, a property of the key).
// PASS: optimization-remarks.c:[[@LINE+1]]:{{[0-9]+}}: remark: call through dynamic_call key 'escaping' is now site __dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}} (fresh)
__attribute__((noinline)) int escaping_site(int x) { return escaping(x) + 1; }

// The loaded pointer is used after the call: a guarded site.
static fp_t last;
// PASS: optimization-remarks.c:[[@LINE+4]]:{{[0-9]+}}: remark: call through dynamic_call key 'key' is now site __dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}} (guarded)
__attribute__((noinline)) int guarded_site(int x)
{
	fp_t f = key;
	int r = f(x);
	last = f;
	return r + (last == f);
}

// A musttail call cannot gain the static-chain argument: left indirect.
// MISSED: optimization-remarks.c:[[@LINE+3]]:{{[0-9]+}}: remark: call through dynamic_call key 'key' left indirect: musttail calls cannot gain the static-chain argument
__attribute__((noinline)) int must_tail(int x)
{
	__attribute__((musttail)) return key(x);
}

// MISSED: optimization-remarks.c:[[@LINE+1]]:{{[0-9]+}}: remark: call through dynamic_call key 'ms_key' left indirect: the call does not use the C calling convention
__attribute__((noinline)) int ms_site(int x) { return ms_key(x) + 1; }

int main(void)
{
	// OUT:      5 7 7 8 11
	printf("%d %d %d %d %d\n", fresh_site(2), escaping_site(3), guarded_site(3), must_tail(4), ms_site(5));
	key = thrice;
	*escaping_addr = thrice;
	// OUT-NEXT: 10 13 13 15 13
	printf("%d %d %d %d %d\n", fresh_site(3), escaping_site(4), guarded_site(4), must_tail(5), ms_site(6));
	return 0;
}
