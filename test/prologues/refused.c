// Checks refused function-entry patches: a prologue of another layout (x86-64: patchable_function_entry(5,0); aarch64: (4,0), whose four entry NOPs look like the layout's two pre-entry and two entry NOPs; ppc64le: GCC's own (2,0), whose NOPs precede the TOC setup and the local entry), an entry whose bytes are not NOPs, no membarrier, DYNCALL_DISABLE=1, mprotect refused as the only writer (and, natively, with the memfd alias, which still writes): each returns its status and the function keeps running its original code.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 ones when qemu and the cross runtime and GCC plugin are there)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues --dyncall-no-rewrite -O2 %s -o %t.gcc
// RUN: %dyncall_cc %clang --dyncall-prologues --dyncall-no-rewrite -O2 %s -o %t.clang
// (--dyncall-no-rewrite: bad_entry has no NOP at its entry, which dyncall-rewrite check refuses, DC063: prologues-x86_64.test)
// RUN: %cc -O2 %S/../runtime/Inputs/deny-membarrier.c -o %t.deny-mb
// RUN: %cc -O2 -fPIC -shared %S/../runtime/Inputs/deny-mprotect.c -o %t.deny-mp.so
// RUN: %t.gcc | FileCheck %s --check-prefixes=CHECK,OK
// RUN: %t.clang | FileCheck %s --check-prefixes=CHECK,OK
// RUN: %t.deny-mb %t.gcc | FileCheck %s --check-prefixes=CHECK,NOMB
// RUN: %t.deny-mb %t.clang | FileCheck %s --check-prefixes=CHECK,NOMB
// RUN: env DYNCALL_DISABLE=1 %t.gcc | FileCheck %s --check-prefixes=CHECK,DISABLED
// RUN: env LD_PRELOAD=%t.deny-mp.so %t.clang | FileCheck %s --check-prefixes=CHECK,OK
// RUN: env DYNCALL_TEXT_WRITE=mprotect LD_PRELOAD=%t.deny-mp.so %t.gcc | FileCheck %s --check-prefixes=CHECK,NOMP
// aarch64 under qemu (mprotect is its only writer, %qemu_aarch64): the
// membarrier denied to qemu itself (a seccomp filter inherited across
// execve), the mprotect interposer preloaded into the guest.
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues --dyncall-no-rewrite -O2 %s -o %t.a64-gcc %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues --dyncall-no-rewrite -O2 %s -o %t.a64-clang %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %clang --target=aarch64-linux-gnu -O2 -fPIC -shared %S/../runtime/Inputs/deny-mprotect.c -o %t.a64-deny-mp.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64-clang | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %t.deny-mb /usr/bin/%qemu_aarch64 %t.a64-clang | FileCheck %s --check-prefixes=CHECK,NOMB %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 -E DYNCALL_DISABLE=1 %t.a64-clang | FileCheck %s --check-prefixes=CHECK,DISABLED %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 -E LD_PRELOAD=%t.a64-deny-mp.so %t.a64-clang | FileCheck %s --check-prefixes=CHECK,NOMP %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues --dyncall-no-rewrite -O2 %s -o %t.ppc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ powerpc64le-linux-gnu-gcc-12 -O2 -fPIC -shared %S/../runtime/Inputs/deny-mprotect.c -o %t.ppc-deny-mp.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %t.deny-mb /usr/bin/%qemu_ppc64le %t.ppc | FileCheck %s --check-prefixes=CHECK,NOMB %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le -E DYNCALL_DISABLE=1 %t.ppc | FileCheck %s --check-prefixes=CHECK,DISABLED %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le -E LD_PRELOAD=%t.ppc-deny-mp.so %t.ppc | FileCheck %s --check-prefixes=CHECK,NOMP %}
// ppc64le with Clang: XRay entry sleds; a sled of another shape and an entry record at a function without a sled are refused
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues --dyncall-no-rewrite -O2 %s -o %t.ppc-clang %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %clang --target=powerpc64le-linux-gnu -O2 -fPIC -shared %S/../runtime/Inputs/deny-mprotect.c -o %t.ppc-clang-deny-mp.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang | FileCheck %s --check-prefixes=CHECK,OK %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %t.deny-mb /usr/bin/%qemu_ppc64le %t.ppc-clang | FileCheck %s --check-prefixes=CHECK,NOMB %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le -E DYNCALL_DISABLE=1 %t.ppc-clang | FileCheck %s --check-prefixes=CHECK,DISABLED %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le -E LD_PRELOAD=%t.ppc-clang-deny-mp.so %t.ppc-clang | FileCheck %s --check-prefixes=CHECK,NOMP %}
#include <stdio.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noclone))

#if defined(__x86_64__)
/* Another layout: the record points at the function, no pre-entry bytes. */
__attribute__((patchable_function_entry(5, 0))) NOINLINE long five(long a)
{
	return a + 5;
}

/* The layout's record and pre-entry NOPs, but an entry that is not NOPs
 * (what a prologue some other tool rewrote looks like). */
__asm__(".pushsection __patchable_function_entries,\"aw\",@progbits\n"
	".p2align 3\n"
	".quad .Lbad_rec\n"
	".popsection\n"
	".text\n"
	".p2align 4\n"
	".Lbad_rec:\n"
	".fill 24, 1, 0x90\n"
	".globl bad_entry\n"
	".type bad_entry, @function\n"
	"bad_entry:\n"
	"lea 1(%rdi), %rax\n"
	"ret\n"
	".size bad_entry, .-bad_entry\n");
#elif defined(__aarch64__)
/* Another layout: four NOPs at the entry, the record points at the
 * function (its symbol says so: the runtime refuses it). */
