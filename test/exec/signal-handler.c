// Checks that a key changed inside a signal handler and called from a signal handler (raised synchronously, and delivered asynchronously by a timer while the main thread stores and calls) behaves exactly as in the unannotated program, with no wrong call.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "expect.h"

typedef int (*fp_t)(int);

/* Targets record what ran: `id * 1000 + x`, checked by the caller. */
static int t_main0(int x) { return 0 + x; }
static int t_main1(int x) { return 1000 + x; }
static int t_sig(int x) { return 2000 + x; }
static int t_sig2(int x) { return 3000 + x; }

fp_t DYNCALL key = t_main0;
static volatile sig_atomic_t in_handler, handled, bad;

__attribute__((noinline)) static int call(int x) { return key(x); }

static void handler(int sig)
{
	(void)sig;
	fp_t saved = key;
	int r;

	in_handler = 1;
	/* The interrupted code's value is still there... */
	r = call(7);
	if (r != saved(7))
		bad++;
	/* ...a store in the handler is seen by the handler's calls... */
	key = t_sig;
	if (call(8) != 2008)
		bad++;
	key = t_sig2;
	if (call(9) != 3009)
		bad++;
	/* ...and the handler leaves the key as it found it. */
	key = saved;
	if (call(10) != saved(10))
		bad++;
	handled++;
	in_handler = 0;
}

static void retarget(int sig)
{
	(void)sig;
	key = t_sig;
	printf("retarget %d\n", call(5));
	key = t_sig2;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);

	// CHECK: before 1
	printf("before %d\n", call(1));
	raise(SIGUSR1);
	// CHECK-NEXT: after raise 2 handled 1 bad 0
	printf("after raise %d handled %d bad %d\n", call(2), (int)handled,
	       (int)bad);
	EXPECT_KEY(key, 1, DYNCALL_STATE_DIRECT, 1);

	/* A store in a handler that main sees afterwards. */
	sa.sa_handler = retarget;
	sigaction(SIGUSR2, &sa, NULL);
	key = t_main1;
	// CHECK-NEXT: before 1003
	printf("before %d\n", call(3));
	raise(SIGUSR2);
	// CHECK-NEXT: retarget 2005
	// CHECK-NEXT: after 3004
	printf("after %d\n", call(4));
	EXPECT_KEY(key, 1, DYNCALL_STATE_DIRECT, 1);

	/* Asynchronous: a 200 us timer interrupts stores and calls. */
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	long wrong = 0;
	for (long i = 0; i < 200000 || handled < 50; i++) {
		fp_t f = (i & 1) ? t_main1 : t_main0;
		key = f;
		int want = f((int)(i & 255));
		if (call((int)(i & 255)) != want)
			wrong++;
		if (i > 50000000)
			break; /* no timer signals: fails below */
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	// CHECK-NEXT: async: wrong 0 bad 0 enough 1
	printf("async: wrong %ld bad %d enough %d\n", wrong, (int)bad,
	       handled >= 50);
	EXPECT_KEY(key, 1, DYNCALL_STATE_DIRECT, 1);
	return 0;
}
