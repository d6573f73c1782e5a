// Checks the aarch64 prologue GCC 12 and Clang 19 emit with --dyncall-prologues, with and without -mbranch-protection=standard: two NOPs before the 8-byte-aligned entry (the ops slot), BTI C first when branch protection is on, then the two entry NOPs (mov x9, x30 / bl when patched), a __patchable_function_entries record (SHF_LINK_ORDER, R_AARCH64_ABS64) pointing at the first pre-entry NOP; DYNCALL_NOT_PATCHABLE leaves none.
// REQUIRES: qemu-aarch64, dyncall-runtime-aarch64, gcc-plugin-aarch64
// (dyncall-cc needs the cross runtime's include dir and, for GCC, the cross plugin)
// RUN: %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -c %S/Inputs/shape.c -o %t.gcc.o
// RUN: llvm-objdump -d %t.gcc.o | FileCheck %s --check-prefixes=CHECK,NOBTI
// RUN: llvm-readelf -S -r %t.gcc.o | FileCheck %s --check-prefix=RECORD
// RUN: %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -mbranch-protection=standard -O2 -c %S/Inputs/shape.c -o %t.gcc-bti.o
// RUN: llvm-objdump -d %t.gcc-bti.o | FileCheck %s --check-prefixes=CHECK,BTI
// RUN: llvm-readelf -S -r %t.gcc-bti.o | FileCheck %s --check-prefix=RECORD
// RUN: %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 -c %S/Inputs/shape.c -o %t.clang.o
// RUN: llvm-objdump -d %t.clang.o | FileCheck %s --check-prefixes=CHECK,NOBTI
// RUN: llvm-readelf -S -r %t.clang.o | FileCheck %s --check-prefix=RECORD
// RUN: %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 -c %S/Inputs/shape.c -o %t.clang-bti.o
// RUN: llvm-objdump -d %t.clang-bti.o | FileCheck %s --check-prefixes=CHECK,BTI
// RUN: llvm-readelf -S -r %t.clang-bti.o | FileCheck %s --check-prefix=RECORD
// CHECK-LABEL: Disassembly of section .text:
// CHECK-EMPTY:
// CHECK-NEXT: 0000000000000000 <{{\.text|\.Ltmp0}}>:
// CHECK-NEXT: 0: d503201f nop
// CHECK-NEXT: 4: d503201f nop
// CHECK-EMPTY:
// CHECK-NEXT: 0000000000000008 <f>:
// BTI-NEXT: 8: d503245f bti c
// BTI-NEXT: c: d503201f nop
// NOBTI-NEXT: 8: d503201f nop
// CHECK-NEXT: {{[0-9a-f]+}}: d503201f nop
// CHECK-NEXT: {{[0-9a-f]+}}: {{[0-9a-f]+}} adrp
// CHECK-LABEL: <h>:
// BTI-NEXT: d503245f bti c
// CHECK-NEXT: 0b000800 add w0, w0, w0, lsl #2
// RECORD: __patchable_function_entries PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000008 00 WAL
// RECORD: Relocation section '.rela__patchable_function_entries'
// RECORD: 0000000000000000 {{[0-9a-f]+}} R_AARCH64_ABS64 {{0+}} .text + 0
// RECORD-EMPTY:
