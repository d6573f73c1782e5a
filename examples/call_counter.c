// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * call_counter: count the calls of chosen functions of a running program,
 * then live-patch one of them, with function-entry patching
 * (docs/prologues.md).  Build with patchable prologues:
 *
 *	dyncall-cc clang-19 --dyncall-prologues -O2 call_counter.c -o call_counter
 *	./call_counter [NAME...]        (default: tokenize parse_number eval)
 *
 * Each NAME is looked up with dyncall_fn_find and hooked with a handler
 * that bumps that function's counter; the program runs a small expression
 * evaluator over its input, prints the counts, redirects eval to a
 * version that memoizes through the original (dyncall_fn_original), runs
 * again and prints the counts and results again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline))

/* --- the program being observed: sums of products of numbers --- */
/* Every function touches `steps`: without a side effect the compiler may
 * infer that eval is pure and call it once for three equal calls; hooks and
 * redirects change what a call does, not how callers were compiled
 * (docs/prologues.md, "What callers assume"). */
static unsigned long steps;

static const char *const inputs[] = { "1*2+3*4", "10+20*3", "7*7*7+1",
				      "2*3*4*5", "100+200+300" };

NOINLINE long parse_number(const char **s)
{
	long v = 0;

	steps++;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + *(*s)++ - '0';
	return v;
}

NOINLINE long tokenize_product(const char **s)
{
	long v = parse_number(s);

	steps++;
	while (**s == '*') {
		++*s;
		v *= parse_number(s);
	}
	return v;
}

NOINLINE long eval(const char *s)
{
	long v = tokenize_product(&s);

	steps++;
	while (*s == '+') {
		++s;
		v += tokenize_product(&s);
	}
	return v;
}

/* --- the live patch: eval with a one-entry cache before the original --- */
static long (*eval_orig)(const char *);

NOINLINE long eval_cached(const char *s)
{
	static const char *last;
	static long last_v;

	if (s != last) {
		last_v = eval_orig(s);
		last = s;
	}
	return last_v;
}

/* --- the tool: one counter per hooked function --- */
struct counter {
	const char *name;
	void *fn;
	unsigned long calls;
};

static void count_call(void *fn, void *ret, void *data,
		       struct dyncall_regs *regs)
{
	++((struct counter *)data)->calls;
	(void)fn, (void)ret, (void)regs;
}

static long run(int rounds)
{
	long sum = 0;

	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
			for (int k = 0; k < 3; k++) /* the same input thrice */
				sum += eval(inputs[i]);
	return sum;
}

static void report(const char *when, struct counter *c, int n, long sum)
{
	printf("%s: sum %ld, %lu steps\n", when, sum, steps);
	steps = 0;
	for (int i = 0; i < n; i++) {
		printf("  %-18s %lu calls\n", c[i].name, c[i].calls);
		c[i].calls = 0;
	}
}

int main(int argc, char **argv)
{
	static const char *const dflt[] = { "tokenize_product", "parse_number",
					    "eval" };
	const char *const *names = argc > 1 ? (const char *const *)argv + 1 :
					      dflt;
	int n = argc > 1 ? argc - 1 : 3, s;
	struct counter c[16];

	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++) {
		c[i] = (struct counter){ names[i], dyncall_fn_find(names[i]), 0 };
		s = c[i].fn ? dyncall_fn_hook(c[i].fn, count_call, &c[i]) :
			      DYNCALL_ERR_NOFN;
		if (s)
			fprintf(stderr, "call_counter: cannot hook %s: status %d\n",
				names[i], s);
	}
	report("hooked", c, n, run(10));

	/* live patch: every caller of eval now reaches eval_cached (after
	 * eval's own handlers, which still count its calls) */
	eval_orig = (long (*)(const char *))dyncall_fn_original((void *)eval);
	s = eval_orig ? dyncall_fn_redirect((void *)eval, (void *)eval_cached) :
			DYNCALL_ERR_NOFN;
	if (s)
		fprintf(stderr, "call_counter: cannot redirect eval: status %d\n", s);
	report("eval redirected to eval_cached", c, n, run(10));

	for (int i = 0; i < n; i++)
		if (c[i].fn)
			dyncall_fn_restore(c[i].fn);
	dyncall_fn_restore((void *)eval);
	report("restored", c, n, run(10));
	return 0;
}
