/* The executable: defines the key, retargets it, calls it here and in the DSO. */
#include <stdio.h>
#include <dyncall.h>

int lib_call(int x);
static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }
int (*DYNCALL lib_hook)(int) = add1;

int main(void)
{
	int a = lib_call(1) + lib_hook(1);
	lib_hook = add2;
	int b = lib_call(1) + lib_hook(1);
	printf("a=%d b=%d\n", a, b);
	return 0;
}
