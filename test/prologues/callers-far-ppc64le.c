// Checks that a call the linker sends through a stub is not listed in the caller table (docs/prologues.md "ppc64le: redirects at the call sites"): with 34 MiB of text between them, GNU ld turns caller's `bl f` into `bl <plt_branch.f>` (its range stub: addis r12, r2; ld r12; mtctr r12; bctr), whose R_PPC64_REL24 names f but whose branch does not go to f's local entry; the redirect of f reaches g through f's entry, no site is listed or written, and restore gives f back.
// REQUIRES: qemu-ppc64le, dyncall-runtime-ppc64le, gcc-plugin-ppc64le
// RUN: %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections -fno-toplevel-reorder %s -o %t
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=caller %t | FileCheck %s --check-prefix=DIS
// RUN: llvm-readelf -r %t | FileCheck %s --check-prefix=RELA
// RUN: %qemu_ppc64le %t | FileCheck %s
// (the 35 MB program is not kept)
// RUN: rm -f %t
// DIS: <caller>:
// DIS: bl {{.*}} <{{[0-9a-f]+}}.plt_branch.f>
// RELA: R_PPC64_REL24 {{.*}} f + 0
// CHECK: redirect f -> g: 0 caller 1016
// CHECK-NEXT: f: table 0 sites 0 rewritten 0 skipped 0
// CHECK-NEXT: restore f: 0 caller 16
#include <stdio.h>

#include <dyncall.h>

volatile long sink;

__attribute__((noipa)) long f(long x)
{
	sink++;
	return x * 3;
}

/* 34 MiB of text between f and its caller: beyond a bl's +-32 MiB */
__asm__(".section .text.pad,\"ax\",@progbits\n"
	".globl pad\npad:\n\t.space 0x2200000\n\t.text\n");

__attribute__((noipa)) long g(long x)
{
	sink++;
	return x * 3 + 1000;
}

__attribute__((noipa)) long caller(long x)
{
	return f(x) + 1;
}

int main(void)
{
	struct dyncall_fn_callers c;
	int r = dyncall_fn_redirect(f, g);

	printf("redirect f -> g: %d caller %ld\n", r, caller(5));
	dyncall_fn_callers(f, &c);
	printf("f: table %d sites %u rewritten %u skipped %u\n", c.status,
	       c.sites, c.redirected, c.skipped);
	r = dyncall_fn_restore(f);
	printf("restore f: %d caller %ld\n", r, caller(5));
	return 0;
}
