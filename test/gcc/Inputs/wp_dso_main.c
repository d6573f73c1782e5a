/* Input of test/gcc/whole-program-exec.test: a program whose callbacks a
 * shared library (wp_direct_lib.c, built in whole-program mode too) calls
 * through its own whole-program site. */
#include <stdio.h>

#ifdef DYNCALL_STATS
#include <dyncall.h>
#endif

typedef int (*fn_t)(int);
int apply_cb(fn_t f, int x);

static int a(int x) { return x + 1; }
static int b(int x) { return x * 3; }
static int c(int x) { return x ^ 0x55; }
static int d(int x) { return x - 7; }
static int e(int x) { return x << 2; }
static int f(int x) { return x >> 1; }
static fn_t const cbs[6] = { a, b, c, d, e, f };
static fn_t volatile local_cb = b;

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 100000; i++) {
		sum += apply_cb(cbs[(i >> 4) % 6], i);
		sum += local_cb(i);
	}
	printf("sum=%ld\n", sum);
#ifdef DYNCALL_STATS
	struct dyncall_stats st;
	dyncall_get_stats(&st);
	fprintf(stderr, "wp: modules=%d sites=%d learned=%d refused=%d\n",
		(int)st.modules, st.sites >= 2, st.learned > 0, (int)st.refused);
#endif
	return 0;
}
