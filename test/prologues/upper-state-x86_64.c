// Checks the jump function of a hooked function without a record (built without the plugins: nothing says whether a ymm register carries a __m256 argument or whether the upper state is clean; docs/prologues.md "The upper state without a record"): its probe's exact code (ymm0-7 ORed, the bits above 127 tested, the whole registers saved only when one is set, vzeroupper, the low halves; back: the low halves after a vzeroupper, or out of line the whole registers with the low halves merged in), that a __m256d argument with its upper lanes set and one with them zero both reach the function whole past a handler that sets every bit of ymm0-15 and changes the arguments through regs->vec, and that a legacy-SSE function called with the upper state clean returns with it clean (XINUSE, xgetbv with ecx = 1) although its handler left it dirty.  The builds with the plugins (records: w256's wide saves, d1's vzeroupper) run the same checks.  Without the probe the wide argument's upper lanes come back as the handler left them (-nan) and d1 returns dirty (checked once by disabling the probe in the runtime).
// REQUIRES: x86_64, dyncall-runtime, cpu-avx
// RUN: %clang -fpatchable-function-entry=29,24 -falign-functions=8 -O2 -mavx %libdyncall_cflags %s -o %t.clang %libdyncall_ldflags
// RUN: %t.clang %t.clang.jf | FileCheck %s --check-prefixes=OUT,PLAIN
// RUN: %if cpu-avx512f %{ objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.jf | FileCheck %s --check-prefixes=JF,ZMM %} %else %{ objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.jf | FileCheck %s --check-prefixes=JF,YMM %}
// RUN: gcc-12 -fpatchable-function-entry=29,24 -falign-functions=8 -O2 -mavx %libdyncall_cflags %s -o %t.gcc %libdyncall_ldflags
// RUN: %t.gcc %t.gcc.jf | FileCheck %s --check-prefixes=OUT,PLAIN
// RUN: %if cpu-avx512f %{ objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc.jf | FileCheck %s --check-prefixes=JF,ZMM %} %else %{ objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc.jf | FileCheck %s --check-prefixes=JF,YMM %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -mavx %s -o %t.rec-clang
// RUN: %t.rec-clang %t.rec-clang.jf | FileCheck %s --check-prefixes=OUT,REC
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -mavx %s -o %t.rec-gcc
// RUN: %t.rec-gcc %t.rec-gcc.jf | FileCheck %s --check-prefixes=OUT,REC
//
// d1's jump function without a record: every integer argument register,
// rax and r10; a frame with the wide area (784 bytes)
// JF:      27: 48 81 ec 10 03 00 00 sub $0x310,%rsp
// JF:      51: 48 8b 75 08 mov 0x8(%rbp),%rsi
// JF-NEXT: 55: 48 89 74 24 48 mov %rsi,0x48(%rsp)
// the probe: the bits above 127 of ymm0-7 (zmm0-7 with AVX-512F), ORed
// into ymm8 in a tree
// YMM-NEXT: 5a: c5 7c 56 c1 vorps %ymm1,%ymm0,%ymm8
// YMM-NEXT: 5e: c5 6c 56 cb vorps %ymm3,%ymm2,%ymm9
// YMM-NEXT: 62: c5 5c 56 d5 vorps %ymm5,%ymm4,%ymm10
// YMM-NEXT: 66: c5 4c 56 df vorps %ymm7,%ymm6,%ymm11
// YMM-NEXT: 6a: c4 41 3c 56 c1 vorps %ymm9,%ymm8,%ymm8
// YMM-NEXT: 6f: c4 41 2c 56 d3 vorps %ymm11,%ymm10,%ymm10
// YMM-NEXT: 74: c4 41 3c 56 c2 vorps %ymm10,%ymm8,%ymm8
// YMM-NEXT: 79: c4 43 7d 19 c0 01 vextractf128 $0x1,%ymm8,%xmm8
// YMM-NEXT: 7f: c4 42 79 17 c0 vptest %xmm8,%xmm8
// ZMM-NEXT: 5a: 62 71 7d 48 eb c1 vpord %zmm1,%zmm0,%zmm8
// ZMM:      84: 62 53 fd 48 3b c1 01 vextracti64x4 $0x1,%zmm8,%ymm9
// ZMM-NEXT: 8b: c4 43 7d 19 c0 01 vextractf128 $0x1,%ymm8,%xmm8
// ZMM-NEXT: 91: c4 41 3c 56 c1 vorps %ymm9,%ymm8,%ymm8
// ZMM-NEXT: 96: c4 42 7d 17 c0 vptest %ymm8,%ymm8
// the flag at 0(%rsp); only when a bit is set, the whole registers
// JF-NEXT:  0f 95 04 24 setne (%rsp)
// YMM-NEXT: 88: 74 48 je 0xd2
// YMM-NEXT: 8a: c5 fe 7f 84 24 10 01 00 00 vmovdqu %ymm0,0x110(%rsp)
// YMM:      c9: c5 fe 7f bc 24 f0 01 00 00 vmovdqu %ymm7,0x1f0(%rsp)
// ZMM-NEXT: 9f: 74 58 je 0xf9
// ZMM-NEXT: a1: 62 f1 fe 48 7f 84 24 10 01 00 00 vmovdqu64 %zmm0,0x110(%rsp)
// ZMM:      ee: 62 f1 fe 48 7f bc 24 d0 02 00 00 vmovdqu64 %zmm7,0x2d0(%rsp)
// then, either way, a clean state and the low halves for regs->vec
// JF-NEXT:  c5 f8 77 vzeroupper
// JF-NEXT:  0f 29 44 24 50 movaps %xmm0,0x50(%rsp)
// JF:       0f 29 bc 24 c0 00 00 00 movaps %xmm7,0xc0(%rsp)
// JF-NEXT:  4c 89 54 24 08 mov %r10,0x8(%rsp)
// JF-NEXT:  48 bf {{.. .. .. .. .. .. .. ..}} movabs ${{.*}},%rdi
// JF:       e8 {{.. .. .. ..}} call
// JF-NEXT:  64 c7 04 25 {{.. .. .. ..}} 00 00 00 00 movl $0x0,%fs:
// JF:       4c 8b 54 24 08 mov 0x8(%rsp),%r10
// back: the flag; the common path clears what a handler left and loads
// the low halves
// JF-NEXT:  80 3c 24 00 cmpb $0x0,(%rsp)
// JF-NEXT:  0f 85 {{.. .. .. ..}} jne 0x[[WIDE:[0-9a-f]+]]
// JF-NEXT:  c5 f8 77 vzeroupper
// JF-NEXT:  0f 28 44 24 50 movaps 0x50(%rsp),%xmm0
// JF:       0f 28 bc 24 c0 00 00 00 movaps 0xc0(%rsp),%xmm7
// JF-NEXT:  [[LEAVE:[0-9a-f]+]]: 48 89 ec mov %rbp,%rsp
// JF-NEXT:  5d pop %rbp
// JF-NEXT:  e9 {{.. .. .. ..}} jmp
// out of line: the whole registers, the low halves merged in (no
// legacy-SSE write), back to the frame's end
// JF-NEXT:  [[WIDE]]: {{c5 fe 6f 84 24 10 01 00 00 vmovdqu 0x110\(%rsp\),%ymm0|62 f1 fe 48 6f 84 24 10 01 00 00 vmovdqu64 0x110\(%rsp\),%zmm0}}
// YMM:      c4 e3 7d 18 84 24 50 00 00 00 00 vinsertf128 $0x0,0x50(%rsp),%ymm0,%ymm0
// ZMM:      62 f3 7d 48 18 84 24 50 00 00 00 00 vinsertf32x4 $0x0,0x50(%rsp),%zmm0,%zmm0
// JF:       e9 {{.. .. .. ..}} jmp 0x[[LEAVE]]
// JF-NOT:   {{.}}
#include <cpuid.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

