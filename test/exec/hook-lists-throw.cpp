// Checks that a C++ exception thrown by a handler of a hook list goes through the list's jump function to the caller's catch (runtime/unwind.c; docs/hooks.md "Unwinding from a handler"): three handlers (the jump function's unwind information registered as its sets are made: with libgcc 12 merged with the earlier one), the first throwing on every tenth call, 1,000 calls; each throw is caught, the handlers after the thrower do not run that time (GCC 12 and Clang; with Debian 12's libgcc_s and Debian 13's, GCC 14.2's b-tree registry; aarch64 GCC under qemu).  Fails with the runtime before unwind.c's registry probe and Debian 13's libgcc_s: "terminate called after throwing an instance of 'std::runtime_error'" (the merged object was never found).
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc g++-12 -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s
// RUN: %if libgcc-next-amd64 %{ env LD_LIBRARY_PATH=%libgcc_next_x86_64 %t.gcc | FileCheck %s %}
// RUN: %dyncall_cc %clangxx -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s
// RUN: %if libgcc-next-amd64 %{ env LD_LIBRARY_PATH=%libgcc_next_x86_64 %t.clang | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-g++-12 -O2 %s -o %t.a64 %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64 | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 && libgcc-next-arm64 %{ %qemu_aarch64 -E LD_LIBRARY_PATH=%libgcc_next_aarch64 %t.a64 | FileCheck %s %}
#include <cstdio>
#include <stdexcept>

#include <dyncall.h>

DYNCALL_HOOKS(on_event, void, int);

static int ran;

static void first(int x)
{
	ran++;
	if (x == 7)
		throw std::runtime_error("seven");
}

static void second(int)
{
	ran += 100;
}

static void third(int)
{
	ran += 10000;
}

__attribute__((noinline)) void fire(int x)
{
	DYNCALL_HOOKS_CALL(on_event, x);
}

int main()
{
	int caught = 0;

	dyncall_hooks_add(on_event, first);
	dyncall_hooks_add(on_event, second);
	dyncall_hooks_add(on_event, third);
	for (int i = 0; i < 1000; i++) {
		try {
			fire(i % 10);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	// 1,000 calls of first, 900 of the others
	// CHECK: caught 100 ran 9091000
	std::printf("caught %d ran %d\n", caught, ran);
	return 0;
}
