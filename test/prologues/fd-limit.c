// Checks a program at its descriptor limit (runtime/prologue.c mod_load, docs/prologues.md "Registration: how the runtime finds the functions"): the runtime reads a module's file to find its patchable functions; when it cannot open it (EMFILE), a hook returns DYNCALL_ERR_NOMEM (-5), not DYNCALL_ERR_NOFN, and nothing changes; once descriptors are free again the next call reads the file and hooks (GCC 12 and Clang).  Before: -13 (not a patchable function) for every function of the module, for the rest of the process.
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include <dyncall.h>

static volatile int sink;
static int calls;

__attribute__((noinline)) int work(int x)
{
	sink++;
	return x + 1;
}

static void count(void *fn, void *ret, void *data, struct dyncall_regs *regs)
{
	(void)fn;
	(void)ret;
	(void)data;
	(void)regs;
	calls++;
}

int main(void)
{
	struct rlimit lim, low;
	int fds[256], n = 0, st, r;

	/* every descriptor taken (of 64) before the runtime's first look */
	getrlimit(RLIMIT_NOFILE, &lim);
	low = lim;
	low.rlim_cur = 64;
	setrlimit(RLIMIT_NOFILE, &low);
	while (n < 256 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	st = dyncall_fn_hook(work, count, NULL);
	r = work(1);
	while (n > 0)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &lim);
	// CHECK: at the limit: -5, 2, calls 0
	printf("at the limit: %d, %d, calls %d\n", st, r, calls);
	st = dyncall_fn_hook(work, count, NULL);
	r = work(1);
	// CHECK-NEXT: descriptors free: 0, 2, calls 1
	printf("descriptors free: %d, %d, calls %d\n", st, r, calls);
	return 0;
}