/* Takes a __m256d in ymm0 (-mavx), needs all four lanes. */
NOINLINE double w256(__m256d v, double b)
{
	double l[4];

	_mm256_storeu_pd(l, v);
	return l[0] + 2 * l[1] + 3 * l[2] + 4 * l[3] + 10 * b;
}

/* Calls w256 through a pointer with the four lanes l. */
static double (*volatile pw)(__m256d, double) = w256;
NOINLINE double call_w256(const double *l, double b)
{
	return pw(_mm256_loadu_pd(l), b);
}

/* Takes two doubles in xmm0 and xmm1. */
NOINLINE double d1(double a, double b) { return a * 100 + b; }

/* Sets every bit of ymm0-15 and returns without vzeroupper: what a handler
 * (or anything it calls) may leave behind. */
void dirty_all(void);
__asm__(".text\n"
	".globl dirty_all\n"
	".type dirty_all, @function\n"
	"dirty_all:\n"
	"\tvpcmpeqd %ymm0, %ymm0, %ymm0\n"
	"\tvpcmpeqd %ymm1, %ymm1, %ymm1\n"
	"\tvpcmpeqd %ymm2, %ymm2, %ymm2\n"
	"\tvpcmpeqd %ymm3, %ymm3, %ymm3\n"
	"\tvpcmpeqd %ymm4, %ymm4, %ymm4\n"
	"\tvpcmpeqd %ymm5, %ymm5, %ymm5\n"
	"\tvpcmpeqd %ymm6, %ymm6, %ymm6\n"
	"\tvpcmpeqd %ymm7, %ymm7, %ymm7\n"
	"\tvpcmpeqd %ymm8, %ymm8, %ymm8\n"
	"\tvpcmpeqd %ymm9, %ymm9, %ymm9\n"
	"\tvpcmpeqd %ymm10, %ymm10, %ymm10\n"
	"\tvpcmpeqd %ymm11, %ymm11, %ymm11\n"
	"\tvpcmpeqd %ymm12, %ymm12, %ymm12\n"
	"\tvpcmpeqd %ymm13, %ymm13, %ymm13\n"
	"\tvpcmpeqd %ymm14, %ymm14, %ymm14\n"
	"\tvpcmpeqd %ymm15, %ymm15, %ymm15\n"
	"\tret\n"
	".size dirty_all, .-dirty_all\n"
	".globl clean_upper\n"
	".type clean_upper, @function\n"
	"clean_upper:\n"
	"\tvzeroupper\n"
	"\tret\n"
	".size clean_upper, .-clean_upper\n");
