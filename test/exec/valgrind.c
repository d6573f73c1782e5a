// Checks that a program keeps its meaning under Valgrind, which runs translations of the code it saw first (runtime/code_changed.c, docs/runtime.md "Under Valgrind"): function entries hooked, unhooked, redirected and restored, a dynamic call's key stored with new targets and a hook list grown and emptied, each phase called 2,000 times in a loop so that its code is translated hot before the next change; memcheck's run must print exactly what the native run prints (GCC 12 and Clang).  Fails without the runtime telling Valgrind (VALGRIND_DISCARD_TRANSLATIONS), every feature running the code it had before its first change: no handler ever runs ("hooked 0: 2001000 calls=0"), the redirect is not taken, the call site keeps calling twice after op = square ("square: 20000", not 59000: a wrong call), the hook list runs its handler once ("one handler: 1").
// REQUIRES: x86_64, valgrind, dyncall-runtime, dyncall-pass, gcc-plugin
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc
// RUN: %t.gcc > %t.gcc.native
// RUN: FileCheck %s < %t.gcc.native
// RUN: valgrind -q --error-exitcode=99 %t.gcc > %t.gcc.vg
// RUN: diff %t.gcc.native %t.gcc.vg
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang > %t.clang.native
// RUN: FileCheck %s < %t.clang.native
// RUN: valgrind -q --error-exitcode=99 %t.clang > %t.clang.vg
// RUN: diff %t.clang.native %t.clang.vg
#include <stdio.h>

#include <dyncall.h>

#define CALLS 2000

static volatile long sink;
static long counted;

__attribute__((noinline)) int work(int x)
{
	sink++;
	return x + 1;
}

__attribute__((noinline)) int work_v2(int x)
{
	sink++;
	return x + 1000;
}

static void count(void *fn, void *ret, void *data, struct dyncall_regs *regs)
{
	(void)fn;
	(void)ret;
	(void)regs;
	++*(long *)data;
}

static void count_twice(void *fn, void *ret, void *data,
			struct dyncall_regs *regs)
{
	(void)fn;
	(void)ret;
	(void)regs;
	*(long *)data += 2;
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
	return op(x) + 1;
}

static long events;
DYNCALL_HOOKS(on_event, void, int);

static void log_event(int x)
{
	events += x;
}

static void log_event_too(int x)
{
	events += 10 * x;
}

static void entries(const char *phase)
{
	long sum = 0;

	for (int i = 0; i < CALLS; i++)
		sum += work(i);
	printf("%s: %ld calls=%ld\n", phase, sum, counted);
}

static void sites(const char *phase)
{
	long sum = 0;

	for (int i = 0; i < CALLS; i++)
		sum += apply(i % 10);
	printf("%s: %ld\n", phase, sum);
}

static void hook_list(const char *phase)
{
	for (int i = 0; i < CALLS; i++)
		DYNCALL_HOOKS_CALL(on_event, 1);
	printf("%s: %ld\n", phase, events);
}

int main(void)
{
	// CHECK: nops: 2001000 calls=0
	entries("nops");
	// CHECK-NEXT: hooked 0: 2001000 calls=2000
	printf("hooked %d", dyncall_fn_hook(work, count, &counted));
	entries("");
	// CHECK-NEXT: two handlers 0: 2001000 calls=8000
	printf("two handlers %d", dyncall_fn_hook(work, count_twice, &counted));
	entries("");
	// CHECK-NEXT: unhooked 0: 2001000 calls=10000
	printf("unhooked %d", dyncall_fn_unhook(work, count_twice));
	entries("");
	// CHECK-NEXT: redirected 0: 3999000 calls=12000
	printf("redirected %d", dyncall_fn_redirect(work, work_v2));
	entries("");
	// CHECK-NEXT: restored 0: 2001000 calls=12000
	printf("restored %d", dyncall_fn_restore(work));
	entries("");

	// CHECK-NEXT: twice: 20000
	sites("twice");
	op = square;
	// CHECK-NEXT: square: 59000
	sites("square");
	op = twice;
	// CHECK-NEXT: twice again: 20000
	sites("twice again");

	// CHECK-NEXT: no handler: 0
	hook_list("no handler");
	dyncall_hooks_add(on_event, log_event);
	// CHECK-NEXT: one handler: 2000
	hook_list("one handler");
	dyncall_hooks_add(on_event, log_event_too);
	// CHECK-NEXT: two handlers: 24000
	hook_list("two handlers");
	dyncall_hooks_remove(on_event, log_event);
	dyncall_hooks_remove(on_event, log_event_too);
	// CHECK-NEXT: none again: 24000
	hook_list("none again");
	return 0;
}
