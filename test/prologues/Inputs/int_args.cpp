// Input of int-args-{x86_64,aarch64,ppc64le}.test: C++ member
// functions (`this` in the first integer register), one returning a large
// struct (x86-64: the sret pointer in rdi, `this` in rsi; aarch64: `this`
// in x0, the result's address in x8; ppc64le: the sret pointer in r3,
// `this` in r4), and a class passed by invisible
// reference; a handler adds 1000 to the last integer argument through
// regs->arg and clobbers every integer register.
#include <dyncall.h>

#include <cstdio>
#include <cstring>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noipa))
#endif

struct R {
	long x[5];
};
struct NT {
	long v;
	NT(long x) : v(x) {}
	NT(const NT &o);
	~NT();
};
NT::NT(const NT &o) : v(o.v) {}
NT::~NT() {}

struct S {
	long k;
	NOINLINE long m(long a);
	NOINLINE R big(long a);
	NOINLINE double md(double d);
};
long S::m(long a) { return k + a; }
R S::big(long a)
{
	R r{};
	r.x[0] = a + k;
	return r;
}
double S::md(double d) { return d + k; }
NOINLINE long byref(NT t) { return t.v; }

#include "clobber_int.h"
#if defined(__x86_64__) || defined(__powerpc64__)
#define BIG_A 2 /* sret, this, a (ppc64le: r3, r4, r5) */
#else
#define BIG_A 1 /* this, a (the result: x8) */
#endif

static void bump(void *fn, void *ret, void *data, dyncall_regs *r)
{
	(void)fn, (void)ret;
	r->arg[*static_cast<const int *>(data)] += 1000;
	CLOBBER();
}

/* the address of a non-virtual member function (Itanium: its first word) */
template <class F> static void *addr(F f)
{
	void *p;

	std::memcpy(&p, &f, sizeof(p));
	return p;
}

int main()
{
	static const int a1 = 1, big_a = BIG_A;
	S s{ 7 };
	long (S::*volatile pm)(long) = &S::m;
	R (S::*volatile pbig)(long) = &S::big;

	long u = (s.*pm)(1);
	int st = dyncall_fn_hook(addr(&S::m), bump,
				 const_cast<int *>(&a1));
	std::printf("m: %d -> %ld %ld\n", st, u, (s.*pm)(1));
	u = (s.*pbig)(1).x[0];
	st = dyncall_fn_hook(addr(&S::big), bump,
			     const_cast<int *>(&big_a));
	std::printf("big: %d -> %ld %ld\n", st, u, (s.*pbig)(1).x[0]);
	return 0;
}
