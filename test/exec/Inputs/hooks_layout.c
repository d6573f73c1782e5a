/*
 * Hook lists of DYNCALL_HOOKS_MAX handlers.  The per-handler code of the
 * first three is short enough for the x86-64 jump function to move some
 * of it behind NOPs (at most two calls end in a 32-byte block,
 * runtime/arch/x86_64_hooks.c "Layout"): one long; three longs; one
 * double (xmm0 saved and reloaded).  The last two, never moved, are there
 * beside them: the data variant with an int; seven longs (one stack
 * argument copied).  Every odd handler clobbers every caller-saved
 * register (the integer ones, xmm0..15) and the stack below it and writes
 * its parameters; every handler logs what it got.  main() compares the
 * log of each call, for 0 to DYNCALL_HOOKS_MAX handlers, with what the
 * handlers of a plain loop log, prints the first call that differs, and
 * the log of the full lists (FileCheck in hook-lists-layout.test).
 */
#include <dyncall.h>
#include <stdio.h>
#include <string.h>

#define N DYNCALL_HOOKS_MAX

static char logbuf[8192];
static size_t logn;
#define LOG(...)                                                              \
	(logn += (size_t)snprintf(logbuf + logn, sizeof logbuf - logn,         \
				  __VA_ARGS__))

#if defined(__x86_64__)
#define CLOBBER_REGS()                                                        \
	__asm__ volatile("mov $-1, %%rax; mov $-2, %%rcx; mov $-3, %%rdx\n\t" \
			 "mov $-4, %%rsi; mov $-5, %%rdi; mov $-6, %%r8\n\t"   \
			 "mov $-7, %%r9; mov $-8, %%r10; mov $-9, %%r11\n\t"   \
			 "pcmpeqd %%xmm0, %%xmm0; pcmpeqd %%xmm1, %%xmm1\n\t"  \
			 "pcmpeqd %%xmm2, %%xmm2; pcmpeqd %%xmm3, %%xmm3\n\t"  \
			 "pcmpeqd %%xmm4, %%xmm4; pcmpeqd %%xmm5, %%xmm5\n\t"  \
			 "pcmpeqd %%xmm6, %%xmm6; pcmpeqd %%xmm7, %%xmm7\n\t"  \
			 "pcmpeqd %%xmm8, %%xmm8; pcmpeqd %%xmm9, %%xmm9\n\t"  \
			 "pcmpeqd %%xmm10, %%xmm10; pcmpeqd %%xmm11, %%xmm11\n\t" \
			 "pcmpeqd %%xmm12, %%xmm12; pcmpeqd %%xmm13, %%xmm13\n\t" \
			 "pcmpeqd %%xmm14, %%xmm14; pcmpeqd %%xmm15, %%xmm15"  \
			 ::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",    \
			 "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", \
			 "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",      \
			 "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory")
#else
#define CLOBBER_REGS() __asm__ volatile("" ::: "memory")
#endif

__attribute__((noinline)) static void scratch(void)
{
	volatile long big[64];

	for (int i = 0; i < 64; i++)
		big[i] = -0x5555;
	(void)big[7];
}
#define CLOBBER(odd)                                                          \
	do {                                                                  \
		if (odd) {                                                    \
			scratch();                                            \
			CLOBBER_REGS();                                       \
		}                                                             \
	} while (0)

/* 16 handlers of each signature, from one macro each: H(i) for i < N. */
#define EACH(H)                                                               \
	H(0) H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9) H(10) H(11) H(12)   \
	H(13) H(14) H(15)
#define LIST(p) { p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8,     \
		  p##9, p##10, p##11, p##12, p##13, p##14, p##15 }

/* (long) */
DYNCALL_HOOKS(l1, void, long);
#define L1(i)                                                                 \
	__attribute__((noinline)) void l1_##i(long a)                         \
	{                                                                     \
		volatile long *va = &a;                                       \
		LOG("%d(%ld) ", i, *va);                                      \
		CLOBBER(i & 1);                                               \
		*va = -1;                                                     \
	}
EACH(L1)
static void (*const l1_h[N])(long) = LIST(l1_);

/* data variant (void *, int) */
DYNCALL_HOOKS_DATA(dv, void, int);
#define DV(i)                                                                 \
	__attribute__((noinline)) void dv_##i(void *d, int a)                 \
	{                                                                     \
		volatile int *va = &a;                                        \
		LOG("%d(%s %d) ", i, (const char *)d, *va);                   \
		CLOBBER(i & 1);                                               \
		*va = -1;                                                     \
	}
EACH(DV)
static void (*const dv_h[N])(void *, int) = LIST(dv_);
static const char *const dv_d[N] = { "a", "b", "c", "d", "e", "f", "g", "h",
				     "i", "j", "k", "l", "m", "n", "o", "p" };

