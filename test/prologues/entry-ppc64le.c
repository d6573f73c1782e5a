// Checks the ppc64le prologue of --dyncall-prologues (GCC 12 with the dyncall plugin): the global entry's TOC setup, .localentry, then the one entry NOP at the local entry, a __patchable_function_entries record (SHF_LINK_ORDER, R_PPC64_ADDR64) pointing at that NOP; DYNCALL_NOT_PATCHABLE leaves none.  And why the plugin emits it: GCC 12's own -fpatchable-function-entry puts the NOPs before the TOC setup (=1 does not assemble, =2 puts both before the local entry, where calls from the module skip them).
// REQUIRES: qemu-ppc64le, dyncall-runtime-ppc64le, gcc-plugin-ppc64le
// (dyncall-cc needs the cross runtime's include dir and the cross GCC plugin)
// RUN: %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -c %S/Inputs/shape.c -o %t.o
// RUN: llvm-objdump -d %t.o | FileCheck %s
// RUN: llvm-readelf -S -r -s %t.o | FileCheck %s --check-prefix=RECORD
// RUN: not powerpc64le-linux-gnu-gcc-12 %libdyncall_cflags -fpatchable-function-entry=1 -O2 -c %S/Inputs/shape.c -o %t.gcc1.o 2>&1 | FileCheck %s --check-prefix=GCC1
// RUN: powerpc64le-linux-gnu-gcc-12 %libdyncall_cflags -fpatchable-function-entry=2 -O2 -c %S/Inputs/shape.c -o %t.gcc2.o
// RUN: llvm-objdump -d %t.gcc2.o | FileCheck %s --check-prefix=GCC2
// CHECK-LABEL: <f>:
// CHECK-NEXT: 0: 00 00 4c 3c addis 2, 12, 0
// CHECK-NEXT: 4: 00 00 42 38 addi 2, 2, 0
// CHECK-NEXT: 8: 00 00 00 60 nop
// CHECK-NEXT: c: 00 00 22 3d addis 9, 2, 0
// CHECK-LABEL: <h>:
// CHECK-NEXT: 3a 10 69 54 slwi 9, 3, 2
// RECORD: __patchable_function_entries PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000008 00 WAL
// RECORD: Relocation section '.rela__patchable_function_entries'
// RECORD-NEXT: Offset
// RECORD-NEXT: 0000000000000000 {{[0-9a-f]+}} R_PPC64_ADDR64 {{0+}} .text + 8
// RECORD-EMPTY:
// f's local entry is 8 bytes in (st_other 0x60), h has none
// RECORD: FUNC GLOBAL DEFAULT [<other: 0x60>] {{[0-9]+}} f
// RECORD: FUNC GLOBAL DEFAULT {{[0-9]+}} h
// GCC1: Error: .localentry expression for `f' is not a valid power of 2
// GCC2-LABEL: <f>:
// GCC2-NEXT: 0: 00 00 00 60 nop
// GCC2-NEXT: 4: 00 00 00 60 nop
// GCC2-NEXT: 8: 00 00 4c 3c addis 2, 12, 0
// GCC2-NEXT: c: 00 00 42 38 addi 2, 2, 0
