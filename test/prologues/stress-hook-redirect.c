// Checks live function-entry patching under load: 4 threads call 4 patchable functions while another thread hooks (1 and 2 handlers), redirects, unhooks and restores them (single calls and batches; 120,000 changes natively, 102,000 under qemu): every call returns the original's or the redirect target's result (no stray call), no handler runs twice in one call (no duplicate), every handler runs with its own function, data and the caller's argument, and a call made entirely between two changes runs exactly the handlers and reaches exactly the function of the state then (no lost handler, no missed redirect, no stale one); no crash.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 ones when qemu and the cross runtime and GCC plugin are there)
// ALLOW_RETRIES: 2
// (Only for qemu-user, as in test/arch/stress-retarget.c: its translated-block
// cache can let a thread finish one stale block across a code write, which
// membarrier SYNC_CORE rules out on hardware. A broken protocol fails every
// run: see docs/prologues.md "Tests".)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -pthread %s -o %t.gcc
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 -pthread %s -o %t.clang
// RUN: %t.gcc 20000 | FileCheck %s --check-prefixes=CHECK,NATIVE
// RUN: %t.clang 20000 | FileCheck %s --check-prefixes=CHECK,NATIVE
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -pthread %s -o %t.a64-gcc %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc 17000 | FileCheck %s --check-prefixes=CHECK,QEMU %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 -pthread %s -o %t.a64-clang %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64-clang 17000 | FileCheck %s --check-prefixes=CHECK,QEMU %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -pthread %s -o %t.ppc-gcc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc-gcc 17000 | FileCheck %s --check-prefixes=CHECK,QEMU %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -pthread %s -o %t.ppc-clang %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang 17000 | FileCheck %s --check-prefixes=CHECK,QEMU %}
// NATIVE: changes 120000 errors 0 stray 0 duplicate 0 bad-handler 0 lost 0
// QEMU: changes 102000 errors 0 stray 0 duplicate 0 bad-handler 0 lost 0
// CHECK-NEXT: calls-ok 1 handled-ok 1 redirected-ok 1 checked-ok 1
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noclone))
#define NF 4
#define NCALLERS 4
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE 32

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
static _Atomic long stray, duplicate, bad_handler, lost, calls, handled, redirected,
	checked;
static _Atomic int stop;

/* What each function does now: bit 0 h1 on, bit 1 h2 on, bit 2 redirected.
 * `epoch` is odd while the controller changes a function, even between
 * changes (a seqlock: a call that sees the same even epoch before and
 * after ran entirely in one state). */
static _Atomic int state[NF];
static _Atomic unsigned long epoch;

/* Per call: how often each handler ran on this thread (the caller resets
 * them), and the function the call is for. */
static __thread int ran1, ran2;
static __thread long cur_arg;

static void check(void *fn, struct dyncall_regs *r, void *data)
{
	int i = (int *)data - tags;

	if (!data) /* the batch over every function */
		for (i = 0; i < NF && fn != (void *)fs[i]; i++)
			;
	if (i < 0 || i >= NF || fn != (void *)fs[i] ||
	    (long)r->arg[0] != cur_arg)
		atomic_fetch_add(&bad_handler, 1);
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void h1(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	check(fn, r, data);
	ran1++;
	(void)ret;
}

static void h2(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	check(fn, r, data);
	ran2++;
	(void)ret;
}

static void *caller(void *arg)
{
	long x = (long)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < NF; i++) {
			long (*volatile f)(long) = fs[i];
			long a = x++ & ((1 << 20) - 1), v;
			unsigned long e1, e2;
			int s;
			bool redir;

			e1 = atomic_load(&epoch);
			s = atomic_load(&state[i]);
			ran1 = ran2 = 0;
			cur_arg = a;
			v = f(a);
			e2 = atomic_load(&epoch);
			redir = v == a * 8 + 4 + i;
			if (redir)
				atomic_fetch_add_explicit(&redirected, 1,
							  memory_order_relaxed);
			else if (v != a * 8 + i)
				atomic_fetch_add(&stray, 1);
			if (ran1 > 1 || ran2 > 1)
				atomic_fetch_add(&duplicate, 1);
			if (e1 == e2 && !(e1 & 1)) {
				/* no change during the call: exactly this */
				if (ran1 != (s & 1) || ran2 != !!(s & 2) ||
				    redir != !!(s & 4))
					atomic_fetch_add(&lost, 1);
				atomic_fetch_add_explicit(&checked, 1,
							  memory_order_relaxed);
			}
			atomic_fetch_add_explicit(&calls, 1,
						  memory_order_relaxed);
		}
		/* leave the patching thread some CPU (qemu, few cores) */
		if (!(x & 0x3ff))
			sched_yield();
	}
	return NULL;
}

