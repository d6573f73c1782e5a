// Checks that ppc64le refuses a redirect target whose symbol says it does not keep r2 (ELFv2 st_other local-entry field 1: r2 is caller-saved for it, as in -mcpu=power10 PC-relative code; runtime/arch/ppc64le_prologue.c arch_fentry_target_ok, docs/prologues.md "ppc64le: the TOC of a redirect target"): dyncall_fn_redirect returns DYNCALL_ERR_INVAL and the function keeps running its own code, called directly (its local entry: the caller keeps its r2 across the call) and through a pointer, for such a target in the program (a static function: the program's .symtab, read at registration) and in a library without patchable functions (its dynamic symbol, dladdr1); the same targets with field 0 (one entry that keeps r2) are accepted and reached.  The refused targets set r2 to 0 before returning: accepted, they return to f's direct callers with r2 = 0 (the runtime before this check accepted both: the program crashed, SIGSEGV, after the first; without the dladdr1 look-up lib_drop printed `0 66 66`).
// REQUIRES: qemu-ppc64le, dyncall-runtime-ppc64le
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang --target=powerpc64le-linux-gnu -DLIB -O2 -fPIC -shared %s -o %t/libtgt.so
// RUN: llvm-readelf -s %t/libtgt.so | FileCheck %s --check-prefix=SYM
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s %t/libtgt.so -Wl,-rpath,%t -o %t/clang
// RUN: llvm-readelf -s %t/clang | FileCheck %s --check-prefix=SYM-MAIN
// RUN: %qemu_ppc64le %t/clang | FileCheck %s
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s %t/libtgt.so -Wl,-rpath,%t -o %t/gcc %}
// RUN: %if gcc-plugin-ppc64le %{ %qemu_ppc64le %t/gcc | FileCheck %s %}
//
// st_other 0x20: local-entry field 1
// SYM-DAG: FUNC GLOBAL DEFAULT [<other: 0x20>] {{.*}} lib_drop{{$}}
// SYM-DAG: FUNC GLOBAL DEFAULT {{[0-9]+}} lib_keep{{$}}
// SYM-MAIN-DAG: FUNC LOCAL DEFAULT [<other: 0x20>] {{.*}} drop{{$}}
// SYM-MAIN-DAG: FUNC LOCAL DEFAULT {{[0-9]+}} keep{{$}}
//
// CHECK:      drop: -1 11 11
// CHECK-NEXT: lib_drop: -1 11 11
// CHECK-NEXT: keep: 0 99 99
// CHECK-NEXT: restore: 0 11 11
// CHECK-NEXT: lib_keep: 0 77 77
// CHECK-NEXT: restore: 0 11 11

/* the targets: `drop` and `lib_drop` say (.localentry 1) that they may
 * change r2, and do; `keep` and `lib_keep` have the one entry that keeps
 * it (no .localentry: field 0) */
#define TARGET(name, bind, value, other)                                    \
	__asm__(".text\n\t.p2align 4\n\t" bind " " #name "\n\t.type " #name \
		", @function\n" #name ":\n\t" other "li 3, " #value         \
		"\n\tblr\n\t.size " #name ", .-" #name "\n")
#ifdef LIB
TARGET(lib_drop, ".globl", 66, ".localentry lib_drop, 1\n\tli 2, 0\n\t");
TARGET(lib_keep, ".globl", 77, "");
#else
#include <stdio.h>

#include <dyncall.h>

TARGET(drop, ".local", 88, ".localentry drop, 1\n\tli 2, 0\n\t");
TARGET(keep, ".local", 99, "");
long drop(long), keep(long), lib_drop(long), lib_keep(long);

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noipa))
#endif

static volatile long k = 1; /* a TOC access after each direct call */

NOINLINE long f(long a)
{
	return a + k;
}

static void run(const char *what, int s)
{
	long (*volatile p)(long) = f;
	long d = f(10);

	d += 0 * k;

	printf("%s: %d %ld %ld\n", what, s, d, p(10));
}

int main(void)
{
	run("drop", dyncall_fn_redirect((void *)f, (void *)drop));
	run("lib_drop", dyncall_fn_redirect((void *)f, (void *)lib_drop));
	run("keep", dyncall_fn_redirect((void *)f, (void *)keep));
	run("restore", dyncall_fn_restore((void *)f));
	run("lib_keep", dyncall_fn_redirect((void *)f, (void *)lib_keep));
	run("restore", dyncall_fn_restore((void *)f));
	return 0;
}
#endif
