// Checks the exact x86-64 assembly of a call site and a tail-call site at -O0..-O3/-Os: r10 loaded from the key, alignment padding, site label, direct call/jmp to the trampoline, and the __dyncall_sites entry linked to the function.
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_gcc.so; x86_64: the trampoline ABI checked is x86-64's)
// RUN: %dyncall_gcc -O0 -S %s -o %t.O0.s
// RUN: FileCheck %s --check-prefixes=CHECK,O0 < %t.O0.s
// RUN: FileCheck %s --check-prefix=MOD < %t.O0.s
// RUN: %dyncall_gcc -O1 -S %s -o %t.O1.s
// RUN: FileCheck %s --check-prefixes=CHECK,OPT,NOTAIL < %t.O1.s
// RUN: FileCheck %s --check-prefix=MOD < %t.O1.s
// RUN: %dyncall_gcc -O2 -S %s -o %t.O2.s
// RUN: FileCheck %s --check-prefixes=CHECK,OPT,TAIL < %t.O2.s
// RUN: FileCheck %s --check-prefix=MOD < %t.O2.s
// RUN: %dyncall_gcc -O3 -S %s -o - | FileCheck %s --check-prefixes=CHECK,OPT,TAIL
// RUN: %dyncall_gcc -Os -S %s -o - | FileCheck %s --check-prefixes=CHECK,OPT,TAIL
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O0 -S %s -o %t.11.O0.s %}
// RUN: %if gcc11-plugin %{ FileCheck %s --check-prefixes=CHECK,O0 < %t.11.O0.s %}
// RUN: %if gcc11-plugin %{ FileCheck %s --check-prefix=MOD < %t.11.O0.s %}
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 -S %s -o %t.11.O2.s %}
// RUN: %if gcc11-plugin %{ FileCheck %s --check-prefixes=CHECK,OPT,TAIL < %t.11.O2.s %}
// RUN: %if gcc11-plugin %{ FileCheck %s --check-prefix=MOD < %t.11.O2.s %}
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -Os -S %s -o - | FileCheck %s --check-prefixes=CHECK,OPT,TAIL %}

int (*on_event)(int) __attribute__((dynamic_call));

int call_site(int x) { return on_event(x) + 1; }
// CHECK-LABEL: call_site:
// CHECK:       [[F0:\.Ldyncall_func[0-9]+]]:
// O0:          movq on_event(%rip), %[[R:[a-z0-9]+]]
// O0:          movq %[[R]], %r10
// OPT:         movq on_event(%rip), %r10
// CHECK:       .p2align 2
// CHECK-NEXT:  .byte 0x0f,0x1f,0x00
// CHECK-NEXT:  [[S0:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:  #NO_APP
// CHECK-NEXT:  call [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// CHECK:       .pushsection __dyncall_sites,"ao",@progbits,[[F0]]
// CHECK-NEXT:  .p2align 2
// CHECK-NEXT:  .long [[S0]] - .
// CHECK-NEXT:  .long [[T0]] - .
// CHECK-NEXT:  .long [[CELL:__dyncall_keycell\.[0-9a-f]+\.0]] - .
// CHECK-NEXT:  .long [[F0]] - .
// CHECK-NEXT:  .byte 1, 1
// CHECK-NEXT:  .short 1
// CHECK-NEXT:  .popsection
// CHECK:       .size call_site, .-call_site

int tail_site(int x) { return on_event(x); }
// CHECK-LABEL: tail_site:
// CHECK:       [[F1:\.Ldyncall_func[0-9]+]]:
// CHECK:       .byte 0x0f,0x1f,0x00
// CHECK-NEXT:  [[S1:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:  #NO_APP
// O0-NEXT:     call [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]
// NOTAIL-NEXT: call [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]
// TAIL-NEXT:   jmp [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]
// CHECK:       .pushsection __dyncall_sites,"ao",@progbits,[[F1]]
// CHECK:       .long [[S1]] - .
// CHECK-NEXT:  .long [[T1]] - .
// CHECK-NEXT:  .long [[CELL]] - .
// CHECK-NEXT:  .long [[F1]] - .
// O0-NEXT:     .byte 1, 1
// NOTAIL-NEXT: .byte 1, 1
// TAIL-NEXT:   .byte 1, 2
// CHECK-NEXT:  .short 1