__attribute__((patchable_function_entry(4, 0), aligned(8))) NOINLINE long
five(long a)
{
	return a + 5;
}

/* The layout's record and pre-entry NOPs, but an entry that is not NOPs. */
__asm__(".pushsection __patchable_function_entries,\"aw\",%progbits\n"
	".p2align 3\n"
	".quad .Lbad_rec\n"
	".popsection\n"
	".text\n"
	".p2align 3\n"
	".Lbad_rec:\n"
	"nop\n"
	"nop\n"
	".globl bad_entry\n"
	".type bad_entry, %function\n"
	"bad_entry:\n"
	"add x0, x0, #1\n"
	"ret\n"
	".size bad_entry, .-bad_entry\n");
#elif defined(__powerpc64__) && defined(__clang__)
/* Clang's route, XRay entry sleds (xray_instr_map entries of kind 0,
 * version 2).  A sled of another shape (r0 saved at -16(r1)): refused. */
__asm__(".text\n"
	".p2align 4\n"
	".globl five\n"
	".type five, @function\n"
	"five:\n"
	"b 1f\n"
	"nop\n"
	"std 0, -16(1)\n"
	"mflr 0\n"
	"bl __xray_FunctionEntry\n"
	"nop\n"
	"mtlr 0\n"
	"1: addi 3, 3, 5\n"
	"blr\n"
	".size five, .-five\n"
	".pushsection xray_instr_map,\"a\",@progbits\n"
	".Lfive_ent:\n"
	".quad five - .Lfive_ent\n"
	".quad five - (.Lfive_ent + 8)\n"
	".byte 0, 0, 2\n"
	".space 13\n"
	".popsection\n");

/* An entry sled record at a function that has no sled. */
__asm__(".text\n"
	".p2align 4\n"
	".globl bad_entry\n"
	".type bad_entry, @function\n"
	"bad_entry:\n"
	"addi 3, 3, 1\n"
	"blr\n"
	".size bad_entry, .-bad_entry\n"
	".pushsection xray_instr_map,\"a\",@progbits\n"
	".Lbad_ent:\n"
	".quad bad_entry - .Lbad_ent\n"
	".quad bad_entry - (.Lbad_ent + 8)\n"
	".byte 0, 0, 2\n"
	".space 13\n"
	".popsection\n");
long five(long a);
#elif defined(__powerpc64__)
/* Another layout: GCC 12's own NOPs, before the global entry's TOC setup
 * (the function reads a global: it has one); the symbol's local entry
 * lies past the record, the runtime refuses it. */
volatile long five_k = 5;
__attribute__((patchable_function_entry(2, 0))) NOINLINE long five(long a)
{
	return a + five_k;
}

/* A record at a local entry that is not a NOP. */
__asm__(".pushsection __patchable_function_entries,\"aw\",@progbits\n"
	".p2align 3\n"
	".quad .Lbad_rec\n"
	".popsection\n"
	".text\n"
	".p2align 2\n"
	".globl bad_entry\n"
	".type bad_entry, @function\n"
	"bad_entry:\n"
	".Lbad_rec:\n"
	"addi 3, 3, 1\n"
	"blr\n"
	".size bad_entry, .-bad_entry\n");
#endif
long bad_entry(long a);

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
	long (*volatile f5)(long) = five;
	long (*volatile fb)(long) = bad_entry;
	long (*volatile fg)(long) = good;
	struct dyncall_fn_info info;

	// CHECK: layout: -6 -6 -> 6 hits 0 info -6
	int s1 = dyncall_fn_hook(five, count, NULL);
	int s2 = dyncall_fn_redirect(five, other);
	dyncall_fn_info(five, &info);
#if defined(__powerpc64__)
	/* a direct call: through a pointer (the global entry) GCC 12's own
	 * layout computes a wrong TOC (its addis is 8 bytes past r12) */
	long v = five(1);
	(void)f5;
#else
	long v = f5(1);
#endif
	printf("layout: %d %d -> %ld hits %ld info %d\n", s1, s2, v, hits,
	       info.status);
	// CHECK-NEXT: entry bytes: -6 -> 2 hits 0
	s1 = dyncall_fn_hook(bad_entry, count, NULL);
	v = fb(1);
	printf("entry bytes: %d -> %ld hits %ld\n", s1, v, hits);
	// OK-NEXT: good: 0 -> 4 hits 1
	// NOMB-NEXT: good: -3 -> 4 hits 0
	// DISABLED-NEXT: good: -9 -> 4 hits 0
	// NOMP-NEXT: good: -4 -> 4 hits 0
	s1 = dyncall_fn_hook(good, count, NULL);
	v = fg(2);
	printf("good: %d -> %ld hits %ld\n", s1, v, hits);
	// OK-NEXT: redirect: 0 -> 6 patched 1
	// NOMB-NEXT: redirect: -3 -> 4 patched 0
	// DISABLED-NEXT: redirect: -9 -> 4 patched 0
	// NOMP-NEXT: redirect: -4 -> 4 patched 0
	s1 = dyncall_fn_redirect(good, other);
	v = fg(2);
	dyncall_fn_info(good, &info);
	printf("redirect: %d -> %ld patched %d\n", s1, v, info.patched);
	// OK-NEXT: restored: 0 -> 4
	// NOMB-NEXT: restored: 0 -> 4
	// DISABLED-NEXT: restored: 0 -> 4
	// NOMP-NEXT: restored: 0 -> 4
	s1 = dyncall_fn_restore(good);
	printf("restored: %d -> %ld\n", s1, fg(2));
	return 0;
}