void clean_upper(void);

static long count;
static double seen_low;

/* Reads the first argument's low lane, adds 1 to the second argument
 * (regs->vec[1]: b, a double), then dirties every vector register. */
static void h(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	double b;

	++*(long *)data;
	memcpy(&seen_low, &r->vec[0][0], 8);
	memcpy(&b, &r->vec[1][0], 8);
	b += 1;
	memcpy(&r->vec[1][0], &b, 8);
	(void)fn, (void)ret;
	dirty_all();
}

/* XINUSE bit 2: the upper halves of ymm0-15 in use (-1: not readable) */
static int xgetbv1;
static int upper_dirty(void)
{
	unsigned a, d;

	if (!xgetbv1)
		return -1;
	__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1));
	return (a & 4) != 0;
}

/* The jump function Q leads to: Q = f - 8 holds 90 90 90 e9 <rel32>. */
static const uint8_t *jump_function(void *f)
{
	const volatile uint8_t *q = (const volatile uint8_t *)f - 8;
	int32_t rel;

	if (q[3] != 0xe9)
		return NULL;
	memcpy(&rel, (const uint8_t *)q + 4, 4);
	return (const uint8_t *)q + 8 + rel;
}

/* Its length: up to the wide restore's `jmp leave` (e9 back to the
 * 48 89 ec 5d that ends the frame); 0 if there is none. */
static size_t jf_length(const uint8_t *jf)
{
	static const uint8_t leave[4] = { 0x48, 0x89, 0xec, 0x5d };

	for (size_t i = 0; i < 1536; i++) {
		int32_t rel;

		if (jf[i] != 0xe9)
			continue;
		memcpy(&rel, jf + i + 1, 4);
		if (rel < 0 && (size_t)-(intptr_t)rel <= i + 5 &&
		    !memcmp(jf + i + 5 + rel, leave, 4))
			return i + 5;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double (*volatile pd)(double, double) = d1;
	static const double full[4] = { 1, 2, 3, 4 };
	static const double low[4] = { 1, 2, 0, 0 }; /* upper lanes zero */
	unsigned a, b, c, d;
	const uint8_t *jf;
	size_t len;
	FILE *out;

	if (argc < 2)
		return 2;
	xgetbv1 = __get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & 4);
	// OUT: unhooked: 30 30 5 152
	printf("unhooked: %g %g %g %g\n", call_w256(full, 0), call_w256(low, 2.5),
	       call_w256(low, 0), pd(1.5, 2));
	// OUT-NEXT: hook: 0 0
	printf("hook: %d %d\n", dyncall_fn_hook(w256, h, &count),
	       dyncall_fn_hook(d1, h, &count));
	/* 1 + 4 + 9 + 16 + 10 * (0 + 1): the upper lanes whole */
	// OUT-NEXT: w256 upper set: 40 seen 1
	printf("w256 upper set: %g", call_w256(full, 0));
	printf(" seen %g\n", seen_low);
	/* 1 + 4 + 10 * 3.5: the upper lanes still zero */
	// OUT-NEXT: w256 upper zero: 40 seen 1
	printf("w256 upper zero: %g", call_w256(low, 2.5));
	printf(" seen %g\n", seen_low);
	clean_upper();
	double r = pd(1.5, 2);
	int dirty = upper_dirty();
	/* without a record the probe cleared what the handler left (the
	 * upper halves came zero); with one, the jump function cleared the
	 * upper state before the handler and leaves it as the handler does
	 * (a compiled handler leaves it clean; this one does not) */
	// PLAIN-NEXT: d1: 153 seen 1.5, upper state after: clean
	// REC-NEXT:   d1: 153 seen 1.5, upper state after: dirty
	printf("d1: %g seen %g, upper state after: %s\n", r, seen_low,
	       dirty < 0 ? "unknown" : dirty ? "dirty" : "clean");
	// OUT-NEXT: count 3
	printf("count %ld\n", count);
	jf = jump_function(d1);
	len = jf ? jf_length(jf) : 0;
	out = fopen(argv[1], "wb");
	if (!out || (len && fwrite(jf, 1, len, out) != len) || fclose(out))
		return 1;
	return 0;
}
