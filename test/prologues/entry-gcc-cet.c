// Checks the x86-64 prologue GCC 12 (and GCC 11, the same bytes) emits with --dyncall-prologues and -fcf-protection=full: 24 one-byte NOPs before the 8-byte-aligned entry, endbr64 first, then the entry NOP (with the dyncall plugin, which dyncall-cc loads: one 5-byte `nopl 8(%rax,%rax)`, Clang's bytes; GCC alone: five one-byte NOPs), a __patchable_function_entries record (SHF_LINK_ORDER) pointing at the first pre-entry NOP; DYNCALL_NOT_PATCHABLE leaves none.
// REQUIRES: x86_64, dyncall-runtime
// (x86_64: the only arch with --dyncall-prologues so far; the runtime tree provides dyncall-cc's include dir)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 -c %S/Inputs/shape.c -o %t.o
// RUN: llvm-objdump -d %t.o | FileCheck %s --check-prefixes=CHECK,PLUGIN
// RUN: llvm-readelf -S -r %t.o | FileCheck %s --check-prefix=X86_64
// GCC 11 (with its own dyncall plugin, dyncall_gcc11.so) emits the same bytes:
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -fcf-protection=full -O2 -c %S/Inputs/shape.c -o %t.gcc11.o %}
// RUN: %if gcc11-plugin %{ llvm-objdump -d %t.gcc11.o | FileCheck %s --check-prefixes=CHECK,PLUGIN %}
// RUN: %if gcc11-plugin %{ llvm-readelf -S -r %t.gcc11.o | FileCheck %s --check-prefix=X86_64 %}
// GCC without the plugin (plain -fpatchable-function-entry): five one-byte NOPs
// RUN: gcc-12 -fpatchable-function-entry=29,24 -falign-functions=8 -fcf-protection=full -O2 -I%src_root/include -c %S/Inputs/shape.c -o %t.plain.o
// RUN: llvm-objdump -d %t.plain.o | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: llvm-readelf -S -r %t.plain.o | FileCheck %s --check-prefix=X86_64
// RUN: %if gcc11-plugin %{ gcc-11 -fpatchable-function-entry=29,24 -falign-functions=8 -fcf-protection=full -O2 -I%src_root/include -c %S/Inputs/shape.c -o %t.plain11.o %}
// RUN: %if gcc11-plugin %{ llvm-objdump -d %t.plain11.o | FileCheck %s --check-prefixes=CHECK,PLAIN %}
// CHECK-LABEL: Disassembly of section .text:
// CHECK-EMPTY:
// CHECK-NEXT: 0000000000000000 <{{\.text|\.Ltmp0}}>:
// CHECK-COUNT-24: {{[0-9a-f]+}}: 90 nop{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: 0000000000000018 <f>:
// CHECK-NEXT: {{[0-9a-f]+:}} f3 0f 1e fa endbr64
// PLUGIN-NEXT: {{[0-9a-f]+:}} 0f 1f 44 00 08 nopl {{(0x)?}}8(%rax,%rax)
// PLAIN-NEXT: {{[0-9a-f]+:}} 90 nop
// PLAIN-NEXT: {{[0-9a-f]+:}} 90 nop
// PLAIN-NEXT: {{[0-9a-f]+:}} 90 nop
// PLAIN-NEXT: {{[0-9a-f]+:}} 90 nop
// PLAIN-NEXT: {{[0-9a-f]+:}} 90 nop
// CHECK-NEXT: {{[0-9a-f]+:}} 8b 05 00 00 00 00 movl
// CHECK-LABEL: <h>:
// CHECK-NEXT: {{[0-9a-f]+:}} f3 0f 1e fa endbr64
// CHECK-NEXT: {{[0-9a-f]+:}} 8d 04 bf leal
// X86_64: __patchable_function_entries PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000008 00 WAL
// X86_64: Relocation section '.rela__patchable_function_entries'
// X86_64: 0000000000000000 {{[0-9a-f]+}} R_X86_64_64 {{0+}} .text + 0
// X86_64-EMPTY:
