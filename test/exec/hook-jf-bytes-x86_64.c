// Checks the bytes of the x86-64 hook-list jump functions (runtime/arch/x86_64_hooks.c, docs/hooks.md) for each kind of signature: one int (rdi kept in rbx, the last handler tail-called; with 3 and 8 handlers the layout: a 64-aligned entry, at most two calls ending in a 32-byte block, NOPs before the code of the next handler), six ints and doubles (every integer argument register in a callee-saved one, xmm0..7 saved in the frame and reloaded before each later call), stack arguments (copied for every handler but the last, which gets the caller's), a large stack area (rep movsq), the data variant (movabs $data, %rdi before each call; one handler: movabs + jmp).  Each jump function is also disassembled (llvm-objdump) for a readable check.
// REQUIRES: x86_64, dyncall-runtime
// RUN: %clang -O1 %libdyncall_cflags %s -o %t %libdyncall_ldflags
// RUN: %t %t.dir > %t.out
// RUN: FileCheck %s < %t.out
// RUN: objdump -D -b binary -m i386:x86-64 --no-show-raw-insn %t.dir/bigstack.bin %t.dir/data1.bin %t.dir/data2.bin %t.dir/eight.bin %t.dir/one2.bin %t.dir/one3.bin %t.dir/regs.bin %t.dir/stack.bin > %t.dis
// RUN: FileCheck %s --check-prefix=DIS < %t.dis
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dyncall.h>

#if defined(__aarch64__)
/* (over 16 bytes: refused, passed by reference; this list's code is not
 * checked there) */
typedef long double big_t;
#else
typedef struct {
	long v[8];
} big_t;
#endif

DYNCALL_HOOKS(one, void, int);
DYNCALL_HOOKS(eight, void, long);
DYNCALL_HOOKS(regs, void, long, long, long, long, long, long, double, double,
	      double, double, double, double, double, double);
DYNCALL_HOOKS(stack, void, long, long, long, long, long, long, long, long);
DYNCALL_HOOKS(bigstack, void, int, big_t, big_t);
DYNCALL_HOOKS_DATA(data, void, int);

#define H(n, ...) __attribute__((noinline)) void n(__VA_ARGS__) { __asm__ volatile(""); }
H(o1, int x) H(o2, int x) H(o3, int x)
H(e0, long x) H(e1, long x) H(e2, long x) H(e3, long x)
H(e4, long x) H(e5, long x) H(e6, long x) H(e7, long x)
H(r1, long a, long b, long c, long d, long e, long f, double g, double h,
  double i, double j, double k, double l, double m, double n)
H(r2, long a, long b, long c, long d, long e, long f, double g, double h,
  double i, double j, double k, double l, double m, double n)
H(s1, long a, long b, long c, long d, long e, long f, long g, long h)
H(s2, long a, long b, long c, long d, long e, long f, long g, long h)
H(b1, int a, big_t b, big_t c) H(b2, int a, big_t b, big_t c)
H(d1, void *p, int x) H(d2, void *p, int x)

#if defined(__x86_64__)
#define FILL "\xcc\xcc\xcc\xcc" /* int3 */
#define STEP 1
#else
#define FILL "\0\0\0\0" /* udf #0 (aarch64), the zero word (ppc64le) */
#define STEP 4
#endif

static const char *dir;

/* The jump function's bytes up to the trap fill (0xcc x 4), rel32 and
 * imm64 fields as they are: FileCheck matches them with regexes. */
static void dump(const char *name, const void *jf)
{
	const unsigned char *p = jf;
	char path[4096];
	size_t n = 0;
	FILE *f;

	while (n < 1024 && memcmp(p + n, FILL, 4))
		n += STEP;
	/* x86-64: each jump function starts a cache line */
	printf("%s: %s:", name,
	       (uintptr_t)jf % (STEP == 1 ? 64 : 4) ? "unaligned" : "aligned");
	for (size_t i = 0; i < n; i++)
		printf(" %02x", p[i]);
	printf("\n");
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static int ctx1, ctx2;

	dir = argc > 1 ? argv[1] : ".";
	mkdir(dir, 0755);
	dyncall_hooks_add(one, o1);
	dyncall_hooks_add(one, o2);
	dump("one2", (void *)one);
	dyncall_hooks_add(one, o3);
	dump("one3", (void *)one);
	{
		void (*const e[8])(long) = { e0, e1, e2, e3, e4, e5, e6, e7 };

		for (int i = 0; i < 8; i++)
			dyncall_hooks_add(eight, e[i]);
		dump("eight", (void *)eight);
	}
	dyncall_hooks_add(regs, r1);
	dyncall_hooks_add(regs, r2);
	dump("regs", (void *)regs);
	dyncall_hooks_add(stack, s1);
	dyncall_hooks_add(stack, s2);
	dump("stack", (void *)stack);
	dyncall_hooks_add(bigstack, b1);
	dyncall_hooks_add(bigstack, b2);
	dump("bigstack", (void *)bigstack);
	dyncall_hooks_add_data(data, d1, &ctx1);
	dump("data1", (void *)data);
	dyncall_hooks_add_data(data, d2, &ctx2);
	dump("data2", (void *)data);
	return 0;
}

// The bytes: endbr64, push %rbx, mov %rdi,%rbx, call rel32, mov %rbx,%rdi, pop %rbx, jmp rel32.
// Every jump function starts a 64-byte line (ARCH_HOOKS_JF_ALIGN).
// CHECK-NOT: unaligned
// CHECK: one2: aligned: f3 0f 1e fa 53 48 89 fb e8 {{.. .. .. .. }}48 89 df 5b e9 {{.. .. .. ..}}{{$}}
// Data, one handler: endbr64, movabs $data,%rdi, jmp rel32.
// CHECK: data1: aligned: f3 0f 1e fa 48 bf {{.. .. .. .. .. .. .. .. }}e9 {{.. .. .. ..}}{{$}}

