// Checks a function's list of handlers (the first kept in its record, the others in an array made when a second is added: runtime/prologue.c struct dc_fn): up to DYNCALL_FN_MAX_HANDLERS (16) run in the order hooked, each with its own data; a 17th is refused (DYNCALL_ERR_NOMEM) and the function keeps its 16; handlers unhooked from the front, the middle and the end leave the others in order; down to one, to none (the entry's NOPs again) and up to three again; a batch over three functions of which one is full hooks the other two and leaves it as it was; the second handler of a dlopen'ed module's function, the module dlclosed (its functions' memory freed) and loaded again, hooked again with two handlers.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 and ppc64le ones when qemu and the cross runtime and GCC plugin are there)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t.gcc.so
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t.clang.so
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc -ldl
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 %s -o %t.clang -ldl
// RUN: %t.gcc %t.gcc.so | FileCheck %s
// RUN: %t.clang %t.clang.so | FileCheck %s
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t.a64.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 %s -o %t.a64 -ldl %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64 %t.a64.so | FileCheck %s %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t.ppc.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.ppc -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc %t.ppc.so | FileCheck %s %}
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE long f(long a)
{
	return a + 1;
}
NOINLINE long g(long a)
{
	return a + 2;
}
NOINLINE long k(long a)
{
	return a + 3;
}

/* what the handlers of one call wrote: their data, in the order run */
static char trace[256];
static size_t ntrace;

#define H(n)                                                                \
	static void h##n(void *fn, void *ret, void *data,                   \
			 struct dyncall_regs *r)                            \
	{                                                                   \
		ntrace += (size_t)snprintf(trace + ntrace,                  \
					   sizeof(trace) - ntrace, "%s%ld", \
					   ntrace ? "," : "", (long)data);  \
		(void)fn, (void)ret, (void)r;                               \
	}
H(0)
H(1)
H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9) H(10) H(11) H(12) H(13) H(14) H(15)
	H(16) static const dyncall_fn_handler hs[17] = {
		h0, h1,	 h2,  h3,  h4,	h5,  h6,  h7, h8,
		h9, h10, h11, h12, h13, h14, h15, h16
	};

/* one call of fn(10): its result, then the handlers that ran */
static void call(long (*volatile fn)(long))
{
	long v;

	ntrace = 0;
	trace[0] = 0;
	v = fn(10);
	printf("%ld [%s]\n", v, trace);
}

/* fn's handler count and whether its entry leaves the NOPs */
static void state(const void *fn)
{
	struct dyncall_fn_info info;
	int s = dyncall_fn_info(fn, &info);

	printf("(%d: %u, %d) ", s, info.nhandlers, info.patched);
}

int main(int argc, char **argv)
{
	int s = 0;

	for (long i = 0; i < DYNCALL_FN_MAX_HANDLERS; i++)
		s |= dyncall_fn_hook(f, hs[i], (void *)(100 + i));
	// CHECK: sixteen: 0 (0: 16, 1) -> 11 [100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115]
	printf("sixteen: %d ", s);
	state(f);
	printf("-> ");
	call(f);
	// CHECK-NEXT: seventeenth: -5
	printf("seventeenth: %d\n", dyncall_fn_hook(f, hs[16], (void *)116));
	// CHECK-NEXT: still: 11 [100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115]
	printf("still: ");
	call(f);
	s = dyncall_fn_unhook(f, hs[0]);
	s |= dyncall_fn_unhook(f, hs[7]) << 1;
	s |= dyncall_fn_unhook(f, hs[15]) << 2;
	// CHECK-NEXT: unhooked 0 7 15: 0 -> 11 [101,102,103,104,105,106,108,109,110,111,112,113,114]
	printf("unhooked 0 7 15: %d -> ", s);
	call(f);
	// CHECK-NEXT: again: -14
	printf("again: %d\n", dyncall_fn_unhook(f, hs[7]));
	for (int i = 1; i < 15; i++)
		if (i != 7 && i != 9)
			s |= dyncall_fn_unhook(f, hs[i]);
	// CHECK-NEXT: one left: 0 -> 11 [109]
	printf("one left: %d -> ", s);
	call(f);
	s = dyncall_fn_unhook(f, hs[9]);
	// CHECK-NEXT: none: 0 (0: 0, 0) -> 11 []
	printf("none: %d ", s);
	state(f);
	printf("-> ");
	call(f);
	s = dyncall_fn_hook(f, hs[3], (void *)3);
	s |= dyncall_fn_hook(f, hs[1], (void *)1);
	s |= dyncall_fn_hook(f, hs[2], (void *)2);
	// CHECK-NEXT: three: 0 -> 11 [3,1,2]
	printf("three: %d -> ", s);
	call(f);

	/* a batch: f gets 13 more (16), then g, f, k with one more each */
	for (long i = 4; i < 17; i++)
		s |= dyncall_fn_hook(f, hs[i], (void *)i);
	void *const batch[3] = { (void *)g, (void *)f, (void *)k };
	// CHECK-NEXT: batch: 0 -5
	printf("batch: %d %d\n", s,
	       dyncall_fn_hook_batch(batch, 3, hs[0], (void *)50));
	// CHECK-NEXT: g: 12 [50]
	printf("g: ");
	call(g);
	// CHECK-NEXT: f: 11 [3,1,2,4,5,6,7,8,9,10,11,12,13,14,15,16]
	printf("f: ");
	call(f);
	// CHECK-NEXT: k: 13 [50]
	printf("k: ");
	call(k);
	s = dyncall_fn_hook(g, hs[1], (void *)51);
	// CHECK-NEXT: g two: 0 -> 12 [50,51]
	printf("g two: %d -> ", s);
	call(g);

	/* a module's function with two handlers, dlclosed, loaded again */
	for (int round = 0; round < 3; round++) {
		void *h = dlopen(argv[argc - 1], RTLD_NOW);
		long (*mp)(long) =
			h ? (long (*)(long))dlsym(h, "mod_patchable") : NULL;

		if (!mp) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		s = dyncall_fn_hook(mp, hs[5], (void *)(long)(round * 10 + 5));
		s |= dyncall_fn_hook(mp, hs[6], (void *)(long)(round * 10 + 6));
		// CHECK-NEXT: module 0: 0 -> 110 [5,6]
		// CHECK-NEXT: module 1: 0 -> 110 [15,16]
		// CHECK-NEXT: module 2: 0 -> 110 [25,26]
		printf("module %d: %d -> ", round, s);
		call(mp);
		dlclose(h);
	}
	// CHECK-NEXT: after: 11 [3,1,2,4,5,6,7,8,9,10,11,12,13,14,15,16]
	printf("after: ");
	call(f);
	return 0;
}
