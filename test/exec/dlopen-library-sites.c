// Checks that a dlopen'ed library with sites on a key of the executable calls and stores it correctly, that its sites are registered on dlopen and dropped on dlclose, and that a second dlopen works again, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: rm -rf %t && mkdir -p %t/ref %t/dc
// RUN: %clang -O2 -fPIC -shared %libdyncall_cflags %exec_inputs/dlopen_lib.c -o %t/ref/libdl.so
// RUN: %clang -O2 -rdynamic %libdyncall_cflags -I%exec_inputs %s -o %t/ref/main -ldl
// RUN: %t/ref/main %t/ref/libdl.so > %t/ref.out
// RUN: %dyncall_clang -O2 -fPIC -shared %exec_inputs/dlopen_lib.c -o %t/dc/libdl.so %libdyncall_ldflags
// RUN: %dyncall_clang -O2 -rdynamic -DWITH_DYNCALL -I%exec_inputs %s -o %t/dc/main %libdyncall_ldflags
// RUN: %t/dc/main %t/dc/libdl.so > %t/dc.out
// RUN: diff %t/ref.out %t/dc.out
// RUN: FileCheck %s < %t/dc.out
#include <dlfcn.h>

#include "expect.h"

typedef int (*fp_t)(int);

int exe_a(int x) { printf("  exe_a(%d)\n", x); return x + 1; }
int exe_b(int x) { printf("  exe_b(%d)\n", x); return x + 2; }

fp_t DYNCALL exe_hook = exe_a;

__attribute__((noinline)) static int exe_call(int x) { return exe_hook(x); }

#ifdef WITH_DYNCALL
static unsigned sites_of_hook(void)
{
	struct dyncall_key_info ki;

	if (dyncall_key_info(&exe_hook, &ki) != DYNCALL_OK)
		return 0;
	return ki.nsites;
}
#endif

static void *must(void *p, const char *what)
{
	if (!p) {
		fprintf(stderr, "%s: %s\n", what, dlerror());
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	(void)argc;
	// CHECK:        exe_a(1)
	// CHECK-NEXT: exe 2
	printf("exe %d\n", exe_call(1));
	EXPECT_KEY(exe_hook, 1, DYNCALL_STATE_DIRECT, 1);
#ifdef WITH_DYNCALL
	unsigned before = sites_of_hook();
#endif
	for (int round = 0; round < 2; round++) {
		void *h = must(dlopen(argv[1], RTLD_NOW | RTLD_LOCAL), "dlopen");
		int (*lib_call)(int) = (int (*)(int))must(dlsym(h, "lib_call"), "lib_call");
		int (*lib_call_twice)(int) = (int (*)(int))must(dlsym(h, "lib_call_twice"), "lib_call_twice");
		void (*lib_store)(void) = (void (*)(void))must(dlsym(h, "lib_store"), "lib_store");
		void (*lib_store_value)(fp_t) = (void (*)(fp_t))must(dlsym(h, "lib_store_value"), "lib_store_value");

		printf("round %d\n", round);
		printf(" lib %d\n", lib_call(2));
		EXPECT_KEY(exe_hook, before + 3, DYNCALL_STATE_DIRECT, 2);
		lib_store();
		printf(" lib %d\n", lib_call(3));
		printf(" exe %d\n", exe_call(4));
		printf(" lib2 %d\n", lib_call_twice(5));
		EXPECT_KEY(exe_hook, before + 3, DYNCALL_STATE_DIRECT, 4);
		/* The key must not point into the library once it is gone. */
		lib_store_value(exe_b);
		printf(" lib %d\n", lib_call(6));
		printf(" exe %d\n", exe_call(7));
		dlclose(h);
#ifdef WITH_DYNCALL
		if (sites_of_hook() != before)
			EXPECT_FAIL(__FILE__, __LINE__,
				    "after dlclose: %u sites, want %u",
				    sites_of_hook(), before);
#endif
		printf(" exe %d\n", exe_call(8));
		exe_hook = exe_a;
		printf(" exe %d\n", exe_call(9));
		EXPECT_KEY(exe_hook, 1, DYNCALL_STATE_DIRECT, 1);
	}
	// CHECK-NEXT: round 0
	// CHECK-NEXT:   exe_a(2)
	// CHECK-NEXT:  lib 103
	// CHECK-NEXT:   lib_target(3)
	// CHECK-NEXT:  lib 121
	// CHECK-NEXT:   lib_target(4)
	// CHECK-NEXT:  exe 28
	// CHECK-NEXT:   lib_target(5)
	// CHECK-NEXT:   lib_target(6)
	// CHECK-NEXT:  lib2 77
	// CHECK-NEXT:   exe_b(6)
	// CHECK-NEXT:  lib 108
	// CHECK-NEXT:   exe_b(7)
	// CHECK-NEXT:  exe 9
	// CHECK-NEXT:   exe_b(8)
	// CHECK-NEXT:  exe 10
	// CHECK-NEXT:   exe_a(9)
	// CHECK-NEXT:  exe 10
	// CHECK-NEXT: round 1
	// CHECK-NEXT:   exe_a(2)
	// CHECK-NEXT:  lib 103
	// CHECK:        exe_b(8)
	// CHECK-NEXT:  exe 10
	// CHECK-NEXT:   exe_a(9)
	// CHECK-NEXT:  exe 10
	// CHECK-EMPTY:
	return 0;
}
