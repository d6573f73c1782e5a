/* Calls with unusual ABIs through pointers, for whole-program mode: a
 * variadic callee, an unprototyped (K&R) pointer, a noreturn callee, a GNU C
 * nested function called through a pointer (its address is a trampoline on
 * the stack), a struct returned in memory, floating-point and complex
 * arguments, a VLA argument, a call in an IFUNC resolver (runs before
 * relocation), __builtin_setjmp, a cleanup, atomic and volatile pointers,
 * a call selected by a switch.  Each runs in a loop long enough for the
 * runtime to learn its targets.  Output must equal the plain build's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DYNCALL_STATS
#include <dyncall.h>
#endif

#define N 20000
typedef int (*vf)(char *, const char *, ...);
typedef long (*kr)();
typedef void (*nr)(int) __attribute__((noreturn));
struct big { long a[8]; };

static int my_sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsprintf(buf, fmt, ap);
	va_end(ap);
	return n;
}
static long kr_add(a, b) long a; double b; { return a + (long)b; }
static jmp_buf jb;
static void jump_out(int v) { longjmp(jb, v); }
static struct big twice(struct big b)
{
	for (int i = 0; i < 8; i++)
		b.a[i] *= 2;
	return b;
}
static double fmix(double d, float f) { return d * f + 0.5; }
static _Complex double csq(_Complex double v) { return v * v; }
static int vsum(int n, int *a)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}
static int inc(int x) { return x + 1; }
static int dec(int x) { return x - 1; }

__attribute__((noinline)) int va_call(vf f, char *buf, int x) { return f(buf, "%d/%.1f", x, 1.5); }
__attribute__((noinline)) long kr_call(kr f, long x) { return f(x, 2.0); }
__attribute__((noinline)) void nr_call(nr f, int x) { f(x); }
__attribute__((noinline)) int nested(int y)
{
	int inner(int z) { return z + y; }
	int (*volatile p)(int) = inner;
	return p(3);
}
__attribute__((noinline)) struct big big_call(struct big (*f)(struct big), struct big b) { return f(b); }
__attribute__((noinline)) double fp_call(double (*f)(double, float), double d) { return f(d, 1.5f) * 2; }
__attribute__((noinline)) _Complex double cx_call(_Complex double (*f)(_Complex double), _Complex double v) { return f(v); }
__attribute__((noinline)) int vla_call(int n, int (*f)(int, int *))
{
	int a[n];
	for (int i = 0; i < n; i++)
		a[i] = i;
	return f(n, a);
}
int ifunc_impl(int x) { return x * 7; }
static int (*resolver_helper)(int) = inc;
static int resolved_with;
static void *resolve(void)
{
	resolved_with = resolver_helper(41);
	return (void *)ifunc_impl;
}
int ifn(int) __attribute__((ifunc("resolve")));
__attribute__((noinline)) int bsj_call(int (*f)(int), int x)
{
	static void *buf[5];
	if (__builtin_setjmp(buf))
		return -1;
	return f(x);
}
static int cleaned;
static void cl(int *p) { cleaned += *p; }
__attribute__((noinline)) int cleanup_call(int (*f)(int), int x)
{
	int v __attribute__((cleanup(cl))) = f(x);
	return v;
}
__attribute__((noinline)) int atomic_call(int (*_Atomic *pp)(int), int x) { return (*pp)(x); }
__attribute__((noinline)) int vol_call(int (*volatile *pp)(int), int x) { return (*pp)(x); }
__attribute__((noinline)) int sw(int k, int (*a)(int), int (*b)(int))
{
	switch (k & 3) {
	case 0: return a(k);
	case 1: return b(k);
	default: return (k & 4 ? a : b)(k);
	}
}

int main(void)
{
	char buf[64];
	long acc = 0;
	struct big b = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
	int (*_Atomic ap)(int) = inc;
	int (*volatile vp)(int) = dec;
	_Complex double c = 0;
	double d = 0;

	for (int i = 0; i < N; i++) {
		acc += va_call(my_sprintf, buf, i);
		acc += kr_call((kr)kr_add, i);
		acc += nested(i);
		acc += big_call(twice, b).a[i & 7];
		d += fp_call(fmix, i);
		c += cx_call(csq, __builtin_complex((double)(i & 7), 1.0));
		acc += vla_call(1 + (i & 15), vsum);
		acc += ifn(i);
		acc += bsj_call(i & 1 ? inc : dec, i);
		acc += cleanup_call(inc, i & 7);
		acc += atomic_call(&ap, i);
		acc += vol_call(&vp, i);
		acc += sw(i, inc, dec);
	}
	int r = setjmp(jb);
	if (r == 0)
		nr_call(jump_out, 5);
	printf("acc=%ld d=%.1f c=%.1f%+.1fi buf=%s jumped=%d resolved=%d cleaned=%d\n",
	       acc, d, __real__ c, __imag__ c, buf, r, resolved_with, cleaned);
#ifdef DYNCALL_STATS
	struct dyncall_stats st;
	dyncall_get_stats(&st);
	fprintf(stderr, "wp: sites=%d learned=%d refused=%d\n", st.sites > 0,
		st.learned > 0, (int)st.refused);
	fprintf(stderr, "status: %s\n", dyncall_status_string());
#endif
	return 0;
}
