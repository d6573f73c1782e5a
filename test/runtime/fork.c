// Checks fork while another thread keeps retargeting a key: each child finds the runtime lock usable, stores to the key and calls correctly (no deadlock, no half-patched site).
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 -pthread %s -o %t %libdyncall_ldflags
// RUN: %t | FileCheck %s
// CHECK: children ok: 50
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*key)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL cell, key\n"
	"DC_KEY_ENTRY cell, key, 0\n"
	"DC_SITE site, key, cell, 3, DC_FRESH\n");
long site(long, long);

static _Atomic int stop;

static void *retarget(void *arg)
{
	(void)arg;
	for (long i = 0; !atomic_load(&stop); i++)
		__dyncall_store(&key, i & 1 ? target_b : target_a);
	return NULL;
}

int main(void)
{
	pthread_t th;
	int ok = 0;

	pthread_create(&th, NULL, retarget, NULL);
	for (int i = 0; i < 50; i++) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			alarm(10); /* a deadlocked lock fails the test */
			long expect_a = 5, expect_b = 6;
			long r = site(2, 3);
			if (r != (key == target_a ? expect_a : expect_b))
				_exit(2);
			__dyncall_store(&key, target_b);
			if (site(2, 3) != expect_b)
				_exit(3);
			__dyncall_store(&key, target_a);
			if (site(2, 3) != expect_a)
				_exit(4);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
		else
			printf("child %d: status %#x\n", i, st);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("children ok: %d\n", ok);
	return 0;
}
