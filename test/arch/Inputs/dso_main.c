/* multi-dso.c's executable: calls through the library's key directly and
 * through the library, stores to it from both modules. */
#include <stdio.h>

#include <dyncall.h>

extern int (*DYNCALL hook)(int);
int lib_call(int x);
void lib_set(int (*f)(int));

static int neg(int x) { return -x; }
static int sq(int x) { return x * x; }

__attribute__((noinline)) static int here(int x) { return hook(x) + 1; }

int main(void)
{
	printf("start: here=%d lib=%d\n", here(3), lib_call(3));
	hook = neg;
	printf("exe store: here=%d lib=%d\n", here(3), lib_call(3));
	lib_set(sq);
	printf("lib store: here=%d lib=%d\n", here(3), lib_call(3));
	for (int i = 0; i < 1000; i++)
		i & 1 ? lib_set(neg) : (void)(hook = sq);
	printf("loop: here=%d lib=%d\n", here(4), lib_call(4));
	return 0;
}
