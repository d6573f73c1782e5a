/* A key, a store and a call: for dyncall-cc-cross.test. */
#include <stdio.h>
#include <dyncall.h>

__attribute__((noinline)) static int plus_one(int x) { return x + 1; }
__attribute__((noinline)) static int twice(int x) { return 2 * x; }
int (*op)(int) DYNCALL = plus_one;

__attribute__((noinline)) static int call(int v)
{
	int r = op(v);
	__asm__ volatile("" ::: "memory");
	return r;
}

int main(void)
{
	struct dyncall_key_info info;

	printf("before %d\n", call(3));
	op = twice;
	printf("after %d\n", call(3));
	if (dyncall_key_info(&op, &info) != DYNCALL_OK)
		return 1;
	printf("sites %u, patched %u\n", info.nsites,
	       info.ndirect + info.nguarded);
	return 0;
}
