// Checks the x86-64 jump function the runtime generates for a hooked function (docs/prologues.md "Jump functions"): its exact code (endbr64, the %fs-relative recursion guard, the saves (of rdi and rsi only: add's record says it takes two integer arguments and is neither variadic nor nested, so not rax nor r10 either; of xmm0 only: its record says it takes one double, after a vzeroupper: the record says the upper halves carry nothing; the CPU must have AVX, else the runtime leaves it out), direct calls of each handler, the restores, a direct jmp to the body), the full form of a variadic function (every integer argument register, rax, r10, xmm0-7), that Q jumps to it and its jne/jmp reach the body; that xmm0-7 (double arguments, read and changed through regs->vec) and %al of a varargs call survive handlers that clobber them; and that a redirect target more than 2 GiB away is reached through the jump function's literal.
// REQUIRES: x86_64, dyncall-runtime, cpu-avx
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t.gcc-cet
// RUN: %t.gcc-cet %t.gcc-cet.bin %t.gcc-cet.novec %t.gcc-cet.batch %t.gcc-cet.full | FileCheck %s --check-prefixes=OUT,VIAQ
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc-cet.bin | FileCheck %s
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc-cet.novec | FileCheck %s --check-prefix=NOVEC
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc-cet.batch | FileCheck %s --check-prefix=NOVEC
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.gcc-cet.full | FileCheck %s --check-prefix=FULL
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang %t.clang.bin %t.clang.novec %t.clang.batch %t.clang.full | FileCheck %s --check-prefixes=OUT,DIRECT
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.bin | FileCheck %s
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.novec | FileCheck %s --check-prefix=NOVEC
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.batch | FileCheck %s --check-prefix=NOVEC
// RUN: objdump -D -b binary -m i386:x86-64 --insn-width=16 %t.clang.full | FileCheck %s --check-prefix=FULL
//
// CHECK:      0: f3 0f 1e fa endbr64
// CHECK-NEXT: 4: 64 83 3c 25 {{.. .. .. ..}} 00 cmpl $0x0,%fs:[[TP:0x[0-9a-f]+]]
// CHECK-NEXT: d: 0f 85 {{.. .. .. ..}} jne [[RESUME:0x[0-9a-f]+]]
// push %rbp right after the caller's call pushed the return address (one line)
// CHECK-NEXT: 13: 55 push %rbp
// CHECK-NEXT: 14: 48 89 e5 mov %rsp,%rbp
// CHECK-NEXT: 17: 64 c7 04 25 {{.. .. .. ..}} 01 00 00 00 movl $0x1,%fs:[[TP]]
// regs 64-byte aligned at 16(%rsp): arg[0..5], rax, ret fill one line
// CHECK-NEXT: 23: 48 83 e4 c0 and $0xffffffffffffffc0,%rsp
// CHECK-NEXT: 27: 48 81 ec 10 01 00 00 sub $0x110,%rsp
// add(long, long, double): its record says rdi and rsi only
// (DYNCALL_FN_REC_INT_COUNT, n = 2): not rdx .. r9, not rax (not
// variadic), not r10 (no static chain); the full form: FULL below
// CHECK-NEXT: 2e: 48 89 7c 24 10 mov %rdi,0x10(%rsp)
// CHECK-NEXT: 33: 48 89 74 24 18 mov %rsi,0x18(%rsp)
// CHECK-NEXT: 38: 48 8b 75 08 mov 0x8(%rbp),%rsi
// CHECK-NEXT: 3c: 48 89 74 24 48 mov %rsi,0x48(%rsp)
// a record (add's, and every function's built by dyncall-cc): vzeroupper
// first, so that the SSE code here and in the handlers never meets a dirty
// upper state (docs/prologues.md "The wide saves and the upper state")
// CHECK-NEXT: 41: c5 f8 77 vzeroupper
// and xmm0 only (DYNCALL_FN_REC_VEC_COUNT, n = 1); the 8-register form:
// FULL below, test/prologues/vec-args-x86_64.c
// CHECK-NEXT: 44: 0f 29 44 24 50 movaps %xmm0,0x50(%rsp)
// first handler: fn, regs->ret (already in %rsi), data, regs; a direct call
// CHECK-NEXT: 49: 48 bf {{.. .. .. .. .. .. .. ..}} movabs [[FN:\$0x[0-9a-f]+]],%rdi
// CHECK-NEXT: 53: 48 ba {{.. .. .. .. .. .. .. ..}} movabs [[DATA:\$0x[0-9a-f]+]],%rdx
// CHECK-NEXT: 5d: 48 8d 4c 24 10 lea 0x10(%rsp),%rcx
// CHECK-NEXT: 62: e8 {{.. .. .. ..}} call 0x{{[0-9a-f]+}}
// the second handler
// CHECK-NEXT: 67: 48 bf {{.. .. .. .. .. .. .. ..}} movabs [[FN]],%rdi
// CHECK-NEXT: 71: 48 8b 74 24 48 mov 0x48(%rsp),%rsi
// CHECK-NEXT: 76: 48 ba {{.. .. .. .. .. .. .. ..}} movabs [[DATA]],%rdx
// CHECK-NEXT: 80: 48 8d 4c 24 10 lea 0x10(%rsp),%rcx
// CHECK-NEXT: 85: e8 {{.. .. .. ..}} call 0x{{[0-9a-f]+}}
// the guard off, the registers back as the handlers left them, on to the body
// CHECK-NEXT: 8a: 64 c7 04 25 {{.. .. .. ..}} 00 00 00 00 movl $0x0,%fs:[[TP]]
// CHECK-NEXT: 96: 48 8b 7c 24 10 mov 0x10(%rsp),%rdi
// CHECK-NEXT: 9b: 48 8b 74 24 18 mov 0x18(%rsp),%rsi
// CHECK-NEXT: a0: 0f 28 44 24 50 movaps 0x50(%rsp),%xmm0
// CHECK-NEXT: a5: 48 89 ec mov %rbp,%rsp
// CHECK-NEXT: a8: 5d pop %rbp
// CHECK-NEXT: a9: e9 {{.. .. .. ..}} jmp [[RESUME]]
// CHECK-NOT: {{.}}
// NOVEC:      0: f3 0f 1e fa endbr64
// NOVEC-NEXT: 4: 64 83 3c 25 {{.. .. .. ..}} 00 cmpl $0x0,%fs:[[TP:0x[0-9a-f]+]]
// NOVEC-NEXT: d: 0f 85 {{.. .. .. ..}} jne [[RESUME:0x[0-9a-f]+]]
// NOVEC-NEXT: 13: 55 push %rbp
// NOVEC-NEXT: 14: 48 89 e5 mov %rsp,%rbp
// NOVEC-NEXT: 17: 64 c7 04 25 {{.. .. .. ..}} 01 00 00 00 movl $0x1,%fs:[[TP]]
// NOVEC-NEXT: 23: 48 83 e4 c0 and $0xffffffffffffffc0,%rsp
// NOVEC-NEXT: 27: 48 81 ec 10 01 00 00 sub $0x110,%rsp
// NOVEC-NEXT: 2e: 48 89 7c 24 10 mov %rdi,0x10(%rsp)
// NOVEC-NEXT: 33: 48 89 74 24 18 mov %rsi,0x18(%rsp)
// NOVEC-NEXT: 38: 48 8b 75 08 mov 0x8(%rbp),%rsi
// NOVEC-NEXT: 3c: 48 89 74 24 48 mov %rsi,0x48(%rsp)
// DYNCALL_FN_NO_VEC: no xmm0-7 saves, one handler, no xmm0-7 restores
// NOVEC-NEXT: 41: c5 f8 77 vzeroupper
// NOVEC-NEXT: 44: 48 bf {{.. .. .. .. .. .. .. ..}} movabs $0x{{[0-9a-f]+}},%rdi
// NOVEC-NEXT: 4e: 48 ba {{.. .. .. .. .. .. .. ..}} movabs $0x{{[0-9a-f]+}},%rdx
// NOVEC-NEXT: 58: 48 8d 4c 24 10 lea 0x10(%rsp),%rcx
// NOVEC-NEXT: 5d: e8 {{.. .. .. ..}} call 0x{{[0-9a-f]+}}
// NOVEC-NEXT: 62: 64 c7 04 25 {{.. .. .. ..}} 00 00 00 00 movl $0x0,%fs:[[TP]]
// NOVEC-NEXT: 6e: 48 8b 7c 24 10 mov 0x10(%rsp),%rdi
// NOVEC-NEXT: 73: 48 8b 74 24 18 mov 0x18(%rsp),%rsi
// NOVEC-NEXT: 78: 48 89 ec mov %rbp,%rsp
// NOVEC-NEXT: 7b: 5d pop %rbp
// NOVEC-NEXT: 7c: e9 {{.. .. .. ..}} jmp [[RESUME]]
// NOVEC-NOT: {{.}}
// vsum(int, ...): variadic, its record has no integer count: every
// integer argument register, rax (%al: the caller's count of vector
// registers) and r10 (the static chain) saved, and the eight xmm
// FULL:      27: 48 81 ec 10 01 00 00 sub $0x110,%rsp
// FULL-NEXT: 2e: 48 89 7c 24 10 mov %rdi,0x10(%rsp)
// FULL-NEXT: 33: 48 89 74 24 18 mov %rsi,0x18(%rsp)
// FULL-NEXT: 38: 48 89 54 24 20 mov %rdx,0x20(%rsp)
// FULL-NEXT: 3d: 48 89 4c 24 28 mov %rcx,0x28(%rsp)
// FULL-NEXT: 42: 4c 89 44 24 30 mov %r8,0x30(%rsp)
// FULL-NEXT: 47: 4c 89 4c 24 38 mov %r9,0x38(%rsp)
// FULL-NEXT: 4c: 48 89 44 24 40 mov %rax,0x40(%rsp)
// FULL-NEXT: 51: 48 8b 75 08 mov 0x8(%rbp),%rsi
// FULL-NEXT: 55: 48 89 74 24 48 mov %rsi,0x48(%rsp)
// FULL-NEXT: 5a: c5 f8 77 vzeroupper
// FULL-NEXT: 5d: 0f 29 44 24 50 movaps %xmm0,0x50(%rsp)
// FULL:      8c: 0f 29 bc 24 c0 00 00 00 movaps %xmm7,0xc0(%rsp)
// FULL-NEXT: 94: 4c 89 54 24 08 mov %r10,0x8(%rsp)
// FULL-NEXT: 99: 48 bf {{.. .. .. .. .. .. .. ..}} movabs $0x{{[0-9a-f]+}},%rdi
// FULL:      b7: 64 c7 04 25 {{.. .. .. ..}} 00 00 00 00 movl $0x0,%fs:0x{{[0-9a-f]+}}
// FULL-NEXT: c3: 48 8b 7c 24 10 mov 0x10(%rsp),%rdi
// FULL-NEXT: c8: 48 8b 74 24 18 mov 0x18(%rsp),%rsi
// FULL-NEXT: cd: 48 8b 54 24 20 mov 0x20(%rsp),%rdx
// FULL-NEXT: d2: 48 8b 4c 24 28 mov 0x28(%rsp),%rcx
// FULL-NEXT: d7: 4c 8b 44 24 30 mov 0x30(%rsp),%r8
// FULL-NEXT: dc: 4c 8b 4c 24 38 mov 0x38(%rsp),%r9
// FULL-NEXT: e1: 48 8b 44 24 40 mov 0x40(%rsp),%rax
// FULL-NEXT: e6: 4c 8b 54 24 08 mov 0x8(%rsp),%r10
// FULL-NEXT: eb: 0f 28 44 24 50 movaps 0x50(%rsp),%xmm0
// FULL:      11a: 0f 28 bc 24 c0 00 00 00 movaps 0xc0(%rsp),%xmm7
// FULL-NEXT: 122: 48 89 ec mov %rbp,%rsp
// FULL-NEXT: 125: 5d pop %rbp
// FULL-NEXT: 126: e9 {{.. .. .. ..}} jmp 0x{{[0-9a-f]+}}
// FULL-NOT: {{.}}
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

