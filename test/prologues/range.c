// Checks DYNCALL_ERR_RANGE on aarch64 and ppc64le (under qemu): when no memory can be mapped within the entry branch's reach (aarch64 bl: +-128 MiB; ppc64le b: +-32 MiB; an mmap interposer refuses every executable mapping at a hint), hooking and redirecting a function return DYNCALL_ERR_RANGE, it keeps running its original code, unpatched; the same program without the interposer hooks it.
// REQUIRES: x86_64, dyncall-runtime
// (x86-64 has no such limit: with the interposer the jump functions land more than 2 GiB from the function, Q takes its far form through A and the slot, and the jump function reaches the body through its literal: the hook still works)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t.x86
// RUN: %cc -O2 -fPIC -shared %S/Inputs/no-near-code.c -o %t.x86-far.so
// RUN: %t.x86 | FileCheck %s --check-prefixes=CHECK,OK,QNEAR
// RUN: env LD_PRELOAD=%t.x86-far.so %t.x86 | FileCheck %s --check-prefixes=CHECK,OK,QFAR
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.x86-clang
// RUN: env LD_PRELOAD=%t.x86-far.so %t.x86-clang | FileCheck %s --check-prefixes=CHECK,OK,QFAR
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 %s -o %t.a64 %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %clang --target=aarch64-linux-gnu -O2 -fPIC -shared %S/Inputs/no-near-code.c -o %t.a64-far.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64 | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 -E LD_PRELOAD=%t.a64-far.so %t.a64 | FileCheck %s --check-prefixes=CHECK,RANGE %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.ppc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ powerpc64le-linux-gnu-gcc-12 -O2 -fPIC -shared %S/Inputs/no-near-code.c -o %t.ppc-far.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le -E LD_PRELOAD=%t.ppc-far.so %t.ppc | FileCheck %s --check-prefixes=CHECK,RANGE %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -o %t.ppc-clang %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %clang --target=powerpc64le-linux-gnu -O2 -fPIC -shared %S/Inputs/no-near-code.c -o %t.ppc-clang-far.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le -E LD_PRELOAD=%t.ppc-clang-far.so %t.ppc-clang | FileCheck %s --check-prefixes=CHECK,RANGE %}
#include <stdio.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

NOINLINE long good(long a) { return a * 2; }
NOINLINE long other(long a) { return a * 3; }

static long hits;

static void count(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	hits++;
	(void)fn, (void)ret, (void)data, (void)r;
}

int main(void)
{
	long (*volatile fg)(long) = good;
	struct dyncall_fn_info info;
	int s;
	long v;

	// OK:         hook: 0 -> 4 hits 1 patched 1
	// RANGE:      hook: -8 -> 4 hits 0 patched 0
	s = dyncall_fn_hook(good, count, NULL);
	v = fg(2);
	dyncall_fn_info(good, &info);
	printf("hook: %d -> %ld hits %ld patched %d\n", s, v, hits,
	       info.patched);
	// OK-NEXT:    redirect: 0 -> 6 hits 2 handlers 1
	// RANGE-NEXT: redirect: -8 -> 4 hits 0 handlers 0
	s = dyncall_fn_redirect(good, other);
	v = fg(2);
	dyncall_fn_info(good, &info);
	printf("redirect: %d -> %ld hits %ld handlers %u\n", s, v, hits,
	       info.nhandlers);
	// CHECK-NEXT: restored: 0 -> 4 patched 0
	s = dyncall_fn_restore(good);
	v = fg(2);
	dyncall_fn_info(good, &info);
	printf("restored: %d -> %ld patched %d\n", s, v, info.patched);
#if defined(__x86_64__)
	/* Q (func - 8: 90 90 90, then its jump) is never cleared: it still
	 * leads where the last hook led */
	const volatile unsigned char *q =
		(const volatile unsigned char *)good - 8;
	// QNEAR-NEXT: Q: jmp rel32
	// QFAR-NEXT:  Q: jmp A
	printf("Q: %s\n", q[3] == 0xe9 ? "jmp rel32" :
			   q[3] == 0xeb ? "jmp A" :
					  "?");
#endif
	return 0;
}
