/*
 * The program every build-mode test (opt levels, PIC/PIE, retpoline, CET,
 * LTO) compiles with and without the plugin: a fresh variable key with a
 * call site, a loop site and a tail site; a key whose address escapes
 * (guarded sites); a type key.  Each call prints which function ran with
 * what.  -DMODES_NO_MAIN builds it as a library whose modes_main() a
 * separate main (modes_main.c) calls.
 */
#include "expect.h"

typedef int (*unop_t)(int);

__attribute__((noinline)) int inc(int x) { printf("  inc(%d)\n", x); return x + 1; }
__attribute__((noinline)) int dbl(int x) { printf("  dbl(%d)\n", x); return 2 * x; }
__attribute__((noinline)) int neg(int x) { printf("  neg(%d)\n", x); return -x; }

unop_t DYNCALL handler = inc;  /* fresh: only loaded and called  */
unop_t DYNCALL escaping = dbl; /* its address is taken below    */

struct ops {
	const char *name;
	unop_t DYNCALL apply; /* a type key */
};

__attribute__((noinline)) int call_once(int x) { return handler(x) * 10; }

__attribute__((noinline)) int call_tail(int x) { return handler(x); }

__attribute__((noinline)) int call_loop(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += handler(i);
	return sum;
}

__attribute__((noinline)) int call_escaping(int x) { return escaping(x) + 1; }

__attribute__((noinline)) void set_through(unop_t *where, unop_t f) { *where = f; }

__attribute__((noinline)) int call_op(struct ops *o, int x)
{
	return o->apply(x) + 100;
}

int modes_main(void)
{
	static const unop_t fns[] = { dbl, neg, inc };
	struct ops a = { "a", neg }, b = { "b", inc };

	for (int r = 0; r < 3; r++) {
		handler = fns[r];
		printf("round %d\n", r);
		printf(" once %d\n", call_once(r + 1));
		printf(" tail %d\n", call_tail(r + 2));
		printf(" loop %d\n", call_loop(2));
		EXPECT_KEY(handler, 3, DYNCALL_STATE_DIRECT, 3);
	}

	printf(" escaping %d\n", call_escaping(5));
	set_through(&escaping, neg);
	printf(" escaping %d\n", call_escaping(6));
	/* set_through stored without the runtime: tell it (the plugin build's
	 * sites are guarded, so they were right anyway). */
#ifdef WITH_DYNCALL
	dyncall_update(&escaping);
#endif
	printf(" escaping %d\n", call_escaping(7));
	EXPECT_KEY(escaping, 1, DYNCALL_STATE_GUARDED, 1);

	for (int r = 0; r < 2; r++) {
		printf(" op %s %d\n", a.name, call_op(&a, r));
		printf(" op %s %d\n", b.name, call_op(&b, r));
		a.apply = r ? neg : dbl;
	}
	return 0;
}

#ifndef MODES_NO_MAIN
int main(void)
{
	EXPECT_RUNTIME_OK();
	/* handler (3 sites), escaping (1), struct ops.apply (1). */
	EXPECT_STATS(5, 3);
	return modes_main();
}
#endif
