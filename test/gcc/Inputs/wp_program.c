/* A program with no annotation whose output must not depend on whether it
 * was built in the plugin's whole-program mode: indirect calls through
 * fields, locals, parameters, array elements, returned pointers, casts, a
 * tail call, a callback from libc, and an interpreter-style dispatch table
 * with 8 handlers (a megamorphic site).  With -DDYNCALL_STATS it also
 * prints whether the runtime registered, learned and gave up on sites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DYNCALL_STATS
#include <dyncall.h>
#endif

typedef long (*op_fn)(long acc, long arg);

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * (b | 1); }
static long op_xor(long a, long b) { return a ^ (b << 3); }
static long op_shl(long a, long b) { return a << (b & 3); }
static long op_shr(long a, long b) { return a >> (b & 3); }
static long op_rot(long a, long b) { return (a << 5) ^ (a >> 7) ^ b; }
static long op_mix(long a, long b) { return a * 31 + b; }

/* The interpreter: one dispatch site, 8 targets. */
static op_fn const table[8] = { op_add, op_sub, op_mul, op_xor,
				op_shl, op_shr, op_rot, op_mix };

__attribute__((noinline)) static long run(const unsigned char *code, long n,
					  long acc)
{
	for (long i = 0; i < n; i++)
		acc = table[code[i] & 7](acc, i) & 0xffffffffL;
	return acc;
}

struct ops {
	const char *name;
	long (*read)(long);
	long (*write)(long, long);
};

static long r_a(long x) { return x + 7; }
static long r_b(long x) { return x * 3; }
static long w_a(long x, long y) { return x - y; }
static long w_b(long x, long y) { return x + 2 * y; }
static const struct ops ops_a = { "a", r_a, w_a };
static struct ops ops_b = { "b", r_b, w_b };

__attribute__((noinline)) static long field_call(const struct ops *o, long x)
{
	return o->read(x) + o->write(x, 3);
}

__attribute__((noinline)) static long param_call(long (*f)(long), long x)
{
	return f(x) + 1;
}

/* A tail call through a parameter. */
__attribute__((noinline)) static long tail_call(long (*f)(long), long x)
{
	return f(x);
}

__attribute__((noinline)) static long (*pick(int i))(long)
{
	return i & 1 ? r_a : r_b;
}

__attribute__((noinline)) static long returned_call(int i, long x)
{
	return pick(i)(x);
}

__attribute__((noinline)) static long local_call(int i, long x)
{
	long (*f)(long) = pick(i + 1);
	long r = f(x);
	return r + f(r & 15);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* A call through a cast of an unrelated pointer type. */
__attribute__((noinline)) static long cast_call(void *p, long x)
{
	return ((long (*)(long))p)(x);
}

static long ctor_value;
static long (*ctor_fn)(long) = r_b;
/* Runs before main (and after the dyncall constructor): a site that is
 * first called this early. */
__attribute__((constructor)) static void early(void)
{
	ctor_value = ctor_fn(5);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	unsigned char *code = malloc(n);
	long sum = ctor_value;
	long v[16];

	for (long i = 0; i < n; i++)
		code[i] = (unsigned char)((i * 7 + (i >> 3)) & 7);
	sum += run(code, n, 1);
	for (int i = 0; i < 1000; i++) {
		sum += field_call(i & 1 ? &ops_a : &ops_b, i);
		sum += param_call(i % 3 ? r_a : r_b, i);
		sum += tail_call(pick(i), i);
		sum += returned_call(i, i);
		sum += local_call(i, i);
		sum += cast_call((void *)(i & 2 ? r_a : r_b), i);
	}
	ops_b.read = r_a; /* a plain store: the sites learn it */
	for (int i = 0; i < 100; i++)
		sum += field_call(&ops_b, i);
	for (int i = 0; i < 16; i++)
		v[i] = (i * 37) % 16;
	qsort(v, 16, sizeof(v[0]), cmp_long);
	for (int i = 0; i < 16; i++)
		sum += v[i] * i;
	printf("sum=%ld name=%s\n", sum, ops_a.name);
	free(code);
#ifdef DYNCALL_STATS
	struct dyncall_stats st;
	dyncall_get_stats(&st);
	fprintf(stderr, "wp: sites=%d learned=%d megamorphic=%d refused=%d\n",
		st.sites >= 8, st.learned > 0, st.megamorphic > 0,
		(int)st.refused);
	fprintf(stderr, "status: %s\n", dyncall_status_string());
#endif
	return 0;
}
