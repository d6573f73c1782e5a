// Checks the unwind information of hook-list jump functions (runtime/unwind.c, docs/hooks.md "Unwinding from a handler"): every handler of a list, which a jump function calls (all but the last, tail-called), sees with backtrace() the function that ran the list and main (or its thread's start routine) beyond the jump function (by address); lists of several shapes (no argument; one; eight integer and one double argument, whose jump functions keep every argument register and copy stack arguments on x86-64; twelve, stack arguments everywhere; the data variant), the jump functions made one set at a time (their unwind information merged as it comes), then 4 threads unwinding from their handlers while the main thread makes 1,500 more (new data each time: merges, deregistrations).  Not one backtrace may miss.  Also with the static libdyncall.a, in a dynamic program and fully static (x86-64).  Fails with the runtime before this unwind information (every handler but the last misses: "missing"), and, in the dynamic program with the static runtime, with weak references to libgcc's registration (as they were: nothing registered, 132,237 misses in the threads phase); with GCC 14's libgcc_s and objects merged as for libgcc 12 (the runtime before its probe): "25 checked, 10 missing", 295,711 to 385,368 misses in the threads phase (x86-64).
// REQUIRES: dyncall-runtime
// RUN: %if x86_64 %{ %dyncall_cc gcc-12 -O2 %s -o %t.gcc -lpthread %}
// RUN: %if x86_64 %{ %t.gcc | FileCheck %s %}
// RUN: %if x86_64 %{ %dyncall_cc %clang -fcf-protection=full -O2 %s -o %t.clang -lpthread %}
// RUN: %if x86_64 %{ %t.clang | FileCheck %s %}
// the static runtime in a dynamic program (its references to libgcc's registration pull in libgcc_s), and in a fully static one (libgcc_eh.a)
// RUN: %if x86_64 %{ %dyncall_cc gcc-12 --dyncall-static-runtime -O2 %s -o %t.gcc-static-rt -lpthread %}
// RUN: %if x86_64 %{ %t.gcc-static-rt | FileCheck %s %}
// RUN: %if x86_64 %{ %dyncall_cc gcc-12 --dyncall-static-runtime -static -O2 %s -o %t.gcc-static -lpthread %}
// RUN: %if x86_64 %{ %t.gcc-static | FileCheck %s %}
// RUN: %if x86_64 %{ %dyncall_cc %clang --dyncall-static-runtime -static -O2 %s -o %t.clang-static -lpthread %}
// RUN: %if x86_64 %{ %t.clang-static | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu -mbranch-protection=standard -O2 %s -o %t.a64-clang -lpthread %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64-clang | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 -O2 %s -o %t.a64-gcc -lpthread %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc | FileCheck %s %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 -O2 %s -o %t.ppc-gcc -lpthread %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc-gcc | FileCheck %s %}
// The same programs with the next Debian release's libgcc_s (GCC 14.2: a b-tree frame registry, where a merged object is never found; scripts/fetch-libgcc-next.sh):
// RUN: %if x86_64 && libgcc-next-amd64 %{ env LD_LIBRARY_PATH=%libgcc_next_x86_64 %t.gcc | FileCheck %s %}
// RUN: %if x86_64 && libgcc-next-amd64 %{ env LD_LIBRARY_PATH=%libgcc_next_x86_64 %t.gcc-static-rt | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && libgcc-next-arm64 %{ %qemu_aarch64 -E LD_LIBRARY_PATH=%libgcc_next_aarch64 %t.a64-clang | FileCheck %s %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le && libgcc-next-ppc64el %{ %qemu_ppc64le -E LD_LIBRARY_PATH=%libgcc_next_ppc64le %t.ppc-gcc | FileCheck %s %}
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

#define THREADS 4
#define ROUNDS 1500

static atomic_long checked, missing;
static atomic_int stop;
void *worker(void *arg);
int main(void);
/* the function at the root of this thread's stack */
static _Thread_local void *root;

/* Is pc inside fn?  (By address, not by name: a static program has no
 * names for backtrace_symbols.  The functions that run the lists are a
 * few instructions, main and worker well under 4 KiB on every arch.) */
static bool in(void *pc, void *fn, uintptr_t size)
{
	return (uintptr_t)pc > (uintptr_t)fn &&
	       (uintptr_t)pc <= (uintptr_t)fn + size;
}

/* The frames above a handler: `caller` (the function that ran the list)
 * and then the thread's root must be there. */
static void check(void *caller)
{
	void *pcs[32];
	int n = backtrace(pcs, 32), i = 0;

	while (i < n && !in(pcs[i], caller, 512))
		i++;
	while (i < n && !in(pcs[i], root, 4096))
		i++;
	if (i == n && atomic_fetch_add(&missing, 1) < 3) {
		fprintf(stderr, "missing %p or %p in:\n", caller, root);
		backtrace_symbols_fd(pcs, n, 2);
	}
	atomic_fetch_add(&checked, 1);
}

