// Checks hooks and redirects on patchable prologues (x86-64: GCC 12, GCC 11 and Clang, with and without endbr64; aarch64 under qemu: GCC and Clang, with and without BTI, the BTI builds in a BTI-enforcing process; ppc64le under qemu: GCC with the plugin's entry NOP, Clang with its XRay entry sleds): a thread resuming between GCC's one-byte entry NOPs after the entry was patched still runs the body (x86-64: f9 = stc); handlers see and change the arguments, run in order, skip while a handler runs, redirects reach the target, dyncall_fn_original reaches the body, restore and unhook put the NOPs back, names resolve.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 ones when qemu and the cross runtime and GCC plugin are there)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s --check-prefixes=CHECK,X86_64,DIRECT
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t.gcc-cet
// RUN: %t.gcc-cet | FileCheck %s --check-prefixes=CHECK,X86_64,TWOJUMP
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 %s -o %t.gcc11 %}
// RUN: %if gcc11-plugin %{ %t.gcc11 | FileCheck %s --check-prefixes=CHECK,X86_64,DIRECT %}
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -fcf-protection=full -O2 %s -o %t.gcc11-cet %}
// RUN: %if gcc11-plugin %{ %t.gcc11-cet | FileCheck %s --check-prefixes=CHECK,X86_64,TWOJUMP %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s --check-prefixes=CHECK,X86_64,DIRECT
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 %s -o %t.clang-cet
// RUN: %t.clang-cet | FileCheck %s --check-prefixes=CHECK,X86_64,TWOJUMP
// GCC without the dyncall plugin: its five one-byte entry NOPs (the plugin
// prints one 5-byte NOP, Clang's shape), patched by their first two bytes
// RUN: gcc-12 -O2 -fpatchable-function-entry=29,24 -falign-functions=8 -I%src_root/include %s -o %t.gcc-plain %libdyncall_ldflags
// RUN: %t.gcc-plain | FileCheck %s --check-prefixes=CHECK,X86_64,TWOJUMP,MIDNOP
// RUN: %if gcc11-plugin %{ gcc-11 -O2 -fpatchable-function-entry=29,24 -falign-functions=8 -I%src_root/include %s -o %t.gcc11-plain %libdyncall_ldflags %}
// RUN: %if gcc11-plugin %{ %t.gcc11-plain | FileCheck %s --check-prefixes=CHECK,X86_64,TWOJUMP,MIDNOP %}
// aarch64: the BTI builds link with lld and the BTI-marked start files of
// test/arch/Inputs/bti_start.S (Debian's have no landing pads) so that the
// process is BTI-enforcing (qemu's default CPU has BTI).
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.a64-gcc %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 %s -o %t.a64-clang %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64-clang | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 && lld %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -mbranch-protection=standard -O2 -c %s -o %t.a64-gcc-bti.o %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 && lld %{ %dyncall_cc %clang --target=aarch64-linux-gnu -fuse-ld=lld --dyncall-static-runtime %t.a64-gcc-bti.o %S/../arch/Inputs/bti_start.S -nostartfiles -Wl,-z,force-bti -o %t.a64-gcc-bti 2>/dev/null %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 && lld %{ llvm-readelf -n %t.a64-gcc-bti | FileCheck %s --check-prefix=BTI %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 && lld %{ %qemu_aarch64 %t.a64-gcc-bti | FileCheck %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && lld %{ %dyncall_cc %clang --target=aarch64-linux-gnu -fuse-ld=lld --dyncall-prologues --dyncall-static-runtime -mbranch-protection=standard -mno-outline-atomics -O2 %s %S/../arch/Inputs/bti_start.S -nostartfiles -Wl,-z,force-bti -o %t.a64-clang-bti 2>/dev/null %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && lld %{ llvm-readelf -n %t.a64-clang-bti | FileCheck %s --check-prefix=BTI %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && lld %{ %qemu_aarch64 %t.a64-clang-bti | FileCheck %s %}
// BTI: {{[Aa]}}arch64 feature: BTI
// ppc64le: GCC with the dyncall plugin's entry NOP
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.ppc-gcc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc-gcc | FileCheck %s %}
// ppc64le with Clang: its XRay entry sleds (the sled's first word is the entry)
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -o %t.ppc-clang %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang | FileCheck %s %}
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE long parse(long a, long b) { return a * 10 + b; }
NOINLINE long parse_v2(long a, long b)
{
	long (*orig)(long, long) = (long (*)(long, long))dyncall_fn_original(parse);

	return 1000 + orig(a, b);
}
NOINLINE long other(long a) { return a + 1; }
NOINLINE long ident(long a) { return a; }
NOINLINE double twice(double x) { return 2 * x; }

static long seen_a, seen_b, order[8];
static int norder;

/* Writes 99.0 over the saved first floating-point argument (an integer
 * store: the handler itself touches no FP register).  With the vector
 * saves the function sees 99; with DYNCALL_FN_NO_VEC the saves are left
 * out and writing the slot has no effect (dyncall.h). */
static void set_fp(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	uint64_t bits = 0x4058c00000000000ull; /* 99.0 */

#if defined(__powerpc64__)
	memcpy(&r->fpr[0], &bits, 8); /* f1 */
#else
	memcpy(&r->vec[0][0], &bits, 8); /* xmm0, q0 */
#endif
	(void)fn, (void)ret, (void)data;
}

static void spy(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	seen_a = (long)r->arg[0];
	seen_b = (long)r->arg[1];
	++*(long *)data;
	order[norder++] = 1;
	(void)fn, (void)ret;
}

static void second(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	order[norder++] = 2;
	r->arg[1] = 7; /* parse sees b = 7 */
	/* a hooked function called from a handler runs without handlers */
	order[norder++] = (long)parse(0, 0) + 100;
	(void)fn, (void)ret, (void)data;
}

int main(void)
{
	long count = 0;
	long (*volatile p)(long, long) = parse;
	long (*volatile o)(long) = other;
	struct dyncall_fn_info info;

	// CHECK: find: 1 1 0
	printf("find: %d %d %d\n", dyncall_fn_find("parse") == (void *)parse,
	       dyncall_fn_find("other") == (void *)other,
	       dyncall_fn_find("no_such_function") != NULL);
	// CHECK-NEXT: plain: 12 status 0
	printf("plain: %ld status %d\n", p(1, 2),
	       dyncall_fn_info(parse, &info));
	// CHECK-NEXT: hook: 0 -> 34 count 1 saw 3 4
	int s = dyncall_fn_hook(parse, spy, &count);
	long v = p(3, 4);
	printf("hook: %d -> %ld count %ld saw %ld %ld\n", s, v, count, seen_a,
	       seen_b);
	// CHECK-NEXT: twice: -1
	printf("twice: %d\n", dyncall_fn_hook(parse, spy, &count));
	// CHECK-NEXT: two: 0 -> 57 order 1 2 100 count 2
	s = dyncall_fn_hook(parse, second, NULL);
	norder = 0;
	v = p(5, 6);
	printf("two: %d -> %ld order %ld %ld %ld count %ld\n", s, v, order[0],
	       order[1], order[2], count);
	// CHECK-NEXT: info: parse 2 patched 1
	dyncall_fn_info(parse, &info);
	printf("info: %s %u patched %d\n", info.name, info.nhandlers,
	       info.patched);
	// CHECK-NEXT: unhook: 0 -> 56 count 3
	s = dyncall_fn_unhook(parse, second);
	v = p(5, 6);
	printf("unhook: %d -> %ld count %ld\n", s, v, count);
	// CHECK-NEXT: unhook again: -14
	printf("unhook again: %d\n", dyncall_fn_unhook(parse, second));
	// CHECK-NEXT: redirect+hook: 0 -> 1012 count 4
	s = dyncall_fn_redirect(parse, parse_v2);
	v = p(1, 2);
	printf("redirect+hook: %d -> %ld count %ld\n", s, v, count);
	// CHECK-NEXT: redirect: 0 -> 1023 count 4
	s = dyncall_fn_unhook(parse, spy);
	v = p(2, 3);
	printf("redirect: %d -> %ld count %ld\n", s, v, count);
	// CHECK-NEXT: other untouched: 42
	printf("other untouched: %ld\n", o(41));
	// CHECK-NEXT: restore: 0 -> 12 patched 0
	s = dyncall_fn_restore(parse);
	v = p(1, 2);
	dyncall_fn_info(parse, &info);
	printf("restore: %d -> %ld patched %d\n", s, v, info.patched);
	// CHECK-NEXT: not a function: -13 -1
	printf("not a function: %d %d\n", dyncall_fn_hook((char *)parse + 1, spy, NULL),
	       dyncall_fn_hook(NULL, spy, NULL));
	// CHECK-NEXT: redirect other: 0 -> 9
	s = dyncall_fn_redirect(other, ident);
	printf("redirect other: %d -> %ld\n", s, o(9));
#if defined(__x86_64__)
	/* x86-64, a target in reach: the entry jumps to other-5, a direct jmp
	 * to it (the last five bytes of the aligned quadword Q before the
	 * function) */
	const volatile unsigned char *q =
		(const volatile unsigned char *)other - 5;
	int rel;
	memcpy(&rel, (const void *)(q + 1), 4);
	// X86_64-NEXT: near: e9 to ident
	printf("near: %02x %s\n", q[0],
	       (const unsigned char *)q + 5 + rel == (const unsigned char *)ident ? "to ident" :
							      "elsewhere");
	/* a target out of rel32 reach (code mapped > 4 GiB away): the
	 * quadword jumps to the indirect jmp through the slot instead */
	static const unsigned char add2[] = {
		0xf3, 0x0f, 0x1e, 0xfa, /* endbr64 */
		0x48, 0x8d, 0x47, 0x02, /* lea 2(%rdi), %rax */
		0xc3                    /* ret */
	};
	unsigned char *far = MAP_FAILED;
	for (long gib = 8; gib < 64 && far == MAP_FAILED; gib += 8)
		far = mmap((char *)((uintptr_t)other & ~4095UL) + (gib << 30),
			   4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			   -1, 0);
	if (far != MAP_FAILED) {
		memcpy(far, add2, sizeof(add2));
		mprotect(far, 4096, PROT_READ | PROT_EXEC);
	}
	s = far == MAP_FAILED ? -1 : dyncall_fn_redirect(other, far);
	// X86_64-NEXT: far: 0 -> 11 via eb: yes
	printf("far: %d -> %ld via %02x: %s\n", s, o(9), q[0],
	       far - (unsigned char *)other > (4L << 30) ? "yes" : "no");
	s = dyncall_fn_redirect(other, ident);
	// X86_64-NEXT: near again: 0 -> 9 e9
	printf("near again: %d -> %ld %02x\n", s, o(9), q[0]);
	/* the entry: one 5-byte NOP with no endbr64 before it (Clang; GCC
	 * with the dyncall plugin) is itself `jmp ident` (direct entry);
	 * after endbr64, or GCC's five one-byte NOPs, `jmp other-5` */
	const volatile unsigned char *en = (const volatile unsigned char *)other;
	if (en[0] == 0xf3)
		en += 4; /* endbr64 */
	// DIRECT-NEXT: entry: e9
	// TWOJUMP-NEXT: entry: eb
	printf("entry: %02x\n", en[0]);
#endif
	/* GCC's five one-byte NOPs: a thread preempted after the first one
	 * resumes at P+1 once the entry is `eb f9`: it must decode `f9`
	 * (stc), then NOPs, then the body.  Simulated by calling P+1. */
	const volatile unsigned char *e = (const volatile unsigned char *)parse;
	if (e[0] == 0x90 && e[1] == 0x90 && e[4] == 0x90) {
		s = dyncall_fn_hook(parse, spy, &count);
		long (*mid)(long, long) = (long (*)(long, long))((const char *)parse + 1);
		// MIDNOP-NEXT: mid-nop resume: 0 eb f9 -> 34 count 4
		v = mid(3, 4);
		printf("mid-nop resume: %d %02x %02x -> %ld count %ld\n", s, e[0],
		       e[1], v, count);
		dyncall_fn_restore(parse);
	}
	/* DYNCALL_FN_NO_VEC (parse takes no vector argument): the vector
	 * (and on ppc64le floating-point) register saves are left out;
	 * handlers still see and change the arguments, and the guard still
	 * holds (second calls parse) */
	// CHECK-NEXT: no vec: -1 0 0 -> 57 order 1 2 100 count 1 saw 5 6
	dyncall_fn_restore(parse);
	count = 0;
	norder = 0;
	s = dyncall_fn_hook_flags(parse, spy, &count, 4);
	int s2 = dyncall_fn_hook_flags(parse, spy, &count, DYNCALL_FN_NO_VEC);
	int s3 = dyncall_fn_hook_flags(parse, second, NULL, DYNCALL_FN_NO_VEC);
	v = p(5, 6);
	printf("no vec: %d %d %d -> %ld order %ld %ld %ld count %ld saw %ld %ld\n",
	       s, s2, s3, v, order[0], order[1], order[2], count, seen_a,
	       seen_b);
	dyncall_fn_restore(parse);
	/* the floating-point/vector argument registers: saved (a handler's
	 * write reaches the function) unless every handler was hooked with
	 * DYNCALL_FN_NO_VEC (x86-64, aarch64, ppc64le alike) */
	double (*volatile pt)(double) = twice;
	// CHECK-NEXT: fp saves: 0 -> 198; no vec: 0 -> 3
	printf("fp saves: %d", dyncall_fn_hook(twice, set_fp, NULL));
	printf(" -> %g", pt(1.5));
	dyncall_fn_restore(twice);
	printf("; no vec: %d",
	       dyncall_fn_hook_flags(twice, set_fp, NULL, DYNCALL_FN_NO_VEC));
	printf(" -> %g\n", pt(1.5));
	dyncall_fn_restore(twice);
	// CHECK-NEXT: status: ok
	printf("status: %s\n", dyncall_status_string());
	return 0;
}
