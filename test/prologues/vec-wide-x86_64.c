// Checks wide vector arguments (docs/prologues.md "Vector registers: what the compiler records"): a __m256d (ymm) and a __m512d (zmm) argument, and a struct holding a __m256d, get records with DYNCALL_FN_REC_VEC_YMM/ZMM from both compilers (-mavx512f), and their jump functions store the whole ymm/zmm registers (vmovdqu/vmovdqu64, exact code) besides regs->vec, clear the upper state (vzeroupper) and merge regs->vec back with vinsertf128/vinsertf32x4 (no legacy-SSE write after the wide loads: about 110 ns per call on the development Xeon, docs/prologues.md "The wide saves and the upper state"), so a handler that clobbers all 32 zmm registers and changes the low lane through regs->vec leaves the upper lanes intact (without the wide saves they come back zeroed, the handler having ended with vzeroupper: checked once by breaking the runtime).
// REQUIRES: x86_64, dyncall-runtime, cpu-avx512f
// RUN: %dyncall_cc %clang --dyncall-prologues -mavx512f -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -mavx512f -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %dyncall_cc %clang --dyncall-prologues -mavx512f -O2 %s -o %t.clang
// RUN: %t.clang %t.clang.jf %t.clang.jf256 | FileCheck %s --check-prefix=OUT
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.jf | FileCheck %s --check-prefix=JF
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.jf256 | FileCheck %s --check-prefix=YMM
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -mavx512f -O2 %s -o %t.gcc
// RUN: %t.gcc %t.gcc.jf %t.gcc.jf256 | FileCheck %s --check-prefix=OUT
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc.jf | FileCheck %s --check-prefix=JF
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc.jf256 | FileCheck %s --check-prefix=YMM
// RUN: %dyncall_rewrite list --prologues %t.gcc | FileCheck %s --check-prefix=LIST
//
// flags: VEC_COUNT (2) | YMM (8) or ZMM (16) | n << 8, INT_COUNT (32) | 0 << 12
// ASM: {{.quad|.8byte}} w256
// ASM-NEXT: {{.long|.4byte}} 554
// ASM: {{.quad|.8byte}} w512
// ASM-NEXT: {{.long|.4byte}} 306
// ASM: {{.quad|.8byte}} s256
// ASM-NEXT: {{.long|.4byte}} 298
// LIST-DAG: <w256> {{.*}} vecregs=2 vecwidth=32 intregs=0{{$}}
// LIST-DAG: <w512> {{.*}} vecregs=1 vecwidth=64 intregs=0{{$}}
//
// w512's jump function: a frame of 784 bytes, the whole zmm registers at
// 272(%rsp), vzeroupper (no legacy-SSE instruction below, here or in the
// handlers, meets a dirty upper state), then regs->vec; back: the whole
// registers, then the low 16 bytes of each from regs->vec merged in with
// vinsertf32x4 (EVEX: no legacy-SSE write after the wide loads).  No
// integer argument (the record's DYNCALL_FN_REC_INT_COUNT is 0): no
// integer register saved or restored, regs->ret right after the frame
// JF:      27: 48 81 ec 10 03 00 00 sub $0x310,%rsp
// JF-NEXT: 2e: 48 8b 75 08 mov 0x8(%rbp),%rsi
// JF-NEXT: 32: 48 89 74 24 48 mov %rsi,0x48(%rsp)
// JF-NEXT: 37: 62 f1 fe 48 7f 84 24 10 01 00 00 vmovdqu64 %zmm0,0x110(%rsp)
// JF-NEXT: 42: c5 f8 77 vzeroupper
// JF-NEXT: 45: 0f 29 44 24 50 movaps %xmm0,0x50(%rsp)
// JF-NEXT: movabs ${{.*}},%rdi
// JF:      movl $0x0,%fs:
// JF-NEXT: 62 f1 fe 48 6f 84 24 10 01 00 00 vmovdqu64 0x110(%rsp),%zmm0
// JF-NEXT: 62 f3 7d 48 18 84 24 50 00 00 00 00 vinsertf32x4 $0x0,0x50(%rsp),%zmm0,%zmm0
// JF-NEXT: 48 89 ec mov %rbp,%rsp
// w256(__m256d, double): ymm0-1 whole (VEX vmovdqu), merged back with vinsertf128
// YMM:      32: 48 89 74 24 48 mov %rsi,0x48(%rsp)
// YMM-NEXT: 37: c5 fe 7f 84 24 10 01 00 00 vmovdqu %ymm0,0x110(%rsp)
// YMM-NEXT: 40: c5 fe 7f 8c 24 30 01 00 00 vmovdqu %ymm1,0x130(%rsp)
// YMM-NEXT: 49: c5 f8 77 vzeroupper
// YMM-NEXT: 4c: 0f 29 44 24 50 movaps %xmm0,0x50(%rsp)
// YMM-NEXT: 51: 0f 29 4c 24 60 movaps %xmm1,0x60(%rsp)
// YMM-NEXT: 56: 48 bf {{.*}} movabs ${{.*}},%rdi
// YMM:      movl $0x0,%fs:
// YMM-NEXT: c5 fe 6f 84 24 10 01 00 00 vmovdqu 0x110(%rsp),%ymm0
// YMM-NEXT: c5 fe 6f 8c 24 30 01 00 00 vmovdqu 0x130(%rsp),%ymm1
// YMM-NEXT: c4 e3 7d 18 84 24 50 00 00 00 00 vinsertf128 $0x0,0x50(%rsp),%ymm0,%ymm0
// YMM-NEXT: c4 e3 75 18 8c 24 60 00 00 00 00 vinsertf128 $0x0,0x60(%rsp),%ymm1,%ymm1
// YMM-NEXT: 48 89 ec mov %rbp,%rsp
// JF-NEXT: 5d pop %rbp
// JF-NEXT: e9 {{.. .. .. ..}} jmp
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

