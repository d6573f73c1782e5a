// Input of vec-args-cxx.test: C++ member functions, inline (COMDAT)
// functions and templates with vector arguments, defined in two
// translation units (-DSECOND: the second, which instantiates the same
// inline functions and templates).
#include <dyncall.h>

#include <cstdio>
#include <cstring>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noipa))
#endif

struct S {
	double k;
	double m(double x);                                       // out of line
	NOINLINE double in(double a, double b) { return a * k + b; } // COMDAT
};
template <class T> NOINLINE T tpl(T a, T b) { return a * 10 + b; }
NOINLINE inline double inl(double a, long b) { return a * 10 + b; }

#ifdef SECOND
double second(S *s, double y)
{
	return s->in(y, 1) + tpl(y, 2.0) + tpl(3L, 4L) + inl(y, 2);
}
#else
NOINLINE double S::m(double x) { return x * k; }
double second(S *s, double y);

static long calls;

// every bit of xmm0-15 set; 100 added to the last vector argument
static void clobber(void *fn, void *ret, void *data, dyncall_regs *r)
{
	int n = *static_cast<const int *>(data);
	double d;

	(void)fn, (void)ret;
	calls++;
	if (n) {
		std::memcpy(&d, &r->vec[n - 1][0], 8);
		d += 100;
		std::memcpy(&r->vec[n - 1][0], &d, 8);
	}
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\tpcmpeqd %%xmm1, %%xmm1\n\t"
			 "pcmpeqd %%xmm2, %%xmm2\n\tpcmpeqd %%xmm3, %%xmm3\n\t"
			 "pcmpeqd %%xmm4, %%xmm4\n\tpcmpeqd %%xmm5, %%xmm5\n\t"
			 "pcmpeqd %%xmm6, %%xmm6\n\tpcmpeqd %%xmm7, %%xmm7\n\t"
			 "pcmpeqd %%xmm8, %%xmm8\n\tpcmpeqd %%xmm15, %%xmm15"
			 :
			 :
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm15");
}

template <class F> static void hook(const char *name, F f, const int *n)
{
	void *p;
	unsigned fl = 0;

	std::memcpy(&p, &f, sizeof(p));
	int s = dyncall_fn_hook(p, clobber, const_cast<int *>(n));
	dyncall_fn_flags(p, &fl);
	std::printf("%s: %d nregs %u\n", name, s, DYNCALL_FN_VEC_NREGS(fl));
}

int main()
{
	static const int n0 = 0, n1 = 1, n2 = 2;
	S s = { 2 };
	double (*volatile pm)(S *, double) = [](S *o, double x) { return o->m(x); };
	double u = pm(&s, 3) + second(&s, 5);

	// the member function: this in %rdi, x in xmm0
	hook("S::m", &S::m, &n1);
	// the inline member (COMDAT), the templates, the inline function
	hook("S::in", &S::in, &n2);
	hook("tpl<double>", &tpl<double>, &n2);
	hook("tpl<long>", &tpl<long>, &n0);
	hook("inl", &inl, &n1);
	double v = pm(&s, 3) + second(&s, 5);
	// S::m: 3 + 100 = 103 -> 206; S::in(5, 1 + 100) = 111;
	// tpl(5, 2 + 100) = 152; tpl(3, 4) = 34; inl(5 + 100, 2) = 1052
	std::printf("%g %g calls %ld\n", u, v, calls);
	return 0;
}
#endif
