/*
 * A program whose code the runtime changes while it runs, every kind of
 * change once: function entries hooked, unhooked, redirected and
 * restored; a dynamic call's key stored with new targets; a hook list
 * grown and emptied.  Each phase makes 2,000 calls in a loop, so that a
 * translator (Valgrind) or a sanitizer's runtime has seen its code hot
 * before the next change.  The CHECK lines are what a native run prints
 * (test/exec/valgrind.test, test/exec/sanitizers.test).
 */
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
