/* Stores to keys in code that runs before relocation is finished or before
 * the runtime's constructor (early-stores*.test): an IFUNC resolver (itself
 * and through a helper it calls; a variable key and an annotated field), and
 * a .preinit_array function.  main() then calls through every key and, in
 * the plugin build (-DWITH_DYNCALL), checks what the runtime knows. */
#include <stdio.h>

#include <dyncall.h>

static int add1(int x) { return x + 1; }
static int add3(int x) { return x + 3; }
static int add5(int x) { return x + 5; }
static int add7(int x) { return x + 7; }
static int times10(int x) { return x * 10; }

int (*by_resolver)(int) DYNCALL = add1;
int (*by_helper)(int) DYNCALL = add1;
int (*by_preinit)(int) DYNCALL = add1;
struct ops {
	int (*op)(int) DYNCALL;
} ops = { add1 };

__attribute__((noinline)) static void helper(void)
{
	by_helper = add5;
}

static int (*resolver(void))(int)
{
	by_resolver = add3;
	ops.op = add7;
	helper();
	return times10;
}

int picked(int) __attribute__((ifunc("resolver")));

static void preinit(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	by_preinit = add7;
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit_fn)(
	int, char **, char **) = preinit;

int main(void)
{
	printf("picked %d\n", picked(2));
	printf("by_resolver %d\n", by_resolver(1));
	printf("by_helper %d\n", by_helper(1));
	printf("by_preinit %d\n", by_preinit(1));
	printf("ops.op %d\n", ops.op(1));
#ifdef WITH_DYNCALL
	struct dyncall_key_info info;

	if (dyncall_key_info(&by_resolver, &info) || info.value != (void *)add3)
		printf("by_resolver: runtime disagrees\n");
	if (dyncall_key_info(&by_helper, &info) || info.value != (void *)add5)
		printf("by_helper: runtime disagrees\n");
	if (dyncall_key_info(&by_preinit, &info) || info.value != (void *)add7)
		printf("by_preinit: runtime disagrees\n");
#endif
	return 0;
}
