// Checks that jump functions written after fork stay each process's own: the pool of generated code is a memfd written through its own alias from the start (runtime/patch.c dc_text_code_map), so after fork both processes must move to fresh memfds before their next write.  Parent and child each hook a different function with a different handler; their jump functions land at the same pool address in both processes (the pool was copied by fork), the child's written first, the parent's after it.  Each then calls its function: with a shared memfd the child would run the parent's jump function (the parent's handler, then the parent's function's body).  Also with the alias writer alone, and with mprotect alone (the pool is then plain anonymous memory, written through mprotect).
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.gcc | FileCheck %s
// RUN: %t.clang | FileCheck %s
// RUN: env DYNCALL_TEXT_WRITE=alias %t.gcc | FileCheck %s
// RUN: env DYNCALL_TEXT_WRITE=mprotect %t.clang | FileCheck %s
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

NOINLINE long f_a(long x) { return x + 1; }
NOINLINE long f_child(long x) { return x + 100; }
NOINLINE long f_parent(long x) { return x + 10000; }

static long seen_a, seen_child, seen_parent, wrong;

static void h_a(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	seen_a += fn == (void *)f_a;
	(void)ret, (void)data, (void)r;
}

static void h_child(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	if (fn == (void *)f_child && data == &seen_child)
		seen_child++;
	else
		wrong++;
	(void)ret, (void)r;
}

static void h_parent(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	if (fn == (void *)f_parent && data == &seen_parent)
		seen_parent++;
	else
		wrong++;
	(void)ret, (void)r;
}

static void must_rw(int ok)
{
	if (!ok) {
		perror("pipe");
		exit(2);
	}
}

int main(void)
{
	long (*volatile pa)(long) = f_a, (*volatile pc)(long) = f_child,
			(*volatile pp)(long) = f_parent;
	int to_parent[2], to_child[2];
	char c = 0;
	pid_t pid;
	int status;

	// CHECK: before fork: 0 -> 2 a 1
	printf("before fork: %d", dyncall_fn_hook(f_a, h_a, NULL));
	printf(" -> %ld", pa(1));
	printf(" a %ld\n", seen_a);
	fflush(stdout);
	must_rw(!pipe(to_parent) && !pipe(to_child));
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		int s = dyncall_fn_hook(f_child, h_child, &seen_child);

		must_rw(write(to_parent[1], &c, 1) == 1); /* written first */
		must_rw(read(to_child[0], &c, 1) == 1); /* the parent's too */
		// CHECK: child: 0 -> 101 child 1 a 2 wrong 0
		printf("child: %d -> %ld", s, pc(1));
		printf(" child %ld a", seen_child);
		pa(1);
		printf(" %ld wrong %ld\n", seen_a, wrong);
		fflush(stdout);
		_exit(0);
	}
	must_rw(read(to_parent[0], &c, 1) == 1);
	int s = dyncall_fn_hook(f_parent, h_parent, &seen_parent);
	must_rw(write(to_child[1], &c, 1) == 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	// CHECK-NEXT: parent: 0 -> 10001 parent 1 a 2 wrong 0
	printf("parent: %d -> %ld", s, pp(1));
	printf(" parent %ld a", seen_parent);
	pa(1);
	printf(" %ld wrong %ld\n", seen_a, wrong);
	// CHECK-NEXT: not hooked in the parent: 101 child 0
	printf("not hooked in the parent: %ld child %ld\n", pc(1),
	       seen_child);
	return 0;
}
