// Checks that a key defined in a shared library and used (stored, called) in the executable, and a key of the executable used in the library, follow every store from either module, exactly as in the unannotated program, with the sites of both modules direct.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: rm -rf %t && mkdir -p %t/ref %t/dc
// RUN: %clang -O2 -fPIC -shared %libdyncall_cflags -I%exec_inputs %exec_inputs/dso_keys_lib.c -o %t/ref/libkeys.so
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -L%t/ref -lkeys -Wl,-rpath,%t/ref -o %t/ref/main
// RUN: %t/ref/main > %t/ref.out
// RUN: %dyncall_clang -O2 -fPIC -shared -DWITH_DYNCALL -I%exec_inputs %exec_inputs/dso_keys_lib.c -o %t/dc/libkeys.so %libdyncall_ldflags
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -L%t/dc -lkeys -Wl,-rpath,%t/dc -o %t/dc/main %libdyncall_ldflags
// RUN: %t/dc/main > %t/dc.out
// RUN: diff %t/ref.out %t/dc.out
// RUN: FileCheck %s < %t/dc.out
// The same with the plugin build of the library at -O0 and a PIE.
// RUN: %dyncall_clang -O0 -fPIC -shared -DWITH_DYNCALL -I%exec_inputs %exec_inputs/dso_keys_lib.c -o %t/dc/libkeys.so %libdyncall_ldflags
// RUN: %dyncall_clang -O1 -fPIE -pie -DWITH_DYNCALL -I%exec_inputs %s -L%t/dc -lkeys -Wl,-rpath,%t/dc -o %t/dc/main %libdyncall_ldflags
// RUN: %t/dc/main > %t/dc0.out
// RUN: diff %t/ref.out %t/dc0.out
#include "expect.h"

typedef int (*fp_t)(int);

extern fp_t DYNCALL lib_key;
int lib_twice(int x);
int lib_minus(int x);
int lib_call_lib_key(int x);
int lib_call_exe_key(int x);
void lib_set_lib_key(fp_t f);
void lib_set_exe_key(fp_t f);
void lib_expect(void);

int exe_inc(int x) { printf("  exe_inc(%d)\n", x); return x + 1; }
int exe_sq(int x) { printf("  exe_sq(%d)\n", x); return x * x; }

fp_t DYNCALL exe_key = exe_inc;

__attribute__((noinline)) int exe_call_lib_key(int x) { return lib_key(x) + 3000; }
__attribute__((noinline)) int exe_call_exe_key(int x) { return exe_key(x) + 4000; }

static void round_(const char *what)
{
	printf("%s\n", what);
	printf(" lib/lib %d\n", lib_call_lib_key(2));
	printf(" exe/lib %d\n", exe_call_lib_key(3));
	printf(" lib/exe %d\n", lib_call_exe_key(4));
	printf(" exe/exe %d\n", exe_call_exe_key(5));
	lib_expect();
	EXPECT_KEY(lib_key, 2, DYNCALL_STATE_DIRECT, 2);
	EXPECT_KEY(exe_key, 2, DYNCALL_STATE_DIRECT, 2);
}

int main(void)
{
	// CHECK:      initial
	// CHECK-NEXT:   lib_twice(2)
	// CHECK-NEXT:  lib/lib 1004
	// CHECK-NEXT:   lib_twice(3)
	// CHECK-NEXT:  exe/lib 3006
	// CHECK-NEXT:   exe_inc(4)
	// CHECK-NEXT:  lib/exe 2005
	// CHECK-NEXT:   exe_inc(5)
	// CHECK-NEXT:  exe/exe 4006
	round_("initial");
	lib_key = exe_sq;
	exe_key = lib_minus;
	// CHECK-NEXT: stores in the executable
	// CHECK-NEXT:   exe_sq(2)
	// CHECK-NEXT:  lib/lib 1004
	// CHECK-NEXT:   exe_sq(3)
	// CHECK-NEXT:  exe/lib 3009
	// CHECK-NEXT:   lib_minus(4)
	// CHECK-NEXT:  lib/exe 1996
	// CHECK-NEXT:   lib_minus(5)
	// CHECK-NEXT:  exe/exe 3995
	round_("stores in the executable");
	lib_set_lib_key(lib_minus);
	lib_set_exe_key(exe_sq);
	// CHECK-NEXT: stores in the library
	// CHECK-NEXT:   lib_minus(2)
	// CHECK-NEXT:  lib/lib 998
	// CHECK-NEXT:   lib_minus(3)
	// CHECK-NEXT:  exe/lib 2997
	// CHECK-NEXT:   exe_sq(4)
	// CHECK-NEXT:  lib/exe 2016
	// CHECK-NEXT:   exe_sq(5)
	// CHECK-NEXT:  exe/exe 4025
	round_("stores in the library");
	return 0;
}
