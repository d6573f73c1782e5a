// Checks the exact ppc64le code of a conditional site (Clang; `if (k) k(...)` through a void key, and the early return): the test is gone, r11 holds the loaded pointer and the site is `bl tramp; nop` (the linker's TOC save and restore), never a tail branch, of a trampoline whose slow path returns on a null r11 (`cmpdi r11, 0; beqlr`); the entries say kind 6 with `site` 0 (not labelled: the runtime discovers the linked `bl <TOC-save stub>; ld r2, 24(r1)` from its return address, docs/hooks.md).
// REQUIRES: dyncall-pass
// (dyncall-pass: the Clang plugins; only compiles, for the ppc64le target)
// RUN: %dyncall_clang --target=powerpc64le-linux-gnu -O2 -c %s -o %t.o -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: llvm-objdump -d -r %t.o | FileCheck %s
// RUN: llvm-objdump -s -j __dyncall_sites %t.o | FileCheck %s --check-prefix=TABLE

typedef void (*hook_t)(int);
hook_t on_packet __attribute__((dynamic_call));

// CHECK-LABEL: <cond_if>:
// CHECK:       00 00 64 e9 ld 11, 0(4)
// CHECK-NEXT:  R_PPC64_TOC16_LO_DS on_packet
// CHECK-NOT:   cmp
// CHECK:       01 00 00 48 bl
// CHECK-NEXT:  R_PPC64_REL24 [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// CHECK-NEXT:  00 00 00 60 nop
// REMARK: [[@LINE+1]]:38: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.0 (fresh)
void cond_if(int v) { if (on_packet) on_packet(v); }

// CHECK-LABEL: <cond_early>:
// CHECK-NOT:   cmp
// CHECK:       01 00 00 48 bl
// CHECK-NEXT:  R_PPC64_REL24 __dyncall_tramp.{{[0-9a-f]+}}.1
// CHECK-NEXT:  00 00 00 60 nop
// REMARK: [[@LINE+1]]:50: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.1 (fresh)
void cond_early(int v) { if (!on_packet) return; on_packet(v + 1); }

// CHECK-LABEL: Disassembly of section .text.__dyncall_tramp:
// CHECK:       <[[T0]]>:
// CHECK-NEXT:  0: 04 00 00 48 b 0x4
// CHECK-NEXT:  4: 00 00 2b 2c cmpdi 11, 0
// CHECK-NEXT:  8: 20 00 82 4d bclr 12, 2
// CHECK-NEXT:  c: a6 03 69 7d mtctr 11
// CHECK-NEXT:  10: 78 5b 6c 7d mr 12, 11
// CHECK-NEXT:  14: 20 04 80 4e bctr

// TABLE:      0000 00000000 00000000 00000000 00000000
// TABLE-NEXT: 0010 01060100 00000000 00000000 00000000
// TABLE-NEXT: 0020 00000000 01060100
