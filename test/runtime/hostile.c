// Checks the runtime in a hostile environment: seccomp filters that refuse membarrier, mprotect, mmap/memfd_create, /proc/self/mem (open, pwrite), installed before the runtime starts or mid-run while threads call, with both compilers: no stray call (the storing thread's own call after each store reaches the new target; the other threads' calls reach one of the targets), no crash or abort, no writable+executable mapping in any /proc/self/maps sample, and the status that says what happened.
// REQUIRES: x86_64, dyncall-pass, gcc-plugin, dyncall-runtime
// (REQUIRES x86_64: the BPF filter checks AUDIT_ARCH_X86_64 and the suite runs x86-64 natively; dyncall-pass, gcc-plugin, dyncall-runtime: built with both plugins against libdyncall.)
// RUN: %dyncall_clang -O2 -pthread %s -o %t.clang %libdyncall_ldflags
// RUN: %dyncall_gcc -O2 -pthread -Wno-prio-ctor-dtor %s -o %t.gcc %libdyncall_ldflags
// RUN: %t.clang none | FileCheck %s --check-prefix=NONE
// RUN: %t.gcc none | FileCheck %s --check-prefix=NONE
// RUN: env HOSTILE_START=membarrier %t.clang start | FileCheck %s --check-prefix=START-MB
// RUN: env HOSTILE_START=membarrier %t.gcc start | FileCheck %s --check-prefix=START-MB
// RUN: env HOSTILE_START=mprotect %t.clang start | FileCheck %s --check-prefix=NONE
// RUN: env HOSTILE_START=mprotect %t.gcc start | FileCheck %s --check-prefix=NONE
// RUN: env HOSTILE_START=procmem %t.clang start | FileCheck %s --check-prefix=NONE
// RUN: env HOSTILE_START=procmem %t.gcc start | FileCheck %s --check-prefix=NONE
// RUN: env HOSTILE_START=mmap %t.clang start | FileCheck %s --check-prefix=START-MMAP
// RUN: env HOSTILE_START=mmap %t.gcc start | FileCheck %s --check-prefix=START-MMAP
// RUN: %t.clang mid membarrier | FileCheck %s --check-prefix=MID-MB
// RUN: %t.gcc mid membarrier | FileCheck %s --check-prefix=MID-MB
// RUN: %t.clang mid all | FileCheck %s --check-prefix=MID-ALL
// RUN: %t.gcc mid all | FileCheck %s --check-prefix=MID-ALL
// RUN: %t.clang mid all+membarrier | FileCheck %s --check-prefix=MID-MB
// RUN: %t.gcc mid all+membarrier | FileCheck %s --check-prefix=MID-MB
// Without a filter, and with mprotect or /proc/self/mem refused, text is
// written through the memfd alias: sites direct, status ok.
// NONE: before: status 0 state direct
// NONE: after: status 0 state direct stray 0 wx 0
// START-MB: before: status -3 state slow
// START-MB: after: status -3 state slow stray 0 wx 0
// mmap refused from the start: nothing can be registered, and the status
// says so (it said "ok" before issue 12).
// START-MMAP: before: status -5 state slow
// START-MMAP: after: status -5 state slow stray 0 wx 0
// Mid-run: the aliases made before the filter need no system call.
// MID-ALL: before: status 0 state direct
// MID-ALL: after: status 0 state direct stray 0 wx 0
// membarrier refused mid-run: patching stops at the next store that needs
// a sync, no abort, the status says why.
// MID-MB: before: status 0 state direct
// MID-MB: after: status -3 state {{direct|guarded|slow}} stray 0 wx 0
#include <dyncall.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NT 4
__attribute__((noinline)) static long t0(long x) { return x + 0; }
__attribute__((noinline)) static long t1(long x) { return x + 1000; }
__attribute__((noinline)) static long t2(long x) { return x + 2000; }
__attribute__((noinline)) static long t3(long x) { return x + 3000; }
static long (*const targets[NT])(long) = { t0, t1, t2, t3 };

static long (*op)(long) DYNCALL = t0;

__attribute__((noinline)) static long call_op(long x) { return op(x); }

static _Atomic long stray, wx;
static _Atomic int stop;
static int maps_fd = -1;

static void install(const char *what)
{
	int nrs[8], n = 0;
	bool all = strstr(what, "all") != NULL;

	if (strstr(what, "membarrier"))
		nrs[n++] = SYS_membarrier;
	if (all || strstr(what, "mprotect"))
		nrs[n++] = SYS_mprotect;
	if (all || strstr(what, "mmap")) {
		nrs[n++] = SYS_mmap;
		nrs[n++] = SYS_memfd_create;
	}
	if (all || strstr(what, "procmem")) {
		nrs[n++] = SYS_openat; /* /proc/self/mem among others */
		nrs[n++] = SYS_pwrite64;
	}
	struct sock_filter f[4 + 2 * 8] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
	};
	int k = 4;
	for (int i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      nrs[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { (unsigned short)k, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &prog)) {
		perror("seccomp");
		exit(2);
	}
}

/* Count mappings both writable and executable in one maps sample (the fd
 * was opened before any filter; reading from offset 0 regenerates it). */
static void sample_maps(void)
{
	static char buf[1 << 16];
	ssize_t n = pread(maps_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		char *sp = strchr(l, ' ');

		if (sp && sp[2] == 'w' && sp[3] == 'x')
			wx++;
	}
}

static void *sampler(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		sample_maps();
	return NULL;
}

static void *caller(void *arg)
{
	long x = (long)(intptr_t)arg;

	while (!atomic_load(&stop)) {
		long r = call_op(x) - x;

		if (r != 0 && r != 1000 && r != 2000 && r != 3000)
			stray++;
	}
	return NULL;
}

static const char *state(void)
{
	struct dyncall_key_info ki;

	if (dyncall_key_info((void *)&op, &ki))
		return "slow";
	return ki.ndirect ? "direct" : ki.nguarded ? "guarded" : "slow";
}

static const char *start_mode;

__attribute__((constructor(99))) static void early(void)
{
	/* before the runtime's registration constructor (priority 100) */
	maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	start_mode = getenv("HOSTILE_START");
	if (start_mode)
		install(start_mode);
}

static void retarget(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		int j = i % NT;

		op = targets[j];
		/* the storing thread's own call: exactly the new target */
		if (call_op(7) != targets[j](7))
			stray++;
		if (i % 64 == 0)
			sample_maps();
	}
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	int nth = 0;
	const char *when = argc > 1 ? argv[1] : "none";
	const char *what = argc > 2 ? argv[2] : "";


	retarget(256);
	printf("before: status %d state %s\n", dyncall_status(), state());
	fflush(stdout);
	if (pthread_create(&th[nth], NULL, sampler, NULL) == 0)
		nth++;
	for (long i = 0; i < 3; i++)
		if (pthread_create(&th[nth], NULL, caller,
				   (void *)(intptr_t)(i + 1)) == 0)
			nth++;
	retarget(2000);
	if (!strcmp(when, "mid"))
		install(what);
	retarget(20000);
	atomic_store(&stop, 1);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	sample_maps();
	printf("after: status %d state %s stray %ld wx %ld\n", dyncall_status(),
	       state(), (long)stray, (long)wx);
	if (dyncall_status())
		fprintf(stderr, "status: %s\n", dyncall_status_string());
	return stray || wx;
}
