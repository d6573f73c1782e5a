// Checks live function-entry patching under load: 4 threads call 4 patchable functions while another thread hooks (1 and 2 handlers), redirects, unhooks and restores them 120,000 times (single calls and batches): every call returns the original's or the redirect target's result, every handler runs with its own function, data and the caller's argument, no crash.
// REQUIRES: x86_64, dyncall-runtime
// (x86_64: the only arch with function-entry patching so far)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -pthread %s -o %t.gcc
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 -pthread %s -o %t.clang
// RUN: %t.gcc | FileCheck %s
// RUN: %t.clang | FileCheck %s
// CHECK: changes 120000 errors 0 stray 0 bad-handler 0
// CHECK-NEXT: calls-ok 1 handled-ok 1 redirected-ok 1
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noclone))
#define NF 4
#define NCALLERS 4
#define CYCLES 20000 /* x 6 changes */

NOINLINE long f0(long a) { return a * 8 + 0; }
NOINLINE long f1(long a) { return a * 8 + 1; }
NOINLINE long f2(long a) { return a * 8 + 2; }
NOINLINE long f3(long a) { return a * 8 + 3; }
NOINLINE long r0(long a) { return a * 8 + 4; }
NOINLINE long r1(long a) { return a * 8 + 5; }
NOINLINE long r2(long a) { return a * 8 + 6; }
NOINLINE long r3(long a) { return a * 8 + 7; }

static long (*const fs[NF])(long) = { f0, f1, f2, f3 };
static long (*const rs[NF])(long) = { r0, r1, r2, r3 };
static int tags[NF];
static _Atomic long stray, bad_handler, calls, handled, redirected;
static _Atomic int stop;

static void check(void *fn, struct dyncall_regs *r, void *data)
{
	int i = (int *)data - tags;

	if (!data) /* the batch over every function */
		for (i = 0; i < NF && fn != (void *)fs[i]; i++)
			;
	if (i < 0 || i >= NF || fn != (void *)fs[i] ||
	    (long)r->arg[0] < 0 || (long)r->arg[0] >= (1 << 20))
		atomic_fetch_add(&bad_handler, 1);
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void h1(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	check(fn, r, data);
	(void)ret;
}

static void h2(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	check(fn, r, data);
	(void)ret;
}

static void *caller(void *arg)
{
	long x = (long)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < NF; i++) {
			long (*volatile f)(long) = fs[i];
			long a = x++ & ((1 << 20) - 1), v = f(a);

			if (v == a * 8 + 4 + i)
				atomic_fetch_add_explicit(&redirected, 1,
							  memory_order_relaxed);
			else if (v != a * 8 + i)
				atomic_fetch_add(&stray, 1);
			atomic_fetch_add_explicit(&calls, 1,
						  memory_order_relaxed);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NCALLERS];
	long changes = 0, errors = 0;
	void *all[NF];

	for (int i = 0; i < NF; i++)
		all[i] = (void *)fs[i];
	for (long i = 0; i < NCALLERS; i++)
		pthread_create(&t[i], NULL, caller, (void *)(i << 16));
	for (int c = 0; c < CYCLES; c++) {
		int i = c % NF;
		void *f = (void *)fs[i];

		if (c % 8 == 0) {
			/* the same six changes, the hooks as batches */
			errors += dyncall_fn_hook(f, h1, &tags[i]) != 0;
			errors += dyncall_fn_hook(f, h2, &tags[i]) != 0;
			errors += dyncall_fn_redirect(f, (void *)rs[i]) != 0;
			errors += dyncall_fn_unhook_batch(&f, 1, h1) != 0;
			errors += dyncall_fn_unhook(f, h2) != 0;
			errors += dyncall_fn_restore_batch(&f, 1) != 0;
		} else {
			errors += dyncall_fn_hook(f, h1, &tags[i]) != 0;
			errors += dyncall_fn_redirect(f, (void *)rs[i]) != 0;
			errors += dyncall_fn_hook(f, h2, &tags[i]) != 0;
			errors += dyncall_fn_unhook(f, h1) != 0;
			errors += dyncall_fn_restore(f) != 0;
			errors += dyncall_fn_restore(f) != 0; /* no-op */
		}
		changes += 6;
	}
	/* and every function at once */
	errors += dyncall_fn_hook_batch(all, NF, h1, NULL) != 0;
	errors += dyncall_fn_restore_batch(all, NF) != 0;
	atomic_store(&stop, 1);
	for (int i = 0; i < NCALLERS; i++)
		pthread_join(t[i], NULL);
	printf("changes %ld errors %ld stray %ld bad-handler %ld\n", changes,
	       errors, atomic_load(&stray), atomic_load(&bad_handler));
	if (getenv("STRESS_VERBOSE"))
		fprintf(stderr, "calls %ld handled %ld redirected %ld\n",
			atomic_load(&calls), atomic_load(&handled),
			atomic_load(&redirected));
	printf("calls-ok %d handled-ok %d redirected-ok %d\n",
	       atomic_load(&calls) > 0, atomic_load(&handled) > 0,
	       atomic_load(&redirected) > 0);
	return 0;
}
