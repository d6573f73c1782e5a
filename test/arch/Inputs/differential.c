/* A program whose output must not depend on the plugin: variable keys
 * (plain stores, null), a type key (struct field), tail calls, stack
 * arguments, floating-point arguments, a large struct returned through
 * memory (x8 on aarch64, r3 on ppc64le), varargs, and calls from a
 * constructor.  Built with and without the plugin; outputs compared. */
#include <stdarg.h>
#include <stdio.h>

#include <dyncall.h>

struct big { long v[6]; };

static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
static int negate(int x) { return -x; }
static long sum10(long a, long b, long c, long d, long e, long f, long g,
		  long h, long i, long j)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
	       9 * i + 10 * j;
}
static long prod10(long a, long b, long c, long d, long e, long f, long g,
		   long h, long i, long j)
{
	return a * b * c * d * e * f * g * h * i * j;
}
static double mix(double a, float b, int c, double d) { return a * b + c - d; }
static double mix2(double a, float b, int c, double d) { return a - b * c + d; }
static struct big make(long s)
{
	struct big r;
	for (int i = 0; i < 6; i++)
		r.v[i] = s + i;
	return r;
}
static struct big make2(long s)
{
	struct big r;
	for (int i = 0; i < 6; i++)
		r.v[i] = s * i;
	return r;
}
static int vsum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
static int vmax(int n, ...)
{
	va_list ap;
	int m = -1000;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int v = va_arg(ap, int);
		m = v > m ? v : m;
	}
	va_end(ap);
	return m;
}

int (*DYNCALL op)(int) = twice;
long (*DYNCALL many)(long, long, long, long, long, long, long, long, long,
		      long) = sum10;
double (*DYNCALL fp)(double, float, int, double) = mix;
struct big (*DYNCALL maker)(long) = make;
int (*DYNCALL var)(int, ...) = vsum;

struct ops {
	int (*DYNCALL fn)(int);
};

static int ctor_result;
__attribute__((constructor(200))) static void early(void)
{
	ctor_result = op(21);
}

__attribute__((noinline)) static int apply(int x) { return op(x) + 1; }
__attribute__((noinline)) static int tail(int x) { return op(x); }
__attribute__((noinline)) static int field(struct ops *o, int x)
{
	return o->fn(x);
}

int main(void)
{
	int (*const fns[])(int) = { square, negate, twice, square };
	struct ops o = { negate };

	printf("ctor: %d\n", ctor_result);
	for (int i = 0; i < 8; i++) {
		op = fns[i % 4];
		printf("apply(%d) = %d tail(%d) = %d\n", i, apply(i), i, tail(i));
	}
	for (int i = 0; i < 2; i++) {
		many = i ? prod10 : sum10;
		printf("many = %ld\n", many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
		fp = i ? mix2 : mix;
		printf("fp = %.3f\n", fp(1.5, 2.25f, 3, 0.125));
		maker = i ? make2 : make;
		struct big b = maker(10 + i);
		printf("big = %ld %ld %ld\n", b.v[0], b.v[3], b.v[5]);
		var = i ? vmax : vsum;
		printf("var = %d\n", var(5, 4, 9, -2, 7, 1));
		o.fn = i ? square : negate;
		printf("field = %d\n", field(&o, 7));
	}
	op = 0;
	printf("op is %s\n", op ? "set" : "null");
	return 0;
}
