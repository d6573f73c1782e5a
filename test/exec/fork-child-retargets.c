// Checks that after fork a child that retargets keys (fresh and guarded, with new guard stubs) calls its own targets while the parent keeps calling its own, both exactly as in the unannotated program; also after a raw fork system call (-DRAW_FORK: no pthread_atfork handler runs, the runtime finds the fork by its pid before writing, else the child's writes would go through the memfd aliases it shares with the parent and retarget the parent's sites).
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -DRAW_FORK -I%exec_inputs %s -o %t.raw %libdyncall_ldflags
// RUN: %t.raw > %t.raw.out
// RUN: diff %t.ref.out %t.raw.out
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"

typedef int (*fp_t)(int);

static int p1(int x) { printf("  p1(%d)\n", x); return x + 1; }
static int p2(int x) { printf("  p2(%d)\n", x); return x + 2; }
static int c1(int x) { printf("  c1(%d)\n", x); return x + 10; }
static int c2(int x) { printf("  c2(%d)\n", x); return x + 20; }
static int c3(int x) { printf("  c3(%d)\n", x); return x + 30; }
static int q1(int x) { printf("  q1(%d)\n", x); return x + 100; }

fp_t DYNCALL fresh = p1;
fp_t DYNCALL guarded = p1;

__attribute__((noinline)) static int call_fresh(int x) { return fresh(x); }
__attribute__((noinline)) static int call_guarded(int x) { return guarded(x); }
__attribute__((noinline)) static void publish(fp_t *volatile *where) { *where = &guarded; }

int main(void)
{
	fp_t *volatile esc;

	publish(&esc); /* guarded's address escapes */
	printf("parent %d %d\n", call_fresh(1), call_guarded(2));
	fresh = p2;
	*esc = p2;
	printf("parent %d %d\n", call_fresh(3), call_guarded(4));
	fflush(stdout);

#ifdef RAW_FORK
	pid_t pid = (pid_t)syscall(SYS_fork);
#else
	pid_t pid = fork();
#endif
	if (pid == 0) {
		printf("child %d %d\n", call_fresh(5), call_guarded(6));
		fp_t cs[] = { c1, c2, c3 };
		for (int i = 0; i < 3; i++) {
			fresh = cs[i];
			guarded = cs[(i + 1) % 3];
			printf("child %d %d\n", call_fresh(7), call_guarded(8));
			EXPECT_KEY(fresh, 1, DYNCALL_STATE_DIRECT, 1);
			EXPECT_KEY(guarded, 1, DYNCALL_STATE_GUARDED, 1);
		}
		fflush(stdout);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/* The child's patches and stubs are not the parent's. */
	printf("parent %d %d\n", call_fresh(9), call_guarded(10));
	EXPECT_KEY(fresh, 1, DYNCALL_STATE_DIRECT, 1);
	/* *esc = p2 was a store the runtime did not see. */
	EXPECT_SITES(guarded, 1, DYNCALL_STATE_GUARDED, 1);
	fresh = q1;
	guarded = q1;
	printf("parent %d %d\n", call_fresh(11), call_guarded(12));
	EXPECT_KEY(fresh, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(guarded, 1, DYNCALL_STATE_GUARDED, 1);
	return 0;
}
// CHECK:        p1(1)
// CHECK-NEXT:   p1(2)
// CHECK-NEXT: parent 2 3
// CHECK-NEXT:   p2(3)
// CHECK-NEXT:   p2(4)
// CHECK-NEXT: parent 5 6
// CHECK-NEXT:   p2(5)
// CHECK-NEXT:   p2(6)
// CHECK-NEXT: child 7 8
// CHECK-NEXT:   c1(7)
// CHECK-NEXT:   c2(8)
// CHECK-NEXT: child 17 28
// CHECK-NEXT:   c2(7)
// CHECK-NEXT:   c3(8)
// CHECK-NEXT: child 27 38
// CHECK-NEXT:   c3(7)
// CHECK-NEXT:   c1(8)
// CHECK-NEXT: child 37 18
// CHECK-NEXT: child exit 0
// CHECK-NEXT:   p2(9)
// CHECK-NEXT:   p2(10)
// CHECK-NEXT: parent 11 12
// CHECK-NEXT:   q1(11)
// CHECK-NEXT:   q1(12)
// CHECK-NEXT: parent 111 112
