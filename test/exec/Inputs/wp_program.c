/*
 * wp_program.c - a C program with every kind of indirect call, unannotated
 * except one key, for the whole-program tests: an interpreter dispatching
 * through a table of 8 operations (a megamorphic site), comparators passed
 * to libc's qsort/bsearch (libc's calls stay indirect; ours become sites),
 * a struct of function pointers, a returned function pointer, a tail call,
 * a callback through a parameter, and an annotated key whose fresh site
 * must stay direct in a whole-program build.
 *
 * WP_NO_MAIN: build as a library (the entry point is wp_main()).
 */
#include "expect.h"

#define NOINLINE __attribute__((noinline))

typedef long (*op_fn)(long, long);

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * (b | 1); }
static long op_xor(long a, long b) { return a ^ b; }
static long op_and(long a, long b) { return a & (b | 0xff00); }
static long op_or(long a, long b) { return a | (b & 0x3); }
static long op_shl(long a, long b) { return a << (b & 3); }
static long op_max(long a, long b) { return a > b ? a : b; }

enum { NOPS = 8 };
static op_fn ops[NOPS] = {op_add, op_sub, op_mul, op_xor,
			  op_and, op_or,  op_shl, op_max};

struct insn {
	int op;
	long imm;
};

/* The interpreter: one call site, 8 targets. */
NOINLINE static long run(const struct insn *code, int n, long acc)
{
	for (int i = 0; i < n; i++)
		acc = ops[code[i].op](acc, code[i].imm) & 0xffffffffL;
	return acc;
}

/* A tail call through a parameter. */
NOINLINE static long apply(op_fn f, long a, long b) { return f(a, b); }

/* A returned function pointer. */
NOINLINE static op_fn pick(unsigned i) { return ops[i % NOPS]; }

static int cmp_up(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
static int cmp_down(const void *a, const void *b) { return cmp_up(b, a); }

/* Our own calls to a comparator: sites. */
NOINLINE static void isort(int *v, int n, int (*cmp)(const void *, const void *))
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cmp(&v[j - 1], &v[j]) > 0; j--) {
			int t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* A struct of function pointers, set at run time. */
struct counter {
	long (*step)(struct counter *, long);
	long (*get)(const struct counter *);
	long value;
};
static long step_add(struct counter *c, long d) { return c->value += d; }
static long step_twice(struct counter *c, long d) { return c->value += 2 * d; }
static long get_value(const struct counter *c) { return c->value; }
NOINLINE static long drive(struct counter *c, int n)
{
	for (int i = 0; i < n; i++)
		c->step(c, i);
	return c->get(c);
}

/* The annotated key: a fresh site, patched direct. */
static long hot_target(long a, long b) { return a * 3 + b; }
op_fn DYNCALL hot = hot_target;
NOINLINE long call_hot(long a) { return hot(a, 1); }

int wp_main(void)
{
	static struct insn code[1000];
	unsigned seed = 12345;
	for (int i = 0; i < 1000; i++) {
		seed = seed * 1103515245u + 12345u;
		code[i].op = (seed >> 16) % NOPS;
		code[i].imm = (seed >> 8) & 0xff;
	}
	long acc = 1;
	for (int r = 0; r < 300; r++)
		acc = run(code, 1000, acc);
	printf("interpreter: %ld\n", acc);

	long t = 0;
	for (unsigned i = 0; i < 10000; i++)
		t = (t + apply(pick(i), (long)i, 7)) & 0xffffffffL;
	printf("apply/pick: %ld\n", t);

	int v[64], w[64];
	for (int i = 0; i < 64; i++)
		v[i] = w[i] = (int)((i * 37u + 11u) % 101u);
	qsort(v, 64, sizeof v[0], cmp_up);
	isort(w, 64, cmp_down);
	int key = v[10];
	int *found = bsearch(&key, v, 64, sizeof v[0], cmp_up);
	printf("sorted: %d %d %d / %d %d, found at %ld\n", v[0], v[1], v[63],
	       w[0], w[63], found ? (long)(found - v) : -1L);

	struct counter c1 = {step_add, get_value, 0};
	struct counter c2 = {step_twice, get_value, 5};
	printf("counters: %ld %ld\n", drive(&c1, 1000), drive(&c2, 1000));

	long h = 0;
	for (int i = 0; i < 1000; i++)
		h += call_hot(i);
	printf("hot: %ld\n", h);
	/* The annotated key's site is fresh: direct, also in a whole-program
	 * build (its own key wins over the whole-program key); checking mode
	 * (DYNCALL_CHECK=1) guards every site. */
	EXPECT_KEY(hot, 1,
		   getenv("DYNCALL_CHECK") ? DYNCALL_STATE_GUARDED
					   : DYNCALL_STATE_DIRECT,
		   1);
	EXPECT_RUNTIME_OK();
	/* run, apply, drive (2), call_hot at least (isort's comparator may be
	 * propagated into a direct call); 2 keys: hot and the unit's
	 * whole-program key. */
	EXPECT_STATS(5, 2);
	return 0;
}

#ifndef WP_NO_MAIN
int main(void) { return wp_main(); }
#endif
