/*
 * Hook lists against the argument types whose registers or stack the
 * signature word (DYNCALL_HOOKS_SIG_, docs/hooks.md "The signature word")
 * once under-counted.  Each list has two handlers: the first logs its
 * arguments, writes them, and clobbers every argument register and the
 * stack below it; the second logs its arguments, which must be the
 * caller's.  The output is fixed (FileCheck in hook-lists-abi.test).
 *
 * - (long, __int128) and (long, __int128 x3, long): aarch64 starts a
 *   16-byte-aligned argument on an even x register (x0, x2:x3);
 * - (long, struct of 16 bytes aligned to 16): the same for an aggregate;
 * - __float128 (x86-64: xmm0; ppc64le: v2);
 * - x86-64: struct { long double } and a packed { char; long }: memory;
 * - no argument: a prototype `(void)`.
 */
#include <dyncall.h>
#include <stdio.h>
#include <string.h>

static char logbuf[4096];
static size_t logn;
#define LOG(...) (logn += (size_t)snprintf(logbuf + logn, sizeof logbuf - logn, __VA_ARGS__))

#if defined(__x86_64__)
#define FPR "x"
#elif defined(__aarch64__)
#define FPR "w"
#else
#define FPR "d"
#endif
/* Every argument register with junk, and a stack area below. */
__attribute__((noinline)) void sink(long a, long b, long c, long d, long e,
				    long f, long g, long h, double x0,
				    double x1, double x2, double x3, double x4,
				    double x5, double x6, double x7, long s1,
				    long s2, long s3, long s4)
{
	__asm__ volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d), "r"(e), "r"(f),
			 "r"(g), "r"(h), "r"(s1), "r"(s2), "r"(s3), "r"(s4)
			 : "memory");
	__asm__ volatile("" ::FPR(x0), FPR(x1), FPR(x2), FPR(x3), FPR(x4),
			 FPR(x5), FPR(x6), FPR(x7));
}
__attribute__((noinline)) void scratch(void)
{
	volatile long big[256];
	for (int i = 0; i < 256; i++)
		big[i] = -0x5555;
	(void)big[7];
}
#define CLOBBER()                                                            \
	(sink(-1, -2, -3, -4, -5, -6, -7, -8, -1.5, -2.5, -3.5, -4.5, -5.5,   \
	      -6.5, -7.5, -8.5, -11, -12, -13, -14),                          \
	 scratch())

#define HEX128(v) (unsigned long)((unsigned __int128)(v) >> 64), (unsigned long)(v)

/* --- __int128: aarch64's even register pair --- */
DYNCALL_HOOKS(i128, void, long, __int128);
static void i128_log(const char *n, long a, __int128 b)
{
	LOG("%s(%ld %lx:%lx) ", n, a, HEX128(b));
}
void i128_1(long a, __int128 b)
{
	i128_log("a", a, b);
	*(volatile long *)&a = 0;
	*(volatile __int128 *)&b = 0;
	CLOBBER();
}
void i128_2(long a, __int128 b) { i128_log("b", a, b); }

DYNCALL_HOOKS(i128s, void, long, __int128, __int128, __int128, long);
static void i128s_log(const char *n, long a, __int128 b, __int128 c,
		      __int128 d, long e)
{
	LOG("%s(%ld %lx:%lx %lx:%lx %lx:%lx %ld) ", n, a, HEX128(b), HEX128(c),
	    HEX128(d), e);
}
void i128s_1(long a, __int128 b, __int128 c, __int128 d, long e)
{
	i128s_log("a", a, b, c, d, e);
	*(volatile __int128 *)&d = 0;
	*(volatile long *)&e = 0;
	CLOBBER();
}
void i128s_2(long a, __int128 b, __int128 c, __int128 d, long e)
{
	i128s_log("b", a, b, c, d, e);
}

