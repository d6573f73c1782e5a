/*
 * The library of test/exec/two-runtimes.test: built against the shared
 * runtime (libdyncall.so), loaded by a program linked with libdyncall.a.
 * A key and a site of its own, and a store into a key of the program
 * (by name: the program exports it).
 */
#include <dyncall.h>

static int add7(int x)
{
	return x + 7;
}

static int square(int x)
{
	return x * x;
}

int (*DYNCALL lib_op)(int) = add7;

__attribute__((noinline)) int lib_apply(int x)
{
	return lib_op(x);
}

void lib_switch(void)
{
	lib_op = square;
}

static int negate(int x)
{
	return -x;
}

extern int (*DYNCALL op)(int);

void lib_store(void)
{
	op = negate;
}
