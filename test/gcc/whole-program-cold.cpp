// Checks sites in the cold part of a hot/cold-partitioned function (here a C++ catch block, fn.cold in .text.unlikely): their __dyncall_sites entry names a label at the start of the cold part as its function and is linked to it, so dyncall-rewrite check accepts the linked program (a site is never outside its function); the program, whose exception path calls through the cold site, prints what the plain build prints.  Applies to every site (key sites too); whole-program mode makes it common.
// REQUIRES: gcc-plugin, dyncall-runtime, x86_64
// (gcc-plugin: needs dyncall_gcc.so; dyncall-runtime: links libdyncall; x86_64: GCC partitions this function on x86-64)
// RUN: %dyncall_gxx -O2 %gcc_arg-whole-program -S %s -o - | FileCheck %s
// RUN: %gxx -O2 %s -o %t.plain
// RUN: %t.plain > %t.expected
// RUN: %dyncall_gxx -O2 %gcc_arg-whole-program %s -o %t %libdyncall_ldflags
// RUN: %t > %t.out
// RUN: diff %t.expected %t.out
// RUN: %dyncall_rewrite check %t | FileCheck %s --check-prefix=REWRITE
// REWRITE: 2 sites, 1 key cells: 0 errors, 0 warnings, 0 notes

__attribute__((noinline)) int guarded(int (*cb)(int), int (*onerr)(int), int x)
{
	try {
		return cb(x) + 1;
	} catch (...) {
		return onerr(x) + 2;
	}
}
// CHECK-LABEL: _Z7guardedPFiiES0_i:
// CHECK-NEXT:  .LFB{{[0-9]+}}:
// CHECK:         [[HOT:\.Ldyncall_func[0-9]+]]:
// CHECK:       [[S1:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK-NEXT:    call [[T1:__dyncall_tramp\.[0-9a-f]+\.0]]
// CHECK:         .section .text.unlikely
// CHECK:       _Z7guardedPFiiES0_i.cold:
// CHECK-NEXT:  .LFSB{{[0-9]+}}:
// CHECK-NEXT:    #APP
// CHECK-NEXT:    [[COLD:\.Ldyncall_func[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK:         call __cxa_begin_catch
// CHECK:       [[S2:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK-NEXT:    call [[T2:__dyncall_tramp\.[0-9a-f]+\.1]]
// CHECK:         .pushsection __dyncall_sites,"ao",@progbits,[[HOT]]
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[S1]] - .
// CHECK-NEXT:    .long [[T1]] - .
// CHECK-NEXT:    .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:    .long [[HOT]] - .
// CHECK:         .pushsection __dyncall_sites,"ao",@progbits,[[COLD]]
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[S2]] - .
// CHECK-NEXT:    .long [[T2]] - .
// CHECK-NEXT:    .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:    .long [[COLD]] - .

static int ok(int x) { return x * 2; }
static int boom(int x)
{
	if (x & 1)
		throw x;
	return x;
}
static int recover(int x) { return -x; }

int main()
{
	long sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += guarded(i & 2 ? ok : boom, recover, i);
	__builtin_printf("sum=%ld\n", sum);
	return 0;
}
