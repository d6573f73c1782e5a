// Checks that `dyncall-rewrite list --prologues` counts each function's call sites exactly as the runtime's caller table does (docs/prologues.md "Where the call sites come from: the linker's relocations"; the rule written once in rewriter/dyncall_rewrite/callers.py, the runtime's in runtime/prologue.c rela_sites): this program prints, for every registered patchable function, the sites dyncall_fn_callers lists; the same program's `list --prologues --json` gives the same counts, function by function (diff), and the text listing's `callers=` field the exact ones below. GCC 12 and Clang; PIE and not; with and without -ffunction-sections (a static function's calls are listed only with it: the assembler resolves same-section calls without a relocation); linked without the table (--dyncall-no-caller-table: `callers=-`, "caller_table": false, and the runtime's DYNCALL_ERR_NORELOCS); aarch64 GCC 12 and Clang under qemu; ppc64le GCC 12 (the plugin's nop at the local entry) and Clang (XRay entry sleds) under qemu, where a call counts when R_PPC64_REL24 sent it to the callee's local entry (toc_user: past its TOC set-up, read back as the function). Only the functions the runtime registers with status OK print a line, and the rewriter gives counts only to `hookable` records: the diff also checks `hookable` against the runtime.
// REQUIRES: x86_64, dyncall-runtime, dyncall-rewrite, gcc-plugin, dyncall-pass
// RUN: rm -rf %t && mkdir -p %t
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -ffunction-sections %s -o %t/gcc
// RUN: %t/gcc | sort > %t/gcc.rt
// RUN: dyncall-rewrite list --prologues --json %t/gcc | %python %S/Inputs/list-callers.py | sort | diff %t/gcc.rt -
// RUN: FileCheck %s --check-prefixes=RT,RT-FS < %t/gcc.rt
// RUN: dyncall-rewrite list --prologues %t/gcc | FileCheck %s --check-prefixes=LIST,LIST-FS
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t/gcc-nofs
// RUN: %t/gcc-nofs | sort > %t/gcc-nofs.rt
// RUN: dyncall-rewrite list --prologues --json %t/gcc-nofs | %python %S/Inputs/list-callers.py | sort | diff %t/gcc-nofs.rt -
// RUN: FileCheck %s --check-prefixes=RT,NOFS-GCC < %t/gcc-nofs.rt
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/gcc-nopie
// RUN: %t/gcc-nopie | sort > %t/gcc-nopie.rt
// RUN: dyncall-rewrite list --prologues --json %t/gcc-nopie | %python %S/Inputs/list-callers.py | sort | diff %t/gcc-nopie.rt -
// RUN: FileCheck %s --check-prefixes=RT,RT-FS < %t/gcc-nopie.rt
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -ffunction-sections %s -o %t/clang
// RUN: %t/clang | sort > %t/clang.rt
// RUN: dyncall-rewrite list --prologues --json %t/clang | %python %S/Inputs/list-callers.py | sort | diff %t/clang.rt -
// RUN: FileCheck %s --check-prefixes=RT,RT-FS < %t/clang.rt
// RUN: dyncall-rewrite list --prologues %t/clang | FileCheck %s --check-prefixes=LIST,LIST-FS
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t/clang-nofs
// RUN: %t/clang-nofs | sort > %t/clang-nofs.rt
// RUN: dyncall-rewrite list --prologues --json %t/clang-nofs | %python %S/Inputs/list-callers.py | sort | diff %t/clang-nofs.rt -
// RUN: FileCheck %s --check-prefixes=RT,NOFS-KEPT < %t/clang-nofs.rt
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/clang-nopie
// RUN: %t/clang-nopie | sort > %t/clang-nopie.rt
// RUN: dyncall-rewrite list --prologues --json %t/clang-nopie | %python %S/Inputs/list-callers.py | sort | diff %t/clang-nopie.rt -
//
// Without the table: no counts on either side.
// RUN: %dyncall_cc gcc-12 --dyncall-prologues --dyncall-no-caller-table -O2 -ffunction-sections %s -o %t/gcc-norel
// RUN: %t/gcc-norel | FileCheck %s --check-prefix=NOREL-RT
// RUN: dyncall-rewrite list --prologues %t/gcc-norel | FileCheck %s --check-prefix=NOREL-LIST
// RUN: dyncall-rewrite list --prologues --json %t/gcc-norel | FileCheck %s --check-prefix=NOREL-JSON
// RUN: dyncall-rewrite list --prologues --json %t/gcc | FileCheck %s --check-prefix=JSON
//
// aarch64 (R_AARCH64_CALL26 / _JUMP26), under qemu.
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections %s -o %t/a64-gcc %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t/a64-gcc | sort > %t/a64-gcc.rt %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ dyncall-rewrite list --prologues --json %t/a64-gcc | %python %S/Inputs/list-callers.py | sort | diff %t/a64-gcc.rt - %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=RT,RT-FS < %t/a64-gcc.rt %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 -ffunction-sections %s -o %t/a64-clang %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t/a64-clang | sort > %t/a64-clang.rt %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ dyncall-rewrite list --prologues --json %t/a64-clang | %python %S/Inputs/list-callers.py | sort | diff %t/a64-clang.rt - %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ FileCheck %s --check-prefixes=RT,RT-FS < %t/a64-clang.rt %}
//
// ppc64le (R_PPC64_REL24 to the local entry), under qemu.
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections %s -o %t/ppc-gcc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t/ppc-gcc | sort > %t/ppc-gcc.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ dyncall-rewrite list --prologues --json %t/ppc-gcc | %python %S/Inputs/list-callers.py | sort | diff %t/ppc-gcc.rt - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=RT,RT-FS < %t/ppc-gcc.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ dyncall-rewrite list --prologues %t/ppc-gcc | FileCheck %s --check-prefixes=LIST,LIST-FS %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t/ppc-gcc-nofs %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t/ppc-gcc-nofs | sort > %t/ppc-gcc-nofs.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ dyncall-rewrite list --prologues --json %t/ppc-gcc-nofs | %python %S/Inputs/list-callers.py | sort | diff %t/ppc-gcc-nofs.rt - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=RT,NOFS-KEPT < %t/ppc-gcc-nofs.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/ppc-gcc-nopie %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t/ppc-gcc-nopie | sort > %t/ppc-gcc-nopie.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ dyncall-rewrite list --prologues --json %t/ppc-gcc-nopie | %python %S/Inputs/list-callers.py | sort | diff %t/ppc-gcc-nopie.rt - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=RT,RT-FS < %t/ppc-gcc-nopie.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues --dyncall-no-caller-table -O2 -ffunction-sections %s -o %t/ppc-gcc-norel %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t/ppc-gcc-norel | FileCheck %s --check-prefix=NOREL-RT %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ dyncall-rewrite list --prologues %t/ppc-gcc-norel | FileCheck %s --check-prefix=NOREL-LIST %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -ffunction-sections %s -o %t/ppc-clang %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t/ppc-clang | sort > %t/ppc-clang.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ dyncall-rewrite list --prologues --json %t/ppc-clang | %python %S/Inputs/list-callers.py | sort | diff %t/ppc-clang.rt - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ FileCheck %s --check-prefixes=RT,RT-FS < %t/ppc-clang.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ dyncall-rewrite list --prologues %t/ppc-clang | FileCheck %s --check-prefixes=LIST,LIST-FS %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ dyncall-rewrite list --prologues --json %t/ppc-clang | FileCheck %s --check-prefix=JSON %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -o %t/ppc-clang-nofs %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t/ppc-clang-nofs | sort > %t/ppc-clang-nofs.rt %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ dyncall-rewrite list --prologues --json %t/ppc-clang-nofs | %python %S/Inputs/list-callers.py | sort | diff %t/ppc-clang-nofs.rt - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ FileCheck %s --check-prefixes=RT,NOFS-KEPT < %t/ppc-clang-nofs.rt %}
//
// leaf: twice's two calls, main's call and tailer's tail jump (GCC's
// x86-64 `jmp leaf` to the same section without -ffunction-sections:
// resolved by GNU as, no relocation; Clang and GNU as for ppc64le keep
// it, the KEPT prefix); by_ptr only through a pointer; local_fn (static,
// two calls in uses_local): listed only with -ffunction-sections;
// toc_user: main's two calls (on ppc64le it sets up its TOC, and the
// calls enter it at its local entry, +8).
// RT: sites by_ptr 0
// RT-FS: sites leaf 4
// RT-FS: sites local_fn 2
// NOFS-GCC: sites leaf 3
// NOFS-GCC: sites local_fn 0
// NOFS-KEPT: sites leaf 4
// NOFS-KEPT: sites local_fn 0
// RT: sites toc_user 2
// LIST-FS-DAG: function={{.*}}<local_fn>{{.*}} callers=2
// LIST-DAG: function={{.*}}<leaf>{{.*}} callers=4
// LIST-DAG: function={{.*}}<by_ptr>{{.*}} callers=0
// LIST-DAG: function={{.*}}<toc_user>{{.*}} callers=2
// JSON: "caller_table": true
// NOREL-RT: table -{{[0-9]+}}
// NOREL-LIST: function={{.*}}<leaf>{{.*}} callers=-
// NOREL-JSON: "caller_table": false
// NOREL-JSON: "call_sites": null
#include <stdio.h>

