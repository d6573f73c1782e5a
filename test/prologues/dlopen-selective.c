// Checks registration across modules: a selective build (DYNCALL_PATCHABLE, DYNCALL_NOT_PATCHABLE, no --dyncall-prologues) in the main program and in a dlopen'ed DSO, functions found by name once loaded and gone after dlclose, hooks in the DSO, and the DSO loaded again (fresh text at the same address) hooked again.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 ones when qemu and the cross runtime and GCC plugin are there)
// RUN: %dyncall_cc gcc-12 -O2 -fPIC -shared %S/Inputs/module.c -o %t.gcc.so
// RUN: %dyncall_cc %clang -O2 -fPIC -shared %S/Inputs/module.c -o %t.clang.so
// RUN: %dyncall_cc gcc-12 -O2 %s -o %t.gcc -ldl
// RUN: %dyncall_cc %clang -O2 %s -o %t.clang -ldl
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.all -ldl
// RUN: %t.gcc %t.gcc.so | FileCheck %s --check-prefixes=CHECK,SELECT
// RUN: %t.clang %t.clang.so | FileCheck %s --check-prefixes=CHECK,SELECT
// RUN: %t.all %t.gcc.so | FileCheck %s --check-prefixes=CHECK,ALL
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 -O2 -fPIC -shared %S/Inputs/module.c -o %t.a64-gcc.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 -O2 %s -o %t.a64-gcc -ldl %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc %t.a64-gcc.so | FileCheck %s --check-prefixes=CHECK,SELECT %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu -O2 -fPIC -shared %S/Inputs/module.c -o %t.a64-clang.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 %s -o %t.a64-all -ldl %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64-all %t.a64-clang.so | FileCheck %s --check-prefixes=CHECK,ALL %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 -O2 -fPIC -shared %S/Inputs/module.c -o %t.ppc.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 -O2 %s -o %t.ppc -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc %t.ppc.so | FileCheck %s --check-prefixes=CHECK,SELECT %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.ppc-all -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc-all %t.ppc.so | FileCheck %s --check-prefixes=CHECK,ALL %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu -O2 -fPIC -shared %S/Inputs/module.c -o %t.ppc-clang.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu -O2 %s -o %t.ppc-clang -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang %t.ppc-clang.so | FileCheck %s --check-prefixes=CHECK,SELECT %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -o %t.ppc-clang-all -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang-all %t.ppc-clang.so | FileCheck %s --check-prefixes=CHECK,ALL %}
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE long picked(long a) DYNCALL_PATCHABLE;
NOINLINE long picked(long a) { return a + 1; }
NOINLINE long unpicked(long a) { return a + 2; }
NOINLINE long opted_out(long a) DYNCALL_NOT_PATCHABLE;
NOINLINE long opted_out(long a) { return a + 3; }

static long hits;

static void count(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	hits += (long)data;
	(void)fn, (void)ret, (void)r;
}

int main(int argc, char **argv)
{
	long (*volatile p)(long) = picked;

	// SELECT: main: 1 0 0
	// ALL: main: 1 1 0
	printf("main: %d %d %d\n", dyncall_fn_find("picked") == (void *)picked,
	       dyncall_fn_find("unpicked") == (void *)unpicked,
	       dyncall_fn_find("opted_out") != NULL);
	// SELECT-NEXT: hooks: 0 -13 -13
	// ALL-NEXT: hooks: 0 0 -13
	printf("hooks: %d %d %d\n", dyncall_fn_hook(picked, count, (void *)1),
	       dyncall_fn_hook(unpicked, count, (void *)1),
	       dyncall_fn_hook(opted_out, count, (void *)1));
	long v = p(1);
	// CHECK-NEXT: picked: 2 hits 1
	printf("picked: %ld hits %ld\n", v, hits);
	// CHECK-NEXT: before dlopen: 0
	printf("before dlopen: %d\n", dyncall_fn_find("mod_patchable") != NULL);
	void *h = dlopen(argv[argc - 1], RTLD_NOW);
	long (*mp)(long) = (long (*)(long))dlsym(h, "mod_patchable");
	long (*mq)(long) = (long (*)(long))dlsym(h, "mod_plain");
	// CHECK-NEXT: loaded: 1 0
	printf("loaded: %d %d\n", dyncall_fn_find("mod_patchable") == (void *)mp,
	       dyncall_fn_find("mod_plain") != NULL);
	// CHECK-NEXT: dso hook: 0 -13 -> 105 205 hits 11
	int s1 = dyncall_fn_hook(mp, count, (void *)10);
	int s2 = dyncall_fn_hook(mq, count, (void *)10);
	long a = mp(5), b = mq(5);
	printf("dso hook: %d %d -> %ld %ld hits %ld\n", s1, s2, a, b, hits);
	dlclose(h);
	// CHECK-NEXT: after dlclose: 0 0
	printf("after dlclose: %d %d\n", dyncall_fn_find("mod_patchable") != NULL,
	       dyncall_fn_find("picked") != (void *)picked);
	/* loaded again (usually at the same address) with no call of the API
	 * between dlclose and dlopen: fresh text the runtime must not mistake
	 * for the module it patched (else hooking skips the out-of-line jump
	 * and the entry jumps into NOPs that slide back to it) */
	alarm(20);
	h = dlopen(argv[argc - 1], RTLD_NOW);
	mp = (long (*)(long))dlsym(h, "mod_patchable");
	s1 = dyncall_fn_hook(mp, count, (void *)100);
	a = mp(5);
	dlclose(h);
	h = dlopen(argv[argc - 1], RTLD_NOW);
	mp = (long (*)(long))dlsym(h, "mod_patchable");
	s2 = dyncall_fn_hook(mp, count, (void *)1000);
	b = mp(5);
	// CHECK-NEXT: reloaded: 0 105 0 105 hits 1111
	printf("reloaded: %d %ld %d %ld hits %ld\n", s1, a, s2, b, hits);
	dlclose(h);
	return 0;
}
