/* One indirect call in a static inline helper, inlined into six functions
 * that -flto-partition=max puts in six LTO partitions: six copies of one
 * whole-program site, one per partition (whole-program-lto-partitions.test). */
#include <stdio.h>
#include <stdlib.h>

static void *(*volatile do_malloc)(size_t) = malloc;
static size_t total;

static inline void *my_malloc(size_t n)
{
	total += n;
	return do_malloc(n);
}

#define F(i)                                                   \
	__attribute__((noinline)) int f##i(size_t n)           \
	{                                                      \
		void *p = my_malloc(n + i);                    \
		int ok = p != NULL;                            \
		free(p);                                       \
		return ok;                                     \
	}
F(1) F(2) F(3) F(4) F(5) F(6)

int main(void)
{
	int ok = 0;

	for (int r = 0; r < 1000; r++)
		ok += f1(1) + f2(2) + f3(3) + f4(4) + f5(5) + f6(6);
	printf("ok %d total %zu\n", ok, total);
	return 0;
}