/* --- a 16-byte aggregate aligned to 16 --- */
struct a16 {
	long x, y;
} __attribute__((aligned(16)));
DYNCALL_HOOKS(agg16, void, long, struct a16, long);
void agg16_1(long a, struct a16 s, long b)
{
	LOG("a(%ld %ld %ld %ld) ", a, s.x, s.y, b);
	*(volatile long *)&s.y = 0;
	CLOBBER();
}
void agg16_2(long a, struct a16 s, long b)
{
	LOG("b(%ld %ld %ld %ld) ", a, s.x, s.y, b);
}

#if defined(__x86_64__) || (defined(__powerpc64__) && defined(__FLOAT128__))
#define HAVE_F128 1
/* --- __float128: x86-64 xmm0, ppc64le v2 --- */
DYNCALL_HOOKS(f128, void, __float128, long);
__attribute__((noinline)) void sink_q(__float128 a, __float128 b)
{
	__asm__ volatile("" ::"r"(&a), "r"(&b) : "memory");
}
void f128_1(__float128 q, long a)
{
	LOG("a(%g %ld) ", (double)q, a);
	sink_q(-99.0, -98.0);
	CLOBBER();
}
void f128_2(__float128 q, long a) { LOG("b(%g %ld) ", (double)q, a); }
#endif

#if defined(__x86_64__)
/* --- x86-64 memory-class aggregates of up to 16 bytes --- */
struct ld {
	long double x;
};
DYNCALL_HOOKS(ldl, void, struct ld, long);
void ld_1(struct ld s, long a)
{
	LOG("a(%Lg %ld) ", s.x, a);
	*(volatile long double *)&s.x = 0;
	CLOBBER();
}
void ld_2(struct ld s, long a) { LOG("b(%Lg %ld) ", s.x, a); }

struct __attribute__((packed)) pk {
	char c;
	long l;
};
DYNCALL_HOOKS(pkl, void, struct pk, long);
void pk_1(struct pk s, long a)
{
	LOG("a(%d %ld %ld) ", s.c, s.l, a);
	((volatile struct pk *)&s)->l = 0;
	CLOBBER();
}
void pk_2(struct pk s, long a) { LOG("b(%d %ld %ld) ", s.c, s.l, a); }
#endif

/* --- no argument: `void (*)(void)` --- */
DYNCALL_HOOKS(none, void);
void none_1(void) { LOG("a() "); CLOBBER(); }
void none_2(void) { LOG("b() "); }

#define RUN(name, h1, h2, ...)                                               \
	do {                                                                 \
		int r1 = dyncall_hooks_add(name, h1);                        \
		int r2 = dyncall_hooks_add(name, h2);                        \
		logn = 0;                                                    \
		logbuf[0] = 0;                                               \
		DYNCALL_HOOKS_CALL(name, __VA_ARGS__);                       \
		printf(#name " %d %d: %s\n", r1, r2, logbuf);                \
	} while (0)

int main(void)
{
	__int128 v = ((__int128)0x1111 << 64) | 0x2222;
	__int128 w = ((__int128)0x3333 << 64) | 0x4444;
	__int128 u = ((__int128)0x5555 << 64) | 0x6666;
	struct a16 s = { 21, 22 };

	RUN(i128, i128_1, i128_2, 1, v);
	RUN(i128s, i128s_1, i128s_2, 1, v, w, u, 77);
	RUN(agg16, agg16_1, agg16_2, 20, s, 23);
#ifdef HAVE_F128
	RUN(f128, f128_1, f128_2, (__float128)2.5, 31);
#else
	printf("f128 0 0: a(2.5 31) b(2.5 31) \n");
#endif
#if defined(__x86_64__)
	struct ld l = { 3.5L };
	struct pk p = { 5, 42 };
	RUN(ldl, ld_1, ld_2, l, 41);
	RUN(pkl, pk_1, pk_2, p, 43);
#else
	printf("ldl 0 0: a(3.5 41) b(3.5 41) \n");
	printf("pkl 0 0: a(5 42 43) b(5 42 43) \n");
#endif
	{
		int r1 = dyncall_hooks_add(none, none_1);
		int r2 = dyncall_hooks_add(none, none_2);
		logn = 0;
		DYNCALL_HOOKS_CALL(none);
		printf("none %d %d: %s\n", r1, r2, logbuf);
	}
	printf("done\n");
	return 0;
}