// The key cell: private, in .data.rel.ro, holding the key's address.
// CHECK-NOT:  .globl [[CELL]]
// CHECK:      .section .data.rel.ro,"aw"
// CHECK-NOT:  .globl [[CELL]]
// CHECK:      [[CELL]]:
// CHECK-NEXT: .quad on_event

// Toplevel asm (placed first with -ftoplevel-reorder, last at -O0): one
// trampoline per site, the key entry with its name, the COMDAT
// constructor and destructor.
// MOD:      .pushsection .text.__dyncall_tramp,"ax",@progbits
// MOD-NEXT: .p2align 3
// MOD-NEXT: .byte 0xcc,0xcc,0xcc
// MOD-NEXT: .globl [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// MOD-NEXT: .hidden [[T0]]
// MOD-NEXT: .type [[T0]], @function
// MOD-NEXT: [[T0]]:
// MOD-NEXT: .byte 0xe9
// MOD-NEXT: .long 1f - . - 4
// MOD-NEXT: 1:
// MOD-NEXT: jmp *%r10
// MOD-NEXT: .size [[T0]], . - [[T0]]
// MOD-NEXT: .popsection
// MOD:      .globl __dyncall_tramp.{{[0-9a-f]+}}.1
// MOD:      .pushsection __dyncall_keys,"aR",@progbits
// MOD-NEXT: .p2align 2
// MOD-NEXT: .long __dyncall_keycell.{{[0-9a-f]+}}.0 - .
// MOD-NEXT: .long [[NAME:\.Ldyncall_name\.[0-9a-f]+\.0]] - .
// MOD-NEXT: .byte 1, 3
// MOD-NEXT: .short 0
// MOD-NEXT: .long 0
// MOD-NEXT: .section .rodata.__dyncall_names,"a",@progbits
// MOD-NEXT: [[NAME]]:
// MOD-NEXT: .string "on_event"
// MOD-NEXT: .popsection
// MOD-NEXT: .ifndef .Ldyncall_have_module_ctor
// MOD-NEXT: .set .Ldyncall_have_module_ctor, 1
// MOD-NEXT: .weak __start___dyncall_sites
// MOD-NEXT: .hidden __start___dyncall_sites
// MOD:      .hidden __stop___dyncall_keys
// MOD-NEXT: .pushsection .text.__dyncall_module_ctor,"axG",@progbits,__dyncall_module_ctor,comdat
// MOD-NEXT: .globl __dyncall_module_ctor
// MOD-NEXT: .hidden __dyncall_module_ctor
// MOD-NEXT: .type __dyncall_module_ctor, @function
// MOD-NEXT: __dyncall_module_ctor:
// MOD-NEXT: subq $8, %rsp
// MOD-NEXT: movq __start___dyncall_sites@GOTPCREL(%rip), %rdi
// MOD-NEXT: movq __stop___dyncall_sites@GOTPCREL(%rip), %rsi
// MOD-NEXT: movq __start___dyncall_keys@GOTPCREL(%rip), %rdx
// MOD-NEXT: movq __stop___dyncall_keys@GOTPCREL(%rip), %rcx
// MOD-NEXT: call __dyncall_register@PLT
// MOD-NEXT: addq $8, %rsp
// MOD-NEXT: ret
// MOD-NEXT: .size __dyncall_module_ctor, . - __dyncall_module_ctor
// MOD-NEXT: .section .init_array.00100,"awG",@init_array,__dyncall_module_ctor,comdat
// MOD-NEXT: .p2align 3
// MOD-NEXT: .quad __dyncall_module_ctor
// MOD-NEXT: .popsection
// MOD-NEXT: .pushsection .text.__dyncall_module_dtor,"axG",@progbits,__dyncall_module_dtor,comdat
// MOD:      call __dyncall_unregister@PLT
// MOD:      .section .fini_array.00100,"awG",@fini_array,__dyncall_module_dtor,comdat
// MOD-NEXT: .p2align 3
// MOD-NEXT: .quad __dyncall_module_dtor
// MOD-NEXT: .popsection
// MOD-NEXT: .endif
