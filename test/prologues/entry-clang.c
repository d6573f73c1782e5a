// Checks the x86-64 prologue Clang 19 emits with --dyncall-prologues: 24 one-byte NOPs before the 8-byte-aligned entry, the entry NOPs, a __patchable_function_entries record (SHF_LINK_ORDER) pointing at the first pre-entry NOP; DYNCALL_NOT_PATCHABLE leaves none.
// REQUIRES: x86_64, dyncall-runtime
// (x86_64: the only arch with --dyncall-prologues so far; the runtime tree provides dyncall-cc's include dir)
// RUN: %dyncall_cc %clang --dyncall-prologues  -O2 -c %S/Inputs/shape.c -o %t.o
// RUN: llvm-objdump -d %t.o | FileCheck %s
// RUN: llvm-readelf -S -r %t.o | FileCheck %s --check-prefix=X86_64
// CHECK-LABEL: Disassembly of section .text:
// CHECK-EMPTY:
// CHECK-NEXT: 0000000000000000 <{{\.text|\.Ltmp0}}>:
// CHECK-COUNT-24: {{[0-9a-f]+}}: 90 nop{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: 0000000000000018 <f>:
// CHECK-NEXT: {{[0-9a-f]+:}} 0f 1f 44 00 08 nopl {{(0x)?}}8(%rax,%rax)
// CHECK-NEXT: {{[0-9a-f]+:}} 89 f8 movl %edi, %eax
// CHECK-LABEL: <h>:
// CHECK-NEXT: {{[0-9a-f]+:}} 8d 04 bf leal
// X86_64: __patchable_function_entries PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000008 00 WAL
// X86_64: Relocation section '.rela__patchable_function_entries'
// X86_64: 0000000000000000 {{[0-9a-f]+}} R_X86_64_64 {{0+}} .text + 0
// X86_64-EMPTY:
