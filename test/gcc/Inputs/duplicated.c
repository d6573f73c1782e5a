/* Sites GCC duplicates after the plugin's GIMPLE pass: the loop is split at
 * i == 500 (two copies of both calls) and `twice_call` is inlined twice.
 * Every copy must get its own site entry and its own trampoline. */
#include <stdio.h>

typedef int (*transform_t)(int) __attribute__((dynamic_call));

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

transform_t transform = twice;
struct ops { int (*apply)(int) __attribute__((dynamic_call)); };
static struct ops ops = { thrice };

static inline int twice_call(int x) { return transform(x) + transform(x + 1); }

int main(void)
{
	long sum = 0;

	for (int i = 0; i < 1000; i++) {
		if (i == 500)
			transform = thrice;
		sum += transform(i) + ops.apply(i);
	}
	sum += twice_call(1) * twice_call(2);
	printf("sum %ld\n", sum);
	return 0;
}