/* A double parameter (always 0 here): an int-only function would get the
 * jump function without xmm saves on its own (its __dyncall_fn_records
 * record, fn-records-x86_64.c); this one shows the full form. */
NOINLINE long add(long a, long b, double zero) { return a + b + (long)zero; }
NOINLINE double mix(double a, double b, double c, double d, double e,
		    double f, double g, double h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}
NOINLINE double vsum(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return s;
}
NOINLINE long far_src(long a) { return a; }
NOINLINE long mul(long a, long b) { return a * b; }

static long count;

/* Handlers that clobber what a C function may: every xmm, rax, r10. */
#define CLOBBER()                                                       \
	__asm__ volatile("xorps %%xmm0, %%xmm0\n\txorps %%xmm1, %%xmm1\n\t" \
			 "xorps %%xmm2, %%xmm2\n\txorps %%xmm3, %%xmm3\n\t" \
			 "xorps %%xmm4, %%xmm4\n\txorps %%xmm5, %%xmm5\n\t" \
			 "xorps %%xmm6, %%xmm6\n\txorps %%xmm7, %%xmm7\n\t" \
			 "xor %%eax, %%eax\n\tmov $-1, %%r10"               \
			 :                                                  \
			 :                                                  \
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
			   "xmm6", "xmm7", "rax", "r10")

