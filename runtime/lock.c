/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The runtime lock: a three-state futex mutex (Drepper, "Futexes are
 * tricky").  Not a pthread mutex because it must be usable from signal
 * handlers and trivially reset in a fork child.
 *
 * Holders block every signal first: a signal handler that stores a key or
 * runs a discovery thunk in the same thread would otherwise deadlock on the
 * lock its own thread holds.  Other threads' handlers simply wait.
 *
 * Holders also disable cancellation.  A store to a key is a plain store in
 * C, which is async-cancel-safe and no cancellation point; the runtime call
 * the plugin made of it must be too.  Blocking signals is not enough:
 * asynchronous cancellation arrives as glibc's SIGCANCEL, which
 * pthread_sigmask silently leaves unblocked, and a thread cancelled while
 * it holds the lock would leave it held forever (every later store hangs,
 * with nearly all signals blocked).  Deferred cancellation would act at the
 * cancellation points inside (usleep between retries in state.c, write in
 * check.c).  With cancellation disabled, a cancel that arrives meanwhile
 * stays pending and acts when dc_unlock() restores the state: at once for
 * an asynchronous thread (after the lock is free and the signal mask
 * restored), at the next cancellation point for a deferred one (so the
 * store itself is none).  pthread_setcancelstate/-type are two of the
 * three async-cancel-safe functions (POSIX) and, in glibc, atomic updates
 * of the thread's cancel word, safe in a signal handler.
 *
 * The type is made deferred as well, and restored last: glibc 2.36's
 * pthread_setcancelstate acts on a pending asynchronous cancel without
 * setting the thread's result (pthread_join then sees NULL, not
 * PTHREAD_CANCELED); pthread_setcanceltype sets it.
 * test/exec/cancel-while-storing.c proves all of it, both types.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

static _Atomic int lock_word; /* 0 free, 1 locked, 2 locked + waiters */
/* Bumped when the lock is taken and when it is released: odd while held,
 * and a value no other hold had (patch.c checks for a raw fork once per
 * hold).  Written only by the holder. */
unsigned dc_lock_hold;
/* What the holder had before dc_lock(); written and read only by the
 * holder (under the lock). */
struct cancel_saved {
	int state, type;
};
static struct cancel_saved holder_cancel;

static void futex(int op, int val)
{
	syscall(SYS_futex, &lock_word, op | FUTEX_PRIVATE_FLAG, val, NULL,
		NULL, 0);
}

/* Cancellation off, then every signal blocked: nothing can end or
 * re-enter the thread between here and acquiring the lock. */
static struct cancel_saved enter(sigset_t *saved)
{
	struct cancel_saved c;
	sigset_t all;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &c.state);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &c.type);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, saved);
	return c;
}

/* The reverse: the signal mask, the state, the type (a pending
 * asynchronous cancel acts there, with the lock already free). */
static void leave(sigset_t *saved, struct cancel_saved c)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);
	pthread_setcancelstate(c.state, NULL);
	pthread_setcanceltype(c.type, NULL);
}

void dc_lock(sigset_t *saved)
{
	struct cancel_saved cancel = enter(saved);
	int c = 0;

	if (!atomic_compare_exchange_strong(&lock_word, &c, 1)) {
		if (c != 2)
			c = atomic_exchange(&lock_word, 2);
		while (c != 0) {
			futex(FUTEX_WAIT, 2);
			c = atomic_exchange(&lock_word, 2);
		}
	}
	holder_cancel = cancel;
	dc_lock_hold++;
}

bool dc_trylock(sigset_t *saved)
{
	struct cancel_saved cancel = enter(saved);
	int c = 0;

	if (atomic_compare_exchange_strong(&lock_word, &c, 1)) {
		holder_cancel = cancel;
		dc_lock_hold++;
		return true;
	}
	leave(saved, cancel);
	return false;
}

void dc_unlock(sigset_t *saved)
{
	struct cancel_saved cancel = holder_cancel;

	dc_lock_hold++;
	if (atomic_exchange(&lock_word, 0) == 2)
		futex(FUTEX_WAKE, 1);
	leave(saved, cancel);
}

/* fork child: the only thread left; the parent's holder (the forking
 * thread, from the prepare handler) is gone with its sigmask restored
 * (atfork_child does that).  Give the child the cancel state and type the
 * forking thread had before the prepare handler took the lock. */
void dc_lock_reset_child(void)
{
	atomic_store(&lock_word, 0);
	dc_lock_hold += dc_lock_hold & 1; /* not held */
	pthread_setcancelstate(holder_cancel.state, NULL);
	pthread_setcanceltype(holder_cancel.type, NULL);
}