/* (long, long, long) */
DYNCALL_HOOKS(l3, void, long, long, long);
#define L3(i)                                                                 \
	__attribute__((noinline)) void l3_##i(long a, long b, long c)         \
	{                                                                     \
		volatile long *va = &a, *vc = &c;                             \
		LOG("%d(%ld %ld %ld) ", i, *va, b, *vc);                      \
		CLOBBER(i & 1);                                               \
		*va = -1;                                                     \
		*vc = -3;                                                     \
	}
EACH(L3)
static void (*const l3_h[N])(long, long, long) = LIST(l3_);

/* (double) */
DYNCALL_HOOKS(d1, void, double);
#define D1(i)                                                                 \
	__attribute__((noinline)) void d1_##i(double x)                       \
	{                                                                     \
		volatile double *vx = &x;                                     \
		LOG("%d(%g) ", i, *vx);                                       \
		CLOBBER(i & 1);                                               \
		*vx = -1.5;                                                   \
	}
EACH(D1)
static void (*const d1_h[N])(double) = LIST(d1_);

/* seven longs: one on the stack (x86-64) */
DYNCALL_HOOKS(l7, void, long, long, long, long, long, long, long);
#define L7(i)                                                                 \
	__attribute__((noinline)) void l7_##i(long a, long b, long c, long d, \
					       long e, long f, long g)         \
	{                                                                     \
		volatile long *vg = &g;                                       \
		LOG("%d(%ld %ld %ld %ld %ld %ld %ld) ", i, a, b, c, d, e, f,  \
		    *vg);                                                     \
		CLOBBER(i & 1);                                               \
		*vg = -1;                                                     \
	}
EACH(L7)
static void (*const l7_h[N])(long, long, long, long, long, long, long) =
	LIST(l7_);

__attribute__((noinline)) static void call_l1(long a)
{
	DYNCALL_HOOKS_CALL(l1, a);
}
__attribute__((noinline)) static void call_dv(int a)
{
	DYNCALL_HOOKS_DATA_CALL(dv, a);
}
__attribute__((noinline)) static void call_l3(long a)
{
	DYNCALL_HOOKS_CALL(l3, a, a + 1, a + 2);
}
__attribute__((noinline)) static void call_d1(double x)
{
	DYNCALL_HOOKS_CALL(d1, x);
}
__attribute__((noinline)) static void call_l7(long a)
{
	DYNCALL_HOOKS_CALL(l7, a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6);
}

static char want[8192];
static int bad;

/* The log of `call`, against `ref` (the handlers 0..k called in a loop). */
#define CHECK(name, k, call, ref)                                            \
	do {                                                                 \
		logn = 0;                                                    \
		logbuf[0] = 0;                                               \
		for (int i_ = 0; i_ < (k); i_++)                             \
			ref;                                                 \
		memcpy(want, logbuf, logn + 1);                              \
		logn = 0;                                                    \
		logbuf[0] = 0;                                               \
		call;                                                        \
		if (strcmp(want, logbuf) && !bad++)                          \
			printf("MISMATCH %s %d:\n  want %s\n  got  %s\n", name, \
			       k, want, logbuf);                             \
	} while (0)

int main(void)
{
	int r = 0;

	for (int k = 0; k <= N; k++) {
		if (k) {
			r |= dyncall_hooks_add(l1, l1_h[k - 1]);
			r |= dyncall_hooks_add_data(dv, dv_h[k - 1],
						    (void *)dv_d[k - 1]);
			r |= dyncall_hooks_add(l3, l3_h[k - 1]);
			r |= dyncall_hooks_add(d1, d1_h[k - 1]);
			r |= dyncall_hooks_add(l7, l7_h[k - 1]);
		}
		CHECK("l1", k, call_l1(100 + k), l1_h[i_](100 + k));
		CHECK("dv", k, call_dv(200 + k),
		      dv_h[i_]((void *)dv_d[i_], 200 + k));
		CHECK("l3", k, call_l3(300 + k),
		      l3_h[i_](300 + k, 301 + k, 302 + k));
		CHECK("d1", k, call_d1(k + 0.25), d1_h[i_](k + 0.25));
		CHECK("l7", k, call_l7(400 + k),
		      l7_h[i_](400 + k, 401 + k, 402 + k, 403 + k, 404 + k,
			       405 + k, 406 + k));
	}
	printf("status %d, %s\n", r, bad ? "differs" : "every call as the loop's");
	logn = 0;
	call_l1(7);
	printf("l1: %s\n", logbuf);
	logn = 0;
	call_dv(8);
	printf("dv: %s\n", logbuf);
	logn = 0;
	call_l3(9);
	printf("l3: %s\n", logbuf);
	logn = 0;
	call_d1(0.5);
	printf("d1: %s\n", logbuf);
	logn = 0;
	call_l7(10);
	printf("l7: %s\n", logbuf);
	return bad != 0;
}