#include <dyncall.h>

#ifdef __clang__
#define NI __attribute__((noinline, used))
#else
#define NI __attribute__((noinline, noclone, used))
#endif

NI int leaf(int x)
{
	return x + 1;
}

NI int tailer(int x)
{
	return leaf(x * 2);
}

NI int twice(int x)
{
	return leaf(x) * leaf(x + 1);
}

NI static int local_fn(int x)
{
	return x ^ 5;
}

NI int uses_local(int x)
{
	return local_fn(x) * local_fn(x + 3);
}

NI int by_ptr(int x)
{
	return x - 1;
}

int (*volatile fp)(int) = by_ptr;
int counter;

NI int toc_user(int x)
{
	return x + counter++;
}

int main(void)
{
	void *fns[64];
	size_t n = dyncall_fn_list(fns, 64);
	volatile int sink = leaf(1) + tailer(2) + twice(3) + uses_local(4) +
			    fp(5) + toc_user(6) + toc_user(7);
	struct dyncall_fn_callers c;

	(void)sink;
	for (size_t i = 0; i < n && i < 64; i++) {
		struct dyncall_fn_info info;

		if (dyncall_fn_info(fns[i], &info) || info.status ||
		    !info.name || dyncall_fn_callers(fns[i], &c))
			continue;
		if (c.status) {
			printf("table %d\n", c.status);
			return 0;
		}
		printf("sites %s %u\n", info.name, (unsigned)c.sites);
	}
	return 0;
}
