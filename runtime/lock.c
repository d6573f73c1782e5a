/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The runtime lock: a three-state futex mutex (Drepper, "Futexes are
 * tricky").  Not a pthread mutex because it must be usable from signal
 * handlers and trivially reset in a fork child.
 *
 * Holders block every signal first: a signal handler that stores a key or
 * runs a discovery thunk in the same thread would otherwise deadlock on the
 * lock its own thread holds.  Other threads' handlers simply wait.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

static _Atomic int lock_word; /* 0 free, 1 locked, 2 locked + waiters */

static void futex(int op, int val)
{
	syscall(SYS_futex, &lock_word, op | FUTEX_PRIVATE_FLAG, val, NULL,
		NULL, 0);
}

static void block_signals(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, saved);
}

void dc_lock(sigset_t *saved)
{
	int c = 0;

	block_signals(saved);
	if (atomic_compare_exchange_strong(&lock_word, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&lock_word, 2);
	while (c != 0) {
		futex(FUTEX_WAIT, 2);
		c = atomic_exchange(&lock_word, 2);
	}
}

bool dc_trylock(sigset_t *saved)
{
	int c = 0;

	block_signals(saved);
	if (atomic_compare_exchange_strong(&lock_word, &c, 1))
		return true;
	pthread_sigmask(SIG_SETMASK, saved, NULL);
	return false;
}

void dc_unlock(sigset_t *saved)
{
	if (atomic_exchange(&lock_word, 0) == 2)
		futex(FUTEX_WAKE, 1);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* fork child: the only thread left; the parent's holder (the forking
 * thread, from the prepare handler) is gone with its sigmask restored. */
void dc_lock_reset_child(void)
{
	atomic_store(&lock_word, 0);
}
