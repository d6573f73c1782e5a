// Checks that a store to a key is as async-cancel-safe as the plain store it replaces: a thread cancelled (asynchronous or deferred type) while its store holds the runtime lock is cancelled only after the lock is free (asynchronous) or at its next cancellation point after the store (deferred), never inside it; the key keeps working for every other thread (issue 11, item 3).
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (x86_64: native execution; dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
//
// Deterministic: the plugin build interposes mprotect, which the runtime
// calls with the lock held while it patches when its text writer is
// mprotect (DYNCALL_TEXT_WRITE=mprotect: the default writers need no
// mprotect per write, see docs/runtime.md), and parks the storing thread
// there until pthread_cancel() has returned; then a system call (the
// asynchronous SIGCANCEL is delivered on its return) or pthread_testcancel()
// (deferred).  Without the fix the thread dies holding the lock and the next
// store hangs with signals blocked: `timeout -s KILL` turns that into a
// failure.  The stress part cancels a thread storing in a loop, 50 times.
// Each part runs alone (its argument) first, so each can fail on its own.
// RUN: %clang -O2 -pthread %libdyncall_cflags %s -o %t.ref
// RUN: timeout -s KILL 60 %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -pthread -DWITH_DYNCALL %s -o %t %libdyncall_ldflags
// RUN: env DYNCALL_TEXT_WRITE=mprotect timeout -s KILL 60 %t asynchronous | FileCheck %s --check-prefix=ASYNC
// RUN: env DYNCALL_TEXT_WRITE=mprotect timeout -s KILL 60 %t deferred | FileCheck %s --check-prefix=DEFERRED
// RUN: env DYNCALL_TEXT_WRITE=mprotect timeout -s KILL 60 %t stress | FileCheck %s --check-prefix=STRESS
// RUN: env DYNCALL_TEXT_WRITE=mprotect timeout -s KILL 60 %t > %t.out
// RUN: diff %t.ref.out %t.out
// RUN: FileCheck %s < %t.out
// RUN: %if gcc-plugin %{ %dyncall_gcc -O2 -pthread -DWITH_DYNCALL %s -o %t.gcc %libdyncall_ldflags %}
// RUN: %if gcc-plugin %{ env DYNCALL_TEXT_WRITE=mprotect timeout -s KILL 60 %t.gcc > %t.gcc.out %}
// RUN: %if gcc-plugin %{ diff %t.ref.out %t.gcc.out %}
// ASYNC:    asynchronous: cancelled, key works: 3
// DEFERRED: deferred: cancelled after the store, key works: 3
// STRESS:   stress: 50 cancelled, key works: 3
// CHECK:      asynchronous: cancelled, key works: 3
// CHECK-NEXT: deferred: cancelled after the store, key works: 3
// CHECK-NEXT: stress: 50 cancelled, key works: 3
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dyncall.h>

static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }

int (*op)(int) DYNCALL = add1;

__attribute__((noinline)) static int call_op(int x)
{
	return op(x);
}

static _Atomic int hook_armed, parked, cancel_sent, after_store, stores;
static _Thread_local int is_worker;

#ifdef WITH_DYNCALL
/* The runtime's mprotect, with the lock held: park the armed worker. */
int mprotect(void *addr, size_t len, int prot)
{
	if (is_worker && atomic_exchange(&hook_armed, 0)) {
		int type;

		atomic_store(&parked, 1);
		while (!atomic_load(&cancel_sent))
			sched_yield();
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
		pthread_setcanceltype(type, NULL);
		if (type == PTHREAD_CANCEL_DEFERRED)
			pthread_testcancel(); /* a cancellation point */
		else
			sched_yield(); /* SIGCANCEL is delivered on its return */
	}
	return syscall(SYS_mprotect, addr, len, prot);
}
#endif

static void *parking_worker(void *arg)
{
	pthread_setcanceltype(*(int *)arg, NULL);
	is_worker = 1;
	atomic_store(&hook_armed, 1);
	op = add2; /* a plain store: the runtime patches, mprotect parks */
#ifndef WITH_DYNCALL
	/* No runtime, no mprotect: park here instead. */
	atomic_store(&parked, 1);
	while (!atomic_load(&cancel_sent))
		sched_yield();
#endif
	atomic_store(&after_store, 1);
	for (;;)
		pthread_testcancel();
	return NULL;
}

static void parked_cancel(int type, const char *name)
{
	pthread_t t;
	void *res;

	atomic_store(&parked, 0);
	atomic_store(&cancel_sent, 0);
	atomic_store(&after_store, 0);
	op = add1;
	pthread_create(&t, NULL, parking_worker, &type);
	while (!atomic_load(&parked))
		sched_yield();
	pthread_cancel(t);
	atomic_store(&cancel_sent, 1);
	pthread_join(t, &res);
	op = add2; /* hangs if the worker died holding the lock */
	printf("%s: %s%s, key works: %d\n", name,
	       res == PTHREAD_CANCELED ? "cancelled" : "NOT cancelled",
	       type == PTHREAD_CANCEL_ASYNCHRONOUS ? ""
	       : atomic_load(&after_store) ? " after the store"
					   : " INSIDE the store",
	       call_op(1));
}

static void *storing_worker(void *arg)
{
	(void)arg;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	for (unsigned i = 0;; i++) {
		op = (i & 1) ? add1 : add2;
		atomic_fetch_add(&stores, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int cancelled = 0;

	if (!only || !strcmp(only, "asynchronous"))
		parked_cancel(PTHREAD_CANCEL_ASYNCHRONOUS, "asynchronous");
	if (!only || !strcmp(only, "deferred"))
		parked_cancel(PTHREAD_CANCEL_DEFERRED, "deferred");
	if (only && strcmp(only, "stress"))
		return 0;
	for (int r = 0; r < 50; r++) {
		pthread_t t;
		void *res;

		atomic_store(&stores, 0);
		pthread_create(&t, NULL, storing_worker, NULL);
		while (atomic_load(&stores) < 20 + r)
			sched_yield();
		pthread_cancel(t);
		pthread_join(t, &res);
		cancelled += res == PTHREAD_CANCELED;
		op = add1; /* hangs if the worker died holding the lock */
	}
	op = add2;
	printf("stress: %d cancelled, key works: %d\n", cancelled, call_op(1));
	return 0;
}