// DIS-LABEL: bigstack.bin:
// DIS: endbr64
// DIS-NEXT: push{{ +}}%rbx
// DIS-NEXT: sub{{ +}}$0x90,%rsp
// DIS-NEXT: mov{{ +}}%rdi,%rbx
// DIS-NEXT: lea{{ +}}0xa0(%rsp),%rsi
// DIS-NEXT: mov{{ +}}%rsp,%rdi
// DIS-NEXT: mov{{ +}}$0x11,%ecx
// DIS-NEXT: rep movsq %ds:(%rsi),%es:(%rdi)
// DIS-NEXT: mov{{ +}}%rbx,%rdi
// DIS-NEXT: call {{.*}}
// DIS-NEXT: mov{{ +}}%rbx,%rdi
// DIS-NEXT: add{{ +}}$0x90,%rsp
// DIS-NEXT: pop{{ +}}%rbx
// DIS-NEXT: jmp {{.*}}
// DIS-LABEL: data1.bin:
// DIS: endbr64
// DIS-NEXT: movabs ${{.*}},%rdi
// DIS-NEXT: jmp {{.*}}
// DIS-LABEL: data2.bin:
// DIS: endbr64
// DIS-NEXT: push{{ +}}%rbp
// DIS-NEXT: mov{{ +}}%rsi,%rbp
// DIS-NEXT: movabs ${{.*}},%rdi
// DIS-NEXT: call {{.*}}
// DIS-NEXT: mov{{ +}}%rbp,%rsi
// DIS-NEXT: movabs ${{.*}},%rdi
// DIS-NEXT: pop{{ +}}%rbp
// DIS-NEXT: jmp {{.*}}
// Eight handlers: at most two calls (or the tail jump) end in one 32-byte
// block; the code of the next handler starts the next block, behind NOPs
// (x86_64_hooks.c "Layout").  The offsets are from the 64-aligned entry.
// DIS-LABEL: eight.bin:
// DIS:       0: endbr64
// DIS-NEXT:  4: push{{ +}}%rbx
// DIS-NEXT:  5: mov{{ +}}%rdi,%rbx
// DIS-NEXT:  8: call
// DIS-NEXT:  d: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 10: call
// DIS-NEXT: 15: data16 cs nopw 0x0(%rax,%rax,1)
// DIS-NEXT: 20: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 23: call
// DIS-NEXT: 28: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 2b: call
// DIS-NEXT: 30: data16 cs nopw 0x0(%rax,%rax,1)
// DIS-NEXT: 3b: nopl 0x0(%rax,%rax,1)
// DIS-NEXT: 40: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 43: call
// DIS-NEXT: 48: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 4b: call
// DIS-NEXT: 50: data16 cs nopw 0x0(%rax,%rax,1)
// DIS-NEXT: 5b: nopl 0x0(%rax,%rax,1)
// DIS-NEXT: 60: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 63: call
// DIS-NEXT: 68: mov{{ +}}%rbx,%rdi
// DIS-NEXT: 6b: pop{{ +}}%rbx
// DIS-NEXT: 6c: jmp
// DIS-LABEL: one2.bin:
// DIS: endbr64
// DIS-NEXT: push{{ +}}%rbx
// DIS-NEXT: mov{{ +}}%rdi,%rbx
// DIS-NEXT: call {{.*}}
// DIS-NEXT: mov{{ +}}%rbx,%rdi
// DIS-NEXT: pop{{ +}}%rbx
// DIS-NEXT: jmp {{.*}}
// DIS-LABEL: one3.bin:
// DIS: endbr64
// DIS-NEXT: push{{ +}}%rbx
// DIS-NEXT: mov{{ +}}%rdi,%rbx
// DIS-NEXT: call {{.*}}
// DIS-NEXT: mov{{ +}}%rbx,%rdi
// DIS-NEXT: call {{.*}}
// DIS-NEXT: 15: data16 cs nopw 0x0(%rax,%rax,1)
// DIS-NEXT: 20: mov{{ +}}%rbx,%rdi
// DIS-NEXT: pop{{ +}}%rbx
// DIS-NEXT: jmp {{.*}}
// DIS-LABEL: regs.bin:
// DIS: endbr64
// DIS-NEXT: push{{ +}}%rbx
// DIS-NEXT: push{{ +}}%rbp
// DIS-NEXT: push{{ +}}%r12
// DIS-NEXT: push{{ +}}%r13
// DIS-NEXT: push{{ +}}%r14
// DIS-NEXT: push{{ +}}%r15
// DIS-NEXT: sub{{ +}}$0x88,%rsp
// DIS-NEXT: movaps %xmm0,0x0(%rsp)
// DIS-NEXT: movaps %xmm1,0x10(%rsp)
// DIS-NEXT: movaps %xmm2,0x20(%rsp)
// DIS-NEXT: movaps %xmm3,0x30(%rsp)
// DIS-NEXT: movaps %xmm4,0x40(%rsp)
// DIS-NEXT: movaps %xmm5,0x50(%rsp)
// DIS-NEXT: movaps %xmm6,0x60(%rsp)
// DIS-NEXT: movaps %xmm7,0x70(%rsp)
// DIS-NEXT: mov{{ +}}%rdi,%rbx
// DIS-NEXT: mov{{ +}}%rsi,%rbp
// DIS-NEXT: mov{{ +}}%rdx,%r12
// DIS-NEXT: mov{{ +}}%rcx,%r13
// DIS-NEXT: mov{{ +}}%r8,%r14
// DIS-NEXT: mov{{ +}}%r9,%r15
// DIS-NEXT: call {{.*}}
// DIS-NEXT: mov{{ +}}%rbx,%rdi
// DIS-NEXT: mov{{ +}}%rbp,%rsi
// DIS-NEXT: mov{{ +}}%r12,%rdx
// DIS-NEXT: mov{{ +}}%r13,%rcx
// DIS-NEXT: mov{{ +}}%r14,%r8
// DIS-NEXT: mov{{ +}}%r15,%r9
// DIS-NEXT: movaps 0x0(%rsp),%xmm0
// DIS-NEXT: movaps 0x10(%rsp),%xmm1
// DIS-NEXT: movaps 0x20(%rsp),%xmm2
// DIS-NEXT: movaps 0x30(%rsp),%xmm3
// DIS-NEXT: movaps 0x40(%rsp),%xmm4
// DIS-NEXT: movaps 0x50(%rsp),%xmm5
// DIS-NEXT: movaps 0x60(%rsp),%xmm6
// DIS-NEXT: movaps 0x70(%rsp),%xmm7
// DIS-NEXT: add{{ +}}$0x88,%rsp
// DIS-NEXT: pop{{ +}}%r15
// DIS-NEXT: pop{{ +}}%r14
// DIS-NEXT: pop{{ +}}%r13
// DIS-NEXT: pop{{ +}}%r12
// DIS-NEXT: pop{{ +}}%rbp
// DIS-NEXT: pop{{ +}}%rbx
// DIS-NEXT: jmp {{.*}}
// DIS-LABEL: stack.bin:
// DIS: endbr64
// DIS-NEXT: push{{ +}}%rbx
// DIS-NEXT: push{{ +}}%rbp
// DIS-NEXT: push{{ +}}%r12
// DIS-NEXT: push{{ +}}%r13
// DIS-NEXT: push{{ +}}%r14
// DIS-NEXT: push{{ +}}%r15
// DIS-NEXT: sub{{ +}}$0x48,%rsp
// DIS-NEXT: mov{{ +}}%rdi,%rbx
// DIS-NEXT: mov{{ +}}%rsi,%rbp
// DIS-NEXT: mov{{ +}}%rdx,%r12
// DIS-NEXT: mov{{ +}}%rcx,%r13
// DIS-NEXT: mov{{ +}}%r8,%r14
// DIS-NEXT: mov{{ +}}%r9,%r15
// DIS-NEXT: mov{{ +}}0x80(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x0(%rsp)
// DIS-NEXT: mov{{ +}}0x88(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x8(%rsp)
// DIS-NEXT: mov{{ +}}0x90(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x10(%rsp)
// DIS-NEXT: mov{{ +}}0x98(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x18(%rsp)
// DIS-NEXT: mov{{ +}}0xa0(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x20(%rsp)
// DIS-NEXT: mov{{ +}}0xa8(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x28(%rsp)
// DIS-NEXT: mov{{ +}}0xb0(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x30(%rsp)
// DIS-NEXT: mov{{ +}}0xb8(%rsp),%rax
// DIS-NEXT: mov{{ +}}%rax,0x38(%rsp)
// DIS-NEXT: call {{.*}}
// DIS-NEXT: mov{{ +}}%rbx,%rdi
// DIS-NEXT: mov{{ +}}%rbp,%rsi
// DIS-NEXT: mov{{ +}}%r12,%rdx
// DIS-NEXT: mov{{ +}}%r13,%rcx
// DIS-NEXT: mov{{ +}}%r14,%r8
// DIS-NEXT: mov{{ +}}%r15,%r9
// DIS-NEXT: add{{ +}}$0x48,%rsp
// DIS-NEXT: pop{{ +}}%r15
// DIS-NEXT: pop{{ +}}%r14
// DIS-NEXT: pop{{ +}}%r13
// DIS-NEXT: pop{{ +}}%r12
// DIS-NEXT: pop{{ +}}%rbp
// DIS-NEXT: pop{{ +}}%rbx
// DIS-NEXT: jmp {{.*}}