static void h1(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	CLOBBER();
	++*(long *)data;
	(void)fn, (void)ret, (void)r;
}

static double seen_a;

static void h2(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	CLOBBER();
	++*(long *)data;
	if (fn == (void *)mix) {
		double b;

		memcpy(&seen_a, &r->vec[0][0], 8);
		memcpy(&b, &r->vec[1][0], 8);
		b += 1; /* mix's second argument, changed */
		memcpy(&r->vec[1][0], &b, 8);
	}
	(void)ret;
}

/* The jump function Q leads to: Q = f - 8 holds 90 90 90 e9 <rel32>
 * (volatile: the runtime rewrites it between two calls of this). */
static const uint8_t *jump_function(void *f)
{
	const volatile uint8_t *q = (const volatile uint8_t *)f - 8;
	uint32_t rel = 0;

	if (q[3] != 0xe9)
		return NULL;
	for (int i = 3; i >= 0; i--)
		rel = rel << 8 | q[4 + i];
	return (const uint8_t *)q + 8 + (int32_t)rel;
}

static uintptr_t rel32_target(const uint8_t *insn, int len)
{
	int32_t rel;

	memcpy(&rel, insn + len - 4, 4);
	return (uintptr_t)insn + len + rel;
}

/* Where the entry jumps. */
static const char *describe(void *f, const void *to, const char *name)
{
	const uint8_t *p = (const uint8_t *)f;

	if (p[0] == 0xf3)
		p += 4; /* endbr64 */
	if (p[0] == 0xeb && p + 2 + (int8_t)p[1] == (const uint8_t *)f - 5)
		return "jmp f-5";
	if (p[0] == 0xe9 && rel32_target(p, 5) == (uintptr_t)to)
		return name;
	if (p[0] == 0xe9)
		return "jmp elsewhere";
	return "no jump";
}

