// Checks the two other global-entry TOC set-ups of ppc64le (runtime/arch/ppc64le_gep.h, docs/prologues.md "What the compilers emit (ppc64le)") under qemu, against the plain build: -mcmodel=large's `ld r2,-8(r12); add r2,r2,r12` (Clang's XRay entry sleds, linked by lld and by GNU ld, which leave it; GCC's, which GNU ld rewrites unless the TOC is beyond +-2 GiB: here kept by dropping GCC's R_PPC64_ENTRY marker) and a non-PIC executable's `lis r2; addi r2,r2` (GNU ld's rewrite of GCC's addis/addi with -no-pie).  Each function must be registered by its global entry: found by its symbol (dyncall_fn_find), named, hooked and redirected while called directly (the local entry) and through a pointer (the global entry), its original callable (the TOC from the set-up), a redirect to another function of the module accepted (the same TOC).
// REQUIRES: qemu-ppc64le, dyncall-runtime-ppc64le
// RUN: rm -rf %t && mkdir -p %t
// the exact entries, then the program run
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -mcmodel=large -fuse-ld=lld %s -o %t/clang-large-lld
// RUN: llvm-objdump -d --no-show-raw-insn %t/clang-large-lld | FileCheck %s --check-prefix=LARGE-XRAY
// RUN: %qemu_ppc64le %t/clang-large-lld | FileCheck %s --check-prefixes=PLAIN,CHECK
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -mcmodel=large %s -o %t/clang-large-bfd
// RUN: llvm-objdump -d --no-show-raw-insn %t/clang-large-bfd | FileCheck %s --check-prefix=LARGE-XRAY
// RUN: %qemu_ppc64le %t/clang-large-bfd | FileCheck %s --check-prefixes=PLAIN,CHECK
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -no-pie %s -o %t/gcc-nopie %}
// RUN: %if gcc-plugin-ppc64le %{ llvm-objdump -d --no-show-raw-insn %t/gcc-nopie | FileCheck %s --check-prefix=LIS %}
// RUN: %if gcc-plugin-ppc64le %{ %qemu_ppc64le %t/gcc-nopie | FileCheck %s --check-prefixes=PLAIN,CHECK %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -mcmodel=large -S %s -o %t/gcc-large.s %}
// RUN: %if gcc-plugin-ppc64le %{ %python -c "import sys; p = sys.argv[1]; s = open(p).read(); assert 'R_PPC64_ENTRY' in s; open(p, 'w').write(s.replace('.reloc .,R_PPC64_ENTRY', ''))" %t/gcc-large.s %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues %t/gcc-large.s -o %t/gcc-large %}
// RUN: %if gcc-plugin-ppc64le %{ llvm-objdump -d --no-show-raw-insn %t/gcc-large | FileCheck %s --check-prefix=LARGE-GCC %}
// RUN: %if gcc-plugin-ppc64le %{ %qemu_ppc64le %t/gcc-large | FileCheck %s --check-prefixes=PLAIN,CHECK %}
// the link-time check sees the records at the local entries after these set-ups
// RUN: %if dyncall-rewrite %{ %dyncall_rewrite list --prologues %t/clang-large-lld | FileCheck %s --check-prefix=LIST %}
// RUN: %if dyncall-rewrite && gcc-plugin-ppc64le %{ %dyncall_rewrite list --prologues %t/gcc-nopie | FileCheck %s --check-prefix=LIST %}
// RUN: %if dyncall-rewrite && gcc-plugin-ppc64le %{ %dyncall_rewrite list --prologues %t/gcc-large | FileCheck %s --check-prefix=LIST %}
// the plain build: no dyncall-cc (dyncall_fn_find: NULL)
// RUN: %clang --target=powerpc64le-linux-gnu -O2 -mcmodel=large -fuse-ld=lld %libdyncall_cflags %s -L%build_dir/lib/powerpc64le-linux-gnu -ldyncall -Wl,-rpath,%build_dir/lib/powerpc64le-linux-gnu -o %t/plain
// RUN: %qemu_ppc64le %t/plain | FileCheck %s --check-prefixes=PLAIN,NOFN
//
// LARGE-XRAY-LABEL: <tocfn>:
// LARGE-XRAY-NEXT: ld 2, -8(12)
// LARGE-XRAY-NEXT: add 2, 2, 12
// LARGE-XRAY-NEXT: b 0x
// LARGE-XRAY-NEXT: nop
// LARGE-XRAY-NEXT: std 0, -8(1)
// LIS-LABEL: <tocfn>:
// LIS-NEXT: lis 2, {{[0-9]+}}
// LIS-NEXT: addi 2, 2, {{-?[0-9]+}}
// LIS-NEXT: nop
// LARGE-GCC-LABEL: <tocfn>:
// LARGE-GCC-NEXT: ld 2, -8(12)
// LARGE-GCC-NEXT: add 2, 2, 12
// LARGE-GCC-NEXT: nop
// LIST: function=0x{{[0-9a-f]+}}<tocfn> nops=0+{{[0-9]+}} pad=- hookable={{yes|no}} state=ok
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline))

volatile long k = 7; /* through the TOC: tocfn has a global entry */
NOINLINE long tocfn(long a, long b) { return a * 10 + b + k; }
NOINLINE long tocfn_v2(long a, long b)
{
	long (*orig)(long, long) =
		(long (*)(long, long))dyncall_fn_original(tocfn);

	return 1000 + k + orig(a, b);
}

static void plus(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	r->arg[0] += 100;
	++*(long *)data;
	(void)fn, (void)ret;
}

int main(void)
{
	long (*volatile p)(long, long) = tocfn;
	long count = 0, v1, v2;
	struct dyncall_fn_info info;
	void *f;
	int s;

	// PLAIN: plain: 27 27
	printf("plain: %ld %ld\n", tocfn(2, 0), p(2, 0));
	f = dyncall_fn_find("tocfn");
	// CHECK-NEXT: find: 1 info 0 tocfn status 0
	// NOFN-NEXT: find: 0
	if (!f) {
		printf("find: 0\n");
		return 0;
	}
	s = dyncall_fn_info(f, &info);
	printf("find: %d info %d %s status %d\n", f == (void *)tocfn, s,
	       info.name, info.status);

	// CHECK-NEXT: hook: 0 -> 1041 1041 count 2
	s = dyncall_fn_hook(f, plus, &count);
	v1 = tocfn(3, 4);
	v2 = p(3, 4);
	printf("hook: %d -> %ld %ld count %ld\n", s, v1, v2, count);
	// CHECK-NEXT: redirect: 0 -> 1048 1048
	dyncall_fn_unhook(tocfn, plus);
	s = dyncall_fn_redirect(tocfn, tocfn_v2);
	v1 = tocfn(3, 4);
	v2 = p(3, 4);
	printf("redirect: %d -> %ld %ld\n", s, v1, v2);
	// CHECK-NEXT: restore: 0 -> 41 41 patched 0
	s = dyncall_fn_restore(tocfn);
	v1 = tocfn(3, 4);
	v2 = p(3, 4);
	dyncall_fn_info(tocfn, &info);
	printf("restore: %d -> %ld %ld patched %d\n", s, v1, v2, info.patched);
	return 0;
}