/* After a change: the membarrier ends the documented window (a thread
 * already past the entry reaches what the slot held) before the new state
 * is published and the epoch is even again. */
static void settle(int i, int s)
{
	syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0,
		0);
	atomic_store(&state[i], s);
	atomic_fetch_add(&epoch, 1); /* even */
}

/* One change: epoch odd, the API call, then the state it leaves. */
#define CHANGE(i, call, s)                          \
	do {                                        \
		atomic_fetch_add(&epoch, 1);        \
		errors += (call) != 0;              \
		settle((i), (s));                   \
	} while (0)

int main(int argc, char **argv)
{
	pthread_t t[NCALLERS];
	long changes = 0, errors = 0;
	long cycles = argc > 1 ? atol(argv[1]) : 20000; /* x 6 changes */
	void *all[NF];

	for (int i = 0; i < NF; i++)
		all[i] = (void *)fs[i];
	for (long i = 0; i < NCALLERS; i++)
		pthread_create(&t[i], NULL, caller, (void *)(i << 16));
	for (long c = 0; c < cycles; c++) {
		int i = (int)(c % NF);
		void *f = (void *)fs[i];

		if (c % 8 == 0) {
			/* the same six changes, some as batches */
			CHANGE(i, dyncall_fn_hook(f, h1, &tags[i]), 1);
			CHANGE(i, dyncall_fn_hook(f, h2, &tags[i]), 3);
			CHANGE(i, dyncall_fn_redirect(f, (void *)rs[i]), 7);
			CHANGE(i, dyncall_fn_unhook_batch(&f, 1, h1), 6);
			CHANGE(i, dyncall_fn_unhook(f, h2), 4);
			CHANGE(i, dyncall_fn_restore_batch(&f, 1), 0);
		} else {
			CHANGE(i, dyncall_fn_hook(f, h1, &tags[i]), 1);
			CHANGE(i, dyncall_fn_redirect(f, (void *)rs[i]), 5);
			CHANGE(i, dyncall_fn_hook(f, h2, &tags[i]), 7);
			CHANGE(i, dyncall_fn_unhook(f, h1), 6);
			CHANGE(i, dyncall_fn_restore(f), 0);
			CHANGE(i, dyncall_fn_restore(f), 0); /* no-op */
		}
		changes += 6;
	}
	/* and every function at once (data NULL: check() finds the function) */
	atomic_fetch_add(&epoch, 1);
	errors += dyncall_fn_hook_batch(all, NF, h1, NULL) != 0;
	for (int i = 0; i < NF; i++)
		atomic_store(&state[i], 1);
	settle(0, 1);
	atomic_fetch_add(&epoch, 1);
	errors += dyncall_fn_restore_batch(all, NF) != 0;
	for (int i = 0; i < NF; i++)
		atomic_store(&state[i], 0);
	settle(0, 0);
	atomic_store(&stop, 1);
	for (int i = 0; i < NCALLERS; i++)
		pthread_join(t[i], NULL);
	printf("changes %ld errors %ld stray %ld duplicate %ld bad-handler %ld "
	       "lost %ld\n",
	       changes, errors, atomic_load(&stray), atomic_load(&duplicate),
	       atomic_load(&bad_handler), atomic_load(&lost));
	if (getenv("STRESS_VERBOSE"))
		fprintf(stderr, "calls %ld handled %ld redirected %ld checked %ld\n",
			atomic_load(&calls), atomic_load(&handled),
			atomic_load(&redirected), atomic_load(&checked));
	printf("calls-ok %d handled-ok %d redirected-ok %d checked-ok %d\n",
	       atomic_load(&calls) > 0, atomic_load(&handled) > 0,
	       atomic_load(&redirected) > 0, atomic_load(&checked) > 0);
	return 0;
}