/* A function more than 2 GiB from the jump functions: endbr64; lea
 * 100(%rdi), %rax; ret */
static long (*far_code(void))(long)
{
	static const uint8_t code[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8d,
					0x47, 0x64, 0xc3 };
	uintptr_t base = (uintptr_t)add & ~(uintptr_t)0xfff;

	for (uintptr_t gib = 8; gib < 64; gib += 4) {
		uintptr_t want = base + (gib << 30);
		void *p = mmap((void *)want, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (p == MAP_FAILED)
			continue;
		if ((uintptr_t)p != want) {
			munmap(p, 4096);
			continue;
		}
		memcpy(p, code, sizeof(code));
		if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
			return NULL;
		return (long (*)(long))p;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long (*volatile padd)(long, long, double) = add;
	double (*volatile pmix)(double, double, double, double, double, double,
				double, double) = mix;
	double (*volatile pvsum)(int, ...) = vsum;
	long (*volatile pfar)(long) = far_src;
	long (*volatile pmul)(long, long) = mul;
	const uint8_t *jf, *entry = (const uint8_t *)add;
	FILE *out;

	if (argc < 5)
		return 2;
	// OUT: hook: 0 0
	printf("hook: %d %d\n", dyncall_fn_hook(add, h1, &count),
	       dyncall_fn_hook(add, h2, &count));
	jf = jump_function(add);
	if (!jf)
		return 1;
	if (entry[0] == 0xf3)
		entry += 4; /* endbr64 */
	// OUT-NEXT: jne resumes the body: 1, jmp resumes the body: 1
	printf("jne resumes the body: %d, jmp resumes the body: %d\n",
	       rel32_target(jf + 0xd, 6) == (uintptr_t)entry + 5,
	       rel32_target(jf + 0xa9, 5) == (uintptr_t)entry + 5);
	/* GCC with endbr64: the entry jumps to Q (f-5), which jumps to jf;
	 * Clang without: the entry jumps to jf itself */
	// VIAQ-NEXT:   entry: jmp f-5
	// DIRECT-NEXT: entry: jmp jf
	printf("entry: %s\n", describe(add, jf, "jmp jf"));
	out = fopen(argv[1], "wb");
	if (!out || fwrite(jf, 1, 0xae, out) != 0xae || fclose(out))
		return 1;
	// OUT-NEXT: add: 5 count 2
	// OUT-NEXT: no vec: -1 0 0
	printf("add: %ld", padd(2, 3, 0.0));
	printf(" count %ld\n", count);

	/* DYNCALL_FN_NO_VEC: no xmm saves (h1 clobbers xmm0, add's 0.0: it
	 * receives the 0 h1 leaves there) */
	printf("no vec: %d", dyncall_fn_hook_flags(add, h1, &count, 2));
	printf(" %d", dyncall_fn_restore(add));
	printf(" %d\n", dyncall_fn_hook_flags(add, h1, &count,
					    DYNCALL_FN_NO_VEC));
	jf = jump_function(add);
	out = jf ? fopen(argv[2], "wb") : NULL;
	if (!out || fwrite(jf, 1, 0x81, out) != 0x81 || fclose(out))
		return 1;
	// OUT-NEXT: add: 5 count 3
	printf("add: %ld", padd(2, 3, 0.0));
	printf(" count %ld\n", count);

	/* the batch form of DYNCALL_FN_NO_VEC: the same jump function (the
	 * third dump, checked with NOVEC); an unknown flag refused */
	void *batch[2] = { (void *)mul, (void *)far_src };
	// OUT-NEXT: batch no vec: -1 0 -> 6 count 4
	printf("batch no vec: %d",
	       dyncall_fn_hook_batch_flags(batch, 2, h1, &count, 2));
	printf(" %d", dyncall_fn_hook_batch_flags(batch, 2, h1, &count,
						 DYNCALL_FN_NO_VEC));
	jf = jump_function(mul);
	out = jf ? fopen(argv[3], "wb") : NULL;
	if (!out || fwrite(jf, 1, 0x81, out) != 0x81 || fclose(out))
		return 1;
	printf(" -> %ld", pmul(2, 3));
	printf(" count %ld\n", count);
	dyncall_fn_restore_batch(batch, 2);

	/* doubles in xmm0-7, read and changed by h2 */
	count = 0;
	dyncall_fn_hook(mix, h1, &count);
	dyncall_fn_hook(mix, h2, &count);
	// OUT-NEXT: mix: 206 a 1 count 2
	printf("mix: %g", pmix(1, 2, 3, 4, 5, 6, 7, 8));
	printf(" a %g count %ld\n", seen_a, count);

	/* %al: the number of vector registers of a varargs call */
	dyncall_fn_hook(vsum, h1, &count);
	// OUT-NEXT: vsum: 10.5
	printf("vsum: %g\n", pvsum(3, 1.5, 4.0, 5.0));
	jf = jump_function(vsum);
	out = jf ? fopen(argv[4], "wb") : NULL;
	if (!out || fwrite(jf, 1, 0x12b, out) != 0x12b || fclose(out))
		return 1;

	/* a redirect target more than 2 GiB away, with a handler */
	long (*far)(long) = far_code();
	if (!far)
		return 1;
	count = 0;
	// OUT-NEXT: far: 0 0 -> 107 count 1
	printf("far: %d %d", dyncall_fn_redirect(far_src, (void *)far),
	       dyncall_fn_hook(far_src, h1, &count));
	printf(" -> %ld", pfar(7));
	printf(" count %ld\n", count);
	/* a near redirect: the direct entry jumps to the target itself */
	// OUT-NEXT:    redirect: 0 -> 10
	// VIAQ-NEXT:   entry: jmp f-5
	// DIRECT-NEXT: entry: jmp target
	dyncall_fn_restore(add);
	printf("redirect: %d", dyncall_fn_redirect(add, (void *)mul));
	printf(" -> %ld\n", padd(2, 5, 0.0));
	printf("entry: %s\n", describe(add, mul, "jmp target"));
	// OUT-NEXT: restored: 0 0 0 0 -> 5 7
	printf("restored: %d", dyncall_fn_restore(add));
	printf(" %d", dyncall_fn_restore(mix));
	printf(" %d", dyncall_fn_restore(vsum));
	printf(" %d", dyncall_fn_restore(far_src));
	printf(" -> %ld", padd(2, 3, 0.0));
	printf(" %ld\n", pfar(7));
	return 0;
}
