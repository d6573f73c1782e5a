// Checks that no call goes astray while 4 threads call through a GCC-compiled key (a fresh, directly patched site and a guarded one) and another thread retargets it 100,000 times with plain C stores; every call is checked against the values the key held while it ran.
// REQUIRES: gcc-plugin, dyncall-runtime, x86_64
// (gcc-plugin: needs dyncall_gcc.so; dyncall-runtime: links libdyncall; x86_64: the x86-64 GCC plugin's programs run natively; exec-threads-stress-cross.test runs the cross plugins' programs under qemu)
// RUN: %dyncall_gcc -O2 -pthread %s -o %t %libdyncall_ldflags
// RUN: %t 100000 | FileCheck %s
// RUN: %dyncall_gcc -O2 -mindirect-branch=thunk -pthread %s -o %t.thunk %libdyncall_ldflags
// RUN: %t.thunk 20000 | FileCheck %s --check-prefix=SHORT
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 -pthread %s -o %t.11 %libdyncall_ldflags %}
// RUN: %if gcc11-plugin %{ %t.11 20000 | FileCheck %s --check-prefix=SHORT %}
// CHECK: OK: 100000 stores, {{[0-9]+}} checked calls, 0 failures, fresh site direct, guarded site guarded
// The retpoline and GCC 11 variants retarget 20,000 times (suite time budget).
// SHORT: OK: 20000 stores, {{[0-9]+}} checked calls, 0 failures, fresh site direct, guarded site guarded
//
// The writer publishes `started` = i before store i and `done` = i after
// it.  A caller reads lo = done, calls, reads hi = started: the callee it
// reached must be targets[j % K] for some lo <= j <= hi, a value the key
// held at some moment during the call.
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <dyncall.h>

#define K 4
#define CALLERS 4

typedef int (*fp)(void);
static int t0(void) { return 0; }
static int t1(void) { return 1; }
static int t2(void) { return 2; }
static int t3(void) { return 3; }
static const fp targets[K] = { t0, t1, t2, t3 };

fp key __attribute__((dynamic_call)) = t0;
static _Atomic long started, done;
static long yield_every = 1L << 62; /* argv[2]; default: never */
static atomic_int stop;
static atomic_long checked, failures;

__attribute__((noinline)) static int call_fresh(void) { return key(); }
__attribute__((noinline)) static int call_guarded(int *sink)
{
	fp f = key;
	*sink = 1; /* a store between load and call: not fresh */
	return f();
}

/* The callers' loop on a page of its own, away from the code the runtime
 * patches: qemu-user (exec-threads-stress-<arch>.test) drops every
 * translated block of a page that is written, and the callers would
 * otherwise retranslate their loop after every store. */
#define CALLER_CODE __attribute__((section(".text.dyncall_test_callers"), aligned(4096)))

CALLER_CODE static void check(long lo, int r, long hi)
{
	if (hi - lo < K - 1) {
		for (long j = lo; j <= hi; j++)
			if (r == (int)(j % K))
				return;
		atomic_fetch_add(&failures, 1);
	} else if (r < 0 || r >= K) {
		atomic_fetch_add(&failures, 1);
	}
}

CALLER_CODE static void *caller(void *arg)
{
	int sink;
	long n = 0;

	while (!atomic_load(&stop)) {
		long lo = atomic_load(&done);
		int r = (n & 1) ? call_guarded(&sink) : call_fresh();
		long hi = atomic_load(&started);
		check(lo, r, hi);
		/* Under qemu-user a store stalls while the callers hold the
		 * translator, and with more threads than cores the
		 * retargeting thread would crawl: there the callers give it
		 * the CPU every `yield_every` calls (hundreds of calls
		 * still run during every store). */
		if (++n % yield_every == 0)
			sched_yield();
	}
	atomic_fetch_add(&checked, n);
	return NULL;
}

static int site_state(int want_fresh)
{
	struct state { int want_fresh, state; } s = { want_fresh, -1 };
	int fn(const struct dyncall_site_info *i, void *a)
	{
		struct state *st = a;
		if (!!(i->flags & 1) == st->want_fresh)
			st->state = i->state;
		return 0;
	}
	/* &key straight into the runtime's API: no escape. */
	dyncall_foreach_site(&key, fn, &s);
	return s.state;
}

int main(int argc, char **argv)
{
	long stores = argc > 1 ? atol(argv[1]) : 100000;

	if (argc > 2 && atol(argv[2]) > 0)
		yield_every = atol(argv[2]);
	pthread_t th[CALLERS];

	for (int i = 0; i < CALLERS; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	for (long i = 1; i <= stores; i++) {
		atomic_store(&started, i);
		key = targets[i % K];
		atomic_store(&done, i);
	}
	int fresh = site_state(1), guarded = site_state(0);
	atomic_store(&stop, 1);
	for (int i = 0; i < CALLERS; i++)
		pthread_join(th[i], NULL);
	printf("%s: %ld stores, %ld checked calls, %ld failures, fresh site %s, guarded site %s\n",
	       atomic_load(&failures) ? "FAIL" : "OK", stores,
	       atomic_load(&checked), atomic_load(&failures),
	       fresh == DYNCALL_STATE_DIRECT ? "direct" : "not direct",
	       guarded == DYNCALL_STATE_GUARDED ? "guarded" : "not guarded");
	return atomic_load(&failures) != 0;
}