struct s4 {
	__m256d v;
};

NOINLINE double w256(__m256d a, double b)
{
	return a[0] + 10 * a[1] + 100 * a[2] + 1000 * a[3] + 10000 * b;
}
NOINLINE double w512(__m512d a)
{
	double r = 0;

	for (int i = 7; i >= 0; i--)
		r = r * 10 + a[i];
	return r;
}
NOINLINE double s256(struct s4 s)
{
	return s.v[0] + 10 * s.v[1] + 100 * s.v[2] + 1000 * s.v[3];
}

/* Adds 0.5 to the first argument's lane 0 through regs->vec, then sets
 * every bit of all 32 zmm registers (a NaN in every lane). */
static void clobber(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	double d;

	(void)fn, (void)ret, (void)data;
	memcpy(&d, &r->vec[0][0], 8);
	d += 0.5;
	memcpy(&r->vec[0][0], &d, 8);
#define ONES(n) "vpternlogd $0xff, %%zmm" #n ", %%zmm" #n ", %%zmm" #n "\n\t"
	__asm__ volatile(ONES(0) ONES(1) ONES(2) ONES(3) ONES(4) ONES(5)
			 ONES(6) ONES(7) ONES(8) ONES(9) ONES(10) ONES(11)
			 ONES(12) ONES(13) ONES(14) ONES(15) ONES(16) ONES(17)
			 ONES(18) ONES(19) ONES(20) ONES(21) ONES(22) ONES(23)
			 ONES(24) ONES(25) ONES(26) ONES(27) ONES(28) ONES(29)
			 ONES(30) ONES(31)
			 :
			 :
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17",
			   "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
			   "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29",
			   "xmm30", "xmm31");
}

/* The jump function Q leads to (Q = f - 8: 90 90 90 e9 <rel32>), up to
 * and with its final jmp (mov %rbp, %rsp; pop %rbp; jmp rel32). */
static size_t jump_function(void *f, const uint8_t **jf)
{
	static const uint8_t tail[] = { 0x48, 0x89, 0xec, 0x5d, 0xe9 };
	const volatile uint8_t *q = (const volatile uint8_t *)f - 8;
	uint32_t rel = 0;

	if (q[3] != 0xe9)
		return 0;
	for (int i = 3; i >= 0; i--)
		rel = rel << 8 | q[4 + i];
	*jf = (const uint8_t *)q + 8 + (int32_t)rel;
	for (size_t n = 0; n < 1024; n++)
		if (!memcmp(*jf + n, tail, sizeof(tail)))
			return n + sizeof(tail) + 4;
	return 0;
}

static void show(const char *name, void *f)
{
	unsigned fl = 0;
	int s = dyncall_fn_hook(f, clobber, NULL);

	dyncall_fn_flags(f, &fl);
	printf("%s: %d nregs %u ymm %u zmm %u", name, s,
	       DYNCALL_FN_VEC_NREGS(fl), !!(fl & DYNCALL_FN_VEC_YMM),
	       !!(fl & DYNCALL_FN_VEC_ZMM));
}

int main(int argc, char **argv)
{
	double (*volatile p256)(__m256d, double) = w256;
	double (*volatile p512)(__m512d) = w512;
	double (*volatile ps256)(struct s4) = s256;
	__m256d a = { 1, 2, 3, 4 };
	__m512d b = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct s4 s = { { 1, 2, 3, 4 } };
	const uint8_t *jf;
	size_t len;
	FILE *out;

	if (argc < 2)
		return 2;
	// OUT:      w256: 0 nregs 2 ymm 1 zmm 0 -> 54321.0 54321.5
	double u = p256(a, 5);
	show("w256", (void *)w256);
	printf(" -> %.1f %.1f\n", u, p256(a, 5));
	// OUT-NEXT: w512: 0 nregs 1 ymm 0 zmm 1 -> 87654321.0 87654321.5
	u = p512(b);
	show("w512", (void *)w512);
	printf(" -> %.1f %.1f\n", u, p512(b));
	// OUT-NEXT: s256: 0 nregs 1 ymm 1 zmm 0 -> 4321.0 4321.5
	u = ps256(s);
	show("s256", (void *)s256);
	printf(" -> %.1f %.1f\n", u, ps256(s));
	len = jump_function((void *)w512, &jf);
	out = len ? fopen(argv[1], "wb") : NULL;
	if (!out || fwrite(jf, 1, len, out) != len || fclose(out))
		return 1;
	len = argc > 2 ? jump_function((void *)w256, &jf) : 0;
	out = len ? fopen(argv[2], "wb") : NULL;
	if (argc > 2 && (!out || fwrite(jf, 1, len, out) != len || fclose(out)))
		return 1;
	return 0;
}
