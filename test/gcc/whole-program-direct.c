// Checks that whole-program sites GCC later resolves to a known function become the direct call the plain build has (the "dyncall_direct" pass after "optimized", also in the LTO back end): a callback inlined with its argument in one unit, and across units under -flto; with their notes; at -O0 (no inlining) they stay sites; the same with GCC 11 and aarch64.
// REQUIRES: gcc-plugin, dyncall-runtime, x86_64
// (gcc-plugin: needs dyncall_gcc.so; dyncall-runtime: the LTO program links libdyncall; x86_64: the host GCC's target; the aarch64 block runs when its plugin exists)
// RUN: %dyncall_gcc -O2 %gcc_arg-whole-program %gcc_arg-verbose -S %s -o %t.s 2> %t.notes
// RUN: FileCheck %s --check-prefixes=CHECK,X86_64 < %t.s
// RUN: FileCheck %s --check-prefix=NOTE < %t.notes
// RUN: %dyncall_gcc -O0 %gcc_arg-whole-program -S %s -o - | FileCheck %s --check-prefix=O0
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 %gcc11_arg-whole-program -S %s -o - | FileCheck %s --check-prefixes=CHECK,X86_64 %}
// RUN: %if gcc-plugin-aarch64 %{ %gcc_aarch64 -fplugin=%plugin_dir/aarch64-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64 %}
// Across units: apply_cb (another unit, a site there) inlined at link time.
// RUN: %dyncall_gcc -O2 -flto %gcc_arg-whole-program -DLTO_MAIN -c %s -o %t.main.o
// RUN: %dyncall_gcc -O2 -flto %gcc_arg-whole-program -c %gcc_inputs/wp_direct_lib.c -o %t.lib.o
// RUN: %dyncall_gcc -O2 -flto %gcc_arg-whole-program %gcc_arg-verbose %t.main.o %t.lib.o -o %t.lto %libdyncall_ldflags 2> %t.lto.notes
// RUN: llvm-objdump -d -r --no-show-raw-insn %t.lto | FileCheck %s --check-prefix=LTO
// RUN: FileCheck %s --check-prefix=LTO-NOTE < %t.lto.notes
// RUN: %t.lto | FileCheck %s --check-prefix=LTOOUT
// LTOOUT: 66

typedef int (*fn_t)(int);
extern int foo(int);

static inline int apply(fn_t f, int x) { return f(x) + 11; }
int inlined_callback(int x) { return apply(foo, x); }
// NOTE: whole-program-direct.c:[[@LINE-2]]:49: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} (whole program)
// NOTE: whole-program-direct.c:[[@LINE-3]]:49: note: dyncall: the callee of {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} is {{.*}}foo{{.*}}: a direct call, not a site
// CHECK-LABEL:  inlined_callback:
// CHECK-NOT:    __dyncall
// X86_64:       call foo
// AARCH64:      bl foo
// CHECK-NOT:    __dyncall
// CHECK-LABEL:  .size inlined_callback
// The trampoline stays (made before inlining), without a site entry.
// CHECK-NOT:    __dyncall_sites
// O0-LABEL:     apply:
// O0:           call __dyncall_tramp.{{[0-9a-f]+}}.0
// O0-LABEL:     inlined_callback:
// O0:           call apply

#ifdef LTO_MAIN
int apply_cb(fn_t f, int x);
__attribute__((noinline, noipa)) int foo(int x) { return x ^ 5; }
int lto_caller(int x) { return apply_cb(foo, x) * 3; }
int printf(const char *, ...);
int main(void) { return printf("%d\n", lto_caller(4)) < 0; }
#endif
// LTO-NOTE: note: dyncall: the callee of {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} is {{.*}}foo{{.*}}: a direct call, not a site
// LTO-LABEL: <main>:
// LTO-NOT:   __dyncall_tramp
// LTO:       callq {{.*}} <foo>
// LTO-NOT:   __dyncall_tramp
// LTO:       ret