DYNCALL_HOOKS(l0, void);
DYNCALL_HOOKS(l1, void, long);
DYNCALL_HOOKS(l9, void, long, long, long, long, long, long, long, long,
	      double);
DYNCALL_HOOKS(l12, void, long, long, long, long, long, long, long, long,
	      long, long, long, long);
DYNCALL_HOOKS_DATA(ld, void, long, long);

#define NOINLINE __attribute__((noinline))
void run_l0(void), run_l1(long), run_l9(long), run_l12(long), run_ld(long);
NOINLINE void run_l0(void) { DYNCALL_HOOKS_CALL(l0); }
NOINLINE void run_l1(long a) { DYNCALL_HOOKS_CALL(l1, a); }
NOINLINE void run_l9(long a)
{
	DYNCALL_HOOKS_CALL(l9, a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6,
			   a + 7, 0.5);
}
NOINLINE void run_l12(long a)
{
	DYNCALL_HOOKS_CALL(l12, a, a, a, a, a, a, a, a, a, a, a, a + 11);
}
NOINLINE void run_ld(long a) { DYNCALL_HOOKS_DATA_CALL(ld, a, a + 1); }

/* l12's handlers also check the last stack argument they got */
static atomic_long bad_args;
#define H0(n) \
	static void l0_##n(void) { check((void *)run_l0); }
#define H1(n) \
	static void l1_##n(long a) { check((void *)run_l1); (void)a; }
#define H9(n) \
	static void l9_##n(long a, long b, long c, long d, long e, long f, \
			   long g, long h, double x) \
	{ \
		check((void *)run_l9); \
		if (h != a + 7 || x != 0.5) \
			atomic_fetch_add(&bad_args, 1); \
		(void)b, (void)c, (void)d, (void)e, (void)f, (void)g; \
	}
#define H12(n) \
	static void l12_##n(long a, long b, long c, long d, long e, long f, \
			    long g, long h, long i, long j, long k, long l) \
	{ \
		check((void *)run_l12); \
		if (l != a + 11) \
			atomic_fetch_add(&bad_args, 1); \
		(void)b, (void)c, (void)d, (void)e, (void)f, (void)g, \
			(void)h, (void)i, (void)j, (void)k; \
	}
#define HD(n) \
	static void ld_##n(void *data, long a, long b) \
	{ \
		check((void *)run_ld); \
		(void)data, (void)a, (void)b; \
	}
#define ALL(n) H0(n) H1(n) H9(n) H12(n) HD(n)
ALL(a) ALL(b) ALL(c)

static void run_all(long a)
{
	run_l0();
	run_l1(a);
	run_l9(a);
	run_l12(a);
	run_ld(a);
}

void *worker(void *arg)
{
	root = (void *)worker;
	while (!atomic_load(&stop))
		run_all((long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	int s = 0;

	root = (void *)main;
	/* one set at a time: 2 handlers, then 3 (each a new jump function) */
	s |= dyncall_hooks_add(l0, l0_a) | dyncall_hooks_add(l0, l0_b);
	s |= dyncall_hooks_add(l1, l1_a) | dyncall_hooks_add(l1, l1_b);
	s |= dyncall_hooks_add(l9, l9_a) | dyncall_hooks_add(l9, l9_b);
	s |= dyncall_hooks_add(l12, l12_a) | dyncall_hooks_add(l12, l12_b);
	s |= dyncall_hooks_add_data(ld, ld_a, (void *)1);
	s |= dyncall_hooks_add_data(ld, ld_b, (void *)2);
	run_all(1);
	s |= dyncall_hooks_add(l0, l0_c) | dyncall_hooks_add(l1, l1_c);
	s |= dyncall_hooks_add(l9, l9_c) | dyncall_hooks_add(l12, l12_c);
	s |= dyncall_hooks_add_data(ld, ld_c, (void *)3);
	run_all(2);
	// CHECK: one at a time: status 0, 25 checked, 0 missing, 0 bad arguments
	printf("one at a time: status %d, %ld checked, %ld missing, %ld bad "
	       "arguments\n",
	       s, atomic_load(&checked), atomic_load(&missing),
	       atomic_load(&bad_args));

	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 10));
	for (long r = 0; r < ROUNDS; r++) {
		/* new data: a new set, a new jump function each round */
		s |= dyncall_hooks_remove_data(ld, ld_c, (void *)(r + 3));
		s |= dyncall_hooks_add_data(ld, ld_c, (void *)(r + 4));
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	// CHECK-NEXT: threads: status 0, checked some, 0 missing, 0 bad arguments
	printf("threads: status %d, checked %s, %ld missing, %ld bad "
	       "arguments\n",
	       s, atomic_load(&checked) > 25 + THREADS ? "some" : "none",
	       atomic_load(&missing), atomic_load(&bad_args));
	return 0;
}
