// Checks hooks and redirects on patchable prologues (x86-64: GCC and Clang, with and without endbr64; aarch64 under qemu: GCC and Clang, with and without BTI, the BTI builds in a BTI-enforcing process; ppc64le under qemu: GCC with the plugin's entry NOP): a thread resuming between GCC's one-byte entry NOPs after the entry was patched still runs the body (x86-64: f3 90 = pause); handlers see and change the arguments, run in order, skip while a handler runs, redirects reach the target, dyncall_fn_original reaches the body, restore and unhook put the NOPs back, names resolve.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 ones when qemu and the cross runtime and GCC plugin are there)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s --check-prefixes=CHECK,MIDNOP
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t.gcc-cet
// RUN: %t.gcc-cet | FileCheck %s
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 %s -o %t.clang-cet
// RUN: %t.clang-cet | FileCheck %s
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
// ppc64le: GCC with the dyncall plugin's entry NOP (Clang: not supported there)
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.ppc-gcc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc-gcc | FileCheck %s %}
#include <stdio.h>
#include <string.h>

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

static long seen_a, seen_b, order[8];
static int norder;

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
	/* GCC's five one-byte NOPs: a thread preempted after the first one
	 * resumes at P+1 once the entry is `eb f3`: it must decode `f3 90`
	 * (pause), then NOPs, then the body.  Simulated by calling P+1. */
	const volatile unsigned char *e = (const volatile unsigned char *)parse;
	if (e[0] == 0x90 && e[1] == 0x90 && e[4] == 0x90) {
		s = dyncall_fn_hook(parse, spy, &count);
		long (*mid)(long, long) = (long (*)(long, long))((const char *)parse + 1);
		// MIDNOP-NEXT: mid-nop resume: 0 eb f3 -> 34 count 4
		v = mid(3, 4);
		printf("mid-nop resume: %d %02x %02x -> %ld count %ld\n", s, e[0],
		       e[1], v, count);
		dyncall_fn_restore(parse);
	}
	// CHECK-NEXT: status: ok
	printf("status: %s\n", dyncall_status_string());
	return 0;
}
