// Checks that a caller in the same unit as a DYNCALL_PATCHABLE function (selective build: the area by its attribute, no -fpatchable-function-entry on the command line) assumes nothing of the function's code: GCC's -fipa-ra (callers keep values in the caller-saved registers the callee's code leaves alone: x86-64 and aarch64) and -fipa-stack-alignment (x86-64: callers call a callee that needs no alignment with %rsp 8 off) held for the function as compiled, not once it is redirected to a target that clobbers every caller-saved register and checks its stack. The dyncall GCC plugin (GCC 12, GCC 11, the aarch64 cross compiler) forgets what final published for such a function; Clang publishes nothing (no IPRA by default).
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc gcc-12 -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s
// RUN: %dyncall_cc gcc-12 -Os %s -o %t.gcc-os
// RUN: %t.gcc-os | FileCheck %s
// RUN: %dyncall_cc gcc-12 -O2 -flto %s -o %t.gcc-lto
// RUN: %t.gcc-lto | FileCheck %s
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 -O2 %s -o %t.gcc11 %}
// RUN: %if gcc11-plugin %{ %t.gcc11 | FileCheck %s %}
// RUN: %dyncall_cc %clang -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 -O2 %s -o %t.a64-gcc %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc | FileCheck %s %}
// CHECK: before: 137 15
// CHECK-NEXT: redirect: 0
// CHECK-NEXT: after: 137 15 misaligned 0
#include <stdio.h>

#include <dyncall.h>

/* static: binds locally, so GCC uses what it knows of its code */
__attribute__((noinline)) static long f(long x) DYNCALL_PATCHABLE;
__attribute__((noinline)) static long f(long x)
{
	return x + 1;
}

/* The redirect target: f's result, every caller-saved register clobbered
 * (x86-64: and the stack alignment at its entry checked). */
__attribute__((used)) long misaligned; /* used: named from asm (LTO) */
long f2(long x);
#if defined(__x86_64__)
__asm__(".text\n.globl f2\n.type f2, @function\nf2:\n"
	"\tlea 8(%rsp), %rax\n\ttest $15, %al\n\tjz 1f\n"
	"\tincq misaligned(%rip)\n"
	"1:\tlea 1(%rdi), %rax\n"
	"\tmov $0x5a5a5a5a, %ecx\n\tmov %rcx, %rdx\n\tmov %rcx, %rsi\n"
	"\tmov %rcx, %r8\n\tmov %rcx, %r9\n\tmov %rcx, %r10\n"
	"\tmov %rcx, %r11\n\tmov %rcx, %rdi\n"
	"\tmovq %rcx, %xmm0\n\tmovq %rcx, %xmm1\n\tmovq %rcx, %xmm2\n"
	"\tmovq %rcx, %xmm3\n\tmovq %rcx, %xmm4\n\tmovq %rcx, %xmm5\n"
	"\tmovq %rcx, %xmm6\n\tmovq %rcx, %xmm7\n\tmovq %rcx, %xmm8\n"
	"\tmovq %rcx, %xmm9\n\tmovq %rcx, %xmm10\n\tmovq %rcx, %xmm11\n"
	"\tmovq %rcx, %xmm12\n\tmovq %rcx, %xmm13\n\tmovq %rcx, %xmm14\n"
	"\tmovq %rcx, %xmm15\n"
	"\tret\n.size f2, .-f2\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl f2\n.type f2, %function\nf2:\n"
	"\thint 34\n" /* bti c */
	"\tadd x0, x0, #1\n\tmov x1, #0x5a5a\n"
	"\tmov x2, x1\n\tmov x3, x1\n\tmov x4, x1\n\tmov x5, x1\n"
	"\tmov x6, x1\n\tmov x7, x1\n\tmov x8, x1\n\tmov x9, x1\n"
	"\tmov x10, x1\n\tmov x11, x1\n\tmov x12, x1\n\tmov x13, x1\n"
	"\tmov x14, x1\n\tmov x15, x1\n\tmov x16, x1\n\tmov x17, x1\n"
	"\tdup v0.2d, x1\n\tdup v1.2d, x1\n\tdup v2.2d, x1\n\tdup v3.2d, x1\n"
	"\tdup v4.2d, x1\n\tdup v5.2d, x1\n\tdup v6.2d, x1\n\tdup v7.2d, x1\n"
	"\tdup v16.2d, x1\n\tdup v17.2d, x1\n\tdup v18.2d, x1\n"
	"\tdup v19.2d, x1\n\tdup v20.2d, x1\n\tdup v21.2d, x1\n"
	"\tdup v22.2d, x1\n\tdup v23.2d, x1\n\tdup v24.2d, x1\n"
	"\tdup v25.2d, x1\n\tdup v26.2d, x1\n\tdup v27.2d, x1\n"
	"\tdup v28.2d, x1\n\tdup v29.2d, x1\n\tdup v30.2d, x1\n"
	"\tdup v31.2d, x1\n"
	"\tret\n.size f2, .-f2\n");
#endif

/* Keeps its arguments live across the call (-fipa-ra: in the argument
 * registers f leaves alone). */
__attribute__((noinline)) long keep(long a, long b, long c, long d, long e,
				    long h, long i, long j)
{
	long r = f(a);

	return r + a * b + c * d + e * h + i * j + b + c + d + e + h + i + j;
}

/* A leaf but for f (-fipa-stack-alignment: no frame to align %rsp). */
__attribute__((noinline)) long leafish(long a)
{
	return f(a) * 2 + 7;
}

int main(void)
{
	/* through volatile pointers: both are const functions to GCC, whose
	 * calls it would otherwise fold */
	long (*volatile k)(long, long, long, long, long, long, long, long) =
		keep;
	long (*volatile l)(long) = leafish;

	long rk = k(1, 2, 3, 4, 5, 6, 7, 8), rl = l(3);

	printf("before: %ld %ld\n", rk, rl);
	printf("redirect: %d\n", dyncall_fn_redirect((void *)f, (void *)f2));
	rk = k(1, 2, 3, 4, 5, 6, 7, 8);
	rl = l(3);
	printf("after: %ld %ld misaligned %ld\n", rk, rl, misaligned);
	return 0;
}
