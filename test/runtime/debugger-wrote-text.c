// Checks that text written by someone else through its executing view (a debugger's breakpoint: ptrace writes with FOLL_FORCE, here the same write through /proc/self/mem) does not hide the runtime's later writes (runtime/patch.c alias_renew, docs/runtime.md "Never writable and executable"): such a write copies the private page of the memfd view on write, and stores through the memfd no longer reach it.  After a hook, a same-value write into the hooked function's page; then a redirect, a restore, a new hook, a call site retargeted, each taking effect (GCC 12 and Clang, prologues and a dynamic call, with the writer picked by default and with DYNCALL_TEXT_WRITE=alias).  Fails without the check of each store through the executing view (both compilers): "redirect 0: 2 calls 2" (the redirect returned 0 and was not taken), "restore -4" with the handler still running, and "site 6" after op = square (the site kept calling twice: a wrong call); seen first under gdb (a breakpoint in main's page after a hook).
// REQUIRES: x86_64, dyncall-runtime, dyncall-pass, gcc-plugin
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s
// RUN: env DYNCALL_TEXT_WRITE=alias %t.gcc | FileCheck %s
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s
// RUN: env DYNCALL_TEXT_WRITE=alias %t.clang | FileCheck %s
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <dyncall.h>

static volatile int sink;
static int calls;

__attribute__((noinline)) int work(int x)
{
	sink++;
	return x + 1;
}

__attribute__((noinline)) int work_v2(int x)
{
	sink++;
	return x + 100;
}

static int twice(int x)
{
	return 2 * x;
}

static int square(int x)
{
	return x * x;
}

int (*DYNCALL op)(int) = twice;

__attribute__((noinline)) static int apply(int x)
{
	return op(x);
}

static void count(void *fn, void *ret, void *data, struct dyncall_regs *regs)
{
	(void)fn;
	(void)ret;
	(void)data;
	(void)regs;
	calls++;
}

/* What a debugger does to insert or remove a breakpoint, with the byte
 * that is there: the kernel copies the page on write all the same. */
static void debugger_write(const void *at)
{
	int fd = open("/proc/self/mem", O_RDWR);
	uint8_t b = *(const volatile uint8_t *)at;

	if (fd < 0 || pwrite(fd, &b, 1, (off_t)(uintptr_t)at) != 1)
		perror("/proc/self/mem");
	close(fd);
}

/* a call of work, then what it returned and the handler calls so far */
static void show(const char *what, int status)
{
	int v = work(1);

	printf("%s %d: %d calls %d\n", what, status, v, calls);
}

int main(void)
{
	int r;

	// CHECK: site 6
	printf("site %d\n", apply(3));
	// CHECK-NEXT: hook 0: 2 calls 1
	r = dyncall_fn_hook(work, count, NULL);
	show("hook", r);
	debugger_write((const char *)work + 1);
	debugger_write((const char *)apply + 1);
	// CHECK-NEXT: redirect 0: 101 calls 2
	r = dyncall_fn_redirect(work, work_v2);
	show("redirect", r);
	// CHECK-NEXT: restore 0: 2 calls 2
	r = dyncall_fn_restore(work);
	show("restore", r);
	debugger_write((const char *)work + 1);
	// CHECK-NEXT: hook again 0: 2 calls 3
	r = dyncall_fn_hook(work, count, NULL);
	show("hook again", r);
	// CHECK-NEXT: unhook 0: 2 calls 3
	r = dyncall_fn_unhook(work, count);
	show("unhook", r);
	op = square;
	// CHECK-NEXT: site 9
	printf("site %d\n", apply(3));
	debugger_write((const char *)apply + 1);
	op = twice;
	// CHECK-NEXT: site 6
	printf("site %d\n", apply(3));
	return 0;
}
