// Checks that a whole-program build with thousands of hot sites, whose discovery thunks and learned guard stubs fill stub-region memory across several of the runtime's 64 KiB fill chunks (runtime/stubs.c fills a region lazily, one chunk at a time), prints exactly what the plain build prints, with -mretpoline at -O2, normally, in checking mode and with learning off; and that the runtime generated more stub bytes than one chunk holds.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -mretpoline %libdyncall_cflags %s -o %t/ref
// RUN: %t/ref > %t/ref.out
// RUN: FileCheck --input-file=%t/ref.out %s
// RUN: %dyncall_cc %clang --dyncall-whole-program -O2 -mretpoline -DWITH_DYNCALL %s -o %t/wp
// RUN: %t/wp > %t/wp.out 2> %t/wp.err
// RUN: diff %t/ref.out %t/wp.out
// RUN: FileCheck --check-prefix=STUBS --input-file=%t/wp.err %s
// RUN: env DYNCALL_CHECK=1 %t/wp > %t/wp.check.out 2> /dev/null
// RUN: diff %t/ref.out %t/wp.check.out
// RUN: env DYNCALL_LEARN=0 %t/wp > %t/wp.nolearn.out 2> /dev/null
// RUN: diff %t/ref.out %t/wp.nolearn.out
//
// CHECK: sites: 4096
// CHECK-NEXT: sum: {{[0-9]+}}
// STUBS: many-stubs: enough

#include <stdio.h>
#ifdef WITH_DYNCALL
#include <dyncall.h>
#endif

#define NOINLINE __attribute__((noinline))
typedef long (*fn_t)(long);

/* Eight targets; every site sees two of them, alternately. */
#define T(i) static NOINLINE long t##i(long x) { return x * (2 * (i) + 1) + (i); }
T(0) T(1) T(2) T(3) T(4) T(5) T(6) T(7)
static fn_t targets[8] = { t0, t1, t2, t3, t4, t5, t6, t7 };
static fn_t *volatile table = targets; /* the compiler never sees a target */

/* 4096 functions, each with one indirect call (a whole-program site). */
#define S(n) static NOINLINE long s##n(long x) { return table[(n + (x & 1)) & 7](x) ^ n; }
#define S4(n) S(n##0) S(n##1) S(n##2) S(n##3)
#define S16(n) S4(n##0) S4(n##1) S4(n##2) S4(n##3)
#define S64(n) S16(n##0) S16(n##1) S16(n##2) S16(n##3)
#define S256(n) S64(n##0) S64(n##1) S64(n##2) S64(n##3)
#define S1024(n) S256(n##0) S256(n##1) S256(n##2) S256(n##3)
S1024(10) S1024(11) S1024(12) S1024(13)

#define P(n) s##n,
#define P4(n) P(n##0) P(n##1) P(n##2) P(n##3)
#define P16(n) P4(n##0) P4(n##1) P4(n##2) P4(n##3)
#define P64(n) P16(n##0) P16(n##1) P16(n##2) P16(n##3)
#define P256(n) P64(n##0) P64(n##1) P64(n##2) P64(n##3)
#define P1024(n) P256(n##0) P256(n##1) P256(n##2) P256(n##3)
static fn_t sites[] = { P1024(10) P1024(11) P1024(12) P1024(13) };
#define NSITES (sizeof(sites) / sizeof(sites[0]))

int main(void)
{
	unsigned long sum = 0;

	/* Enough rounds for every site to be re-specialised to its two
	 * targets (sampled misses: one in 16, 8 samples). */
	for (long r = 0; r < 400; r++)
		for (unsigned i = 0; i < NSITES; i++)
			sum = sum * 31 + (unsigned long)sites[i](r + i);
	printf("sites: %zu\nsum: %lu\n", NSITES, sum);
#ifdef WITH_DYNCALL
	{
		struct dyncall_stats st;

		dyncall_get_stats(&st);
		/* 4096 discovery thunks (16 bytes) alone take a chunk. */
		if (st.stubs > 4096)
			fprintf(stderr, "many-stubs: enough (%llu stubs)\n",
				(unsigned long long)st.stubs);
		else
			fprintf(stderr, "many-stubs: only %llu stubs\n",
				(unsigned long long)st.stubs);
	}
#endif
	return 0;
}
