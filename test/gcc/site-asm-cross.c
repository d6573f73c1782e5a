// Checks the exact aarch64 and ppc64le assembly of a call site and a tail-call site at -O0/-O2 (x18 / r11 loaded from the key, the label right on the bl/b, aarch64 b for a tail call, ppc64le bl; nop and no sibcall, BTI flag), the __dyncall_sites entry (ppc64le: func = the global entry), the trampoline, key entry, key cell and constructor/destructor.
// REQUIRES: gcc-plugin-aarch64 || gcc-plugin-ppc64le
// (gcc-plugin-<arch>: needs dyncall_gcc-<triple>.so, built when gcc-12-plugin-dev-<triple> is installed; each RUN block runs when its plugin exists)
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_gcc_aarch64 -O0 -S %s -o %t.a64.O0.s %}
// RUN: %if gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=CHECK,AARCH64,AARCH64-O0,AARCH64-NOBTI < %t.a64.O0.s %}
// RUN: %if gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=MOD,MOD-AARCH64 < %t.a64.O0.s %}
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_gcc_aarch64 -O2 -S %s -o %t.a64.O2.s %}
// RUN: %if gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=CHECK,AARCH64,AARCH64-OPT,AARCH64-NOBTI < %t.a64.O2.s %}
// RUN: %if gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=MOD,MOD-AARCH64 < %t.a64.O2.s %}
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_gcc_aarch64 -O2 -mbranch-protection=standard -S %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64,AARCH64-OPT,AARCH64-BTI %}
// dyncall-cc picks the cross plugin from the compiler's -dumpmachine.
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64,AARCH64-OPT,AARCH64-NOBTI %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE,PPC64LE-OPT %}
// x18 reserved (shadow call stack): a warning, and calls stay indirect.
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_gcc_aarch64 -O2 -ffixed-x18 -S %s -o %t.a64.x18.s 2>&1 | FileCheck %s --check-prefix=X18 %}
// RUN: %if gcc-plugin-aarch64 %{ not grep -q -e __dyncall_tramp -e x18 %t.a64.x18.s %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_gcc_ppc64le -O0 -S %s -o %t.ppc.O0.s %}
// RUN: %if gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=CHECK,PPC64LE,PPC64LE-O0 < %t.ppc.O0.s %}
// RUN: %if gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=MOD,MOD-PPC64LE < %t.ppc.O0.s %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_gcc_ppc64le -O2 -S %s -o %t.ppc.O2.s %}
// RUN: %if gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=CHECK,PPC64LE,PPC64LE-OPT < %t.ppc.O2.s %}
// RUN: %if gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=MOD,MOD-PPC64LE < %t.ppc.O2.s %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_gcc_ppc64le -O2 -fPIC -S %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE,PPC64LE-PIC %}

int (*on_event)(int) __attribute__((dynamic_call));

int call_site(int x) { return on_event(x) + 1; }
// CHECK-LABEL: call_site:
// ppc64le: the global entry point (TOC from r12) is printed by GCC's
// prologue hook, before the first insn, hence func = the symbol.
// PPC64LE:      addis 2,12,.TOC.-.LCF0@ha
// PPC64LE-NEXT: addi 2,2,.TOC.-.LCF0@l
// PPC64LE-NEXT: .localentry call_site,.-call_site
// CHECK:        #APP
// CHECK-NEXT:   [[F0:\.Ldyncall_func[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// With -mbranch-protection=standard the label comes before paciasp.
// AARCH64-BTI-NEXT: hint 25 // paciasp
// AARCH64-O0:       ldr x0, [x0]
// AARCH64-O0-NEXT:  mov x18, x0
// AARCH64-OPT:      ldr x18, [x{{[0-9]+}}, #:lo12:.LANCHOR0]
// PPC64LE-O0:       ld 10,0(9)
// PPC64LE-O0:       mr 11,10
// PPC64LE-OPT:      ld 11,.LANCHOR0@toc@l({{[0-9]+}})
// PPC64LE-PIC:      ld 11,0({{[0-9]+}})
// No padding: every aarch64/ppc64le instruction is 4 bytes and aligned.
// CHECK:        #APP
// CHECK-NEXT:   [[S0:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// AARCH64-NEXT: bl [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// ppc64le: a non-local call; the linker turns the nop into ld 2,24(1).
// PPC64LE-NEXT: bl [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// PPC64LE-NEXT: nop
// CHECK:        #APP
// CHECK-NEXT:   .pushsection __dyncall_sites,"ao",@progbits,[[F0]]
// CHECK-NEXT:   .p2align 2
// CHECK-NEXT:   .long [[S0]] - .
// CHECK-NEXT:   .long [[T0]] - .
// CHECK-NEXT:   .long [[CELL:__dyncall_keycell\.[0-9a-f]+\.0]] - .
// AARCH64-NEXT: .long [[F0]] - .
// PPC64LE-NEXT: .long [[F0]] - ([[F0]] - call_site) - .
// CHECK-NEXT:   .byte 1, 1
// AARCH64-NOBTI-NEXT: .short 1
// AARCH64-BTI-NEXT: .short 9
// PPC64LE-NEXT: .short 1
// CHECK-NEXT:   .popsection
// CHECK:        .size call_site,{{ ?}}.-call_site

int tail_site(int x) { return on_event(x); }
// CHECK-LABEL: tail_site:
// CHECK:        [[F1:\.Ldyncall_func[0-9]+]]:
// CHECK:        [[S1:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// AARCH64-O0-NEXT:  bl [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]
// AARCH64-OPT-NEXT: b [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]
// ppc64le never tail calls the trampoline: the target may have another TOC.
// PPC64LE-NEXT: bl [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]
// PPC64LE-NEXT: nop
// CHECK:        .pushsection __dyncall_sites,"ao",@progbits,[[F1]]
// CHECK:        .long [[S1]] - .
// CHECK-NEXT:   .long [[T1]] - .
// CHECK-NEXT:   .long [[CELL]] - .
// AARCH64-O0-NEXT:  .long [[F1]] - .
// AARCH64-O0-NEXT:  .byte 1, 1
// AARCH64-OPT-NEXT: .long [[F1]] - .
// AARCH64-OPT-NEXT: .byte 1, 2
// PPC64LE-NEXT: .long [[F1]] - ([[F1]] - tail_site) - .
// PPC64LE-NEXT: .byte 1, 1

// The key cell: private, in .data.rel.ro, holding the key's address.
// CHECK-NOT:    .globl [[CELL]]
// CHECK:        .section .data.rel.ro,"aw"
// CHECK-NOT:    .globl [[CELL]]
// CHECK:        [[CELL]]:
// AARCH64-NEXT: .xword on_event
// PPC64LE-NEXT: .quad on_event

// X18: warning: dyncall_gcc-aarch64-linux-gnu: x18, the static chain, is reserved (-ffixed-x18) on aarch64; calls through {{.*}}dynamic_call{{.*}} pointers stay indirect

// Toplevel asm: the trampolines (bytes as docs/abi.md and the Clang pass),
// the key entry, and the COMDAT constructor and destructor.
// MOD:              .pushsection .text.__dyncall_tramp,"ax",@progbits
// MOD-NEXT:         .p2align 2
// MOD-NEXT:         .globl [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// MOD-NEXT:         .hidden [[T0]]
// MOD-NEXT:         .type [[T0]], @function
// MOD-NEXT:         [[T0]]:
// aarch64: 14000001 b slow / aa1203f0 mov x16, x18 / d61f0200 br x16
// MOD-AARCH64-NEXT: b 1f
// MOD-AARCH64-NEXT: 1:
// MOD-AARCH64-NEXT: mov x16, x18
// MOD-AARCH64-NEXT: br x16
// ppc64le: does not preserve r2; 48000004 b slow / 7d6903a6 mtctr r11 /
// 7d6c5b78 mr r12, r11 / 4e800420 bctr
// MOD-PPC64LE-NEXT: .localentry [[T0]], 1
// MOD-PPC64LE-NEXT: b 1f
// MOD-PPC64LE-NEXT: 1:
// MOD-PPC64LE-NEXT: mtctr 11
// MOD-PPC64LE-NEXT: mr 12, 11
// MOD-PPC64LE-NEXT: bctr
// MOD-NEXT:         .size [[T0]], . - [[T0]]
// MOD-NEXT:         .popsection
// MOD:              .globl __dyncall_tramp.{{[0-9a-f]+}}.1
// MOD-NOT:          __dyncall_retpoline_r10
// MOD:              .pushsection __dyncall_keys,"aR",@progbits
// MOD-NEXT:         .p2align 2
// MOD-NEXT:         .long __dyncall_keycell.{{[0-9a-f]+}}.0 - .
// MOD-NEXT:         .long [[NAME:\.Ldyncall_name\.[0-9a-f]+\.0]] - .
// MOD-NEXT:         .byte 1, 3
// MOD-NEXT:         .short 0
// MOD-NEXT:         .long 0
// MOD-NEXT:         .section .rodata.__dyncall_names,"a",@progbits
// MOD-NEXT:         [[NAME]]:
// MOD-NEXT:         .string "on_event"
// MOD-NEXT:         .popsection
// MOD-NEXT:         .ifndef .Ldyncall_have_module_ctor
// MOD:              .pushsection .text.__dyncall_module_ctor,"axG",@progbits,__dyncall_module_ctor,comdat
// MOD-NEXT:         .p2align 2
// MOD-NEXT:         .globl __dyncall_module_ctor
// MOD-NEXT:         .hidden __dyncall_module_ctor
// MOD-NEXT:         .type __dyncall_module_ctor, @function
// MOD-NEXT:         __dyncall_module_ctor:
// Called from .init_array, i.e. indirectly: a BTI landing pad (a hint).
// MOD-AARCH64-NEXT: hint #34
// MOD-AARCH64-NEXT: stp x29, x30, [sp, #-16]!
// MOD-AARCH64-NEXT: mov x29, sp
// MOD-AARCH64-NEXT: adrp x0, :got:__start___dyncall_sites
// MOD-AARCH64-NEXT: ldr x0, [x0, :got_lo12:__start___dyncall_sites]
// MOD-AARCH64-NEXT: adrp x1, :got:__stop___dyncall_sites
// MOD-AARCH64-NEXT: ldr x1, [x1, :got_lo12:__stop___dyncall_sites]
// MOD-AARCH64-NEXT: adrp x2, :got:__start___dyncall_keys
// MOD-AARCH64-NEXT: ldr x2, [x2, :got_lo12:__start___dyncall_keys]
// MOD-AARCH64-NEXT: adrp x3, :got:__stop___dyncall_keys
// MOD-AARCH64-NEXT: ldr x3, [x3, :got_lo12:__stop___dyncall_keys]
// MOD-AARCH64-NEXT: bl __dyncall_register
// MOD-AARCH64-NEXT: ldp x29, x30, [sp], #16
// MOD-AARCH64-NEXT: ret
// Entered with r12 = its address: the global entry point sets r2.
// MOD-PPC64LE-NEXT: addis 2, 12, .TOC.-__dyncall_module_ctor@ha
// MOD-PPC64LE-NEXT: addi 2, 2, .TOC.-__dyncall_module_ctor@l
// MOD-PPC64LE-NEXT: .localentry __dyncall_module_ctor, .-__dyncall_module_ctor
// MOD-PPC64LE-NEXT: mflr 0
// MOD-PPC64LE-NEXT: std 0, 16(1)
// MOD-PPC64LE-NEXT: stdu 1, -32(1)
// MOD-PPC64LE-NEXT: addis 3, 2, __start___dyncall_sites@got@ha
// MOD-PPC64LE-NEXT: ld 3, __start___dyncall_sites@got@l(3)
// MOD-PPC64LE-NEXT: addis 4, 2, __stop___dyncall_sites@got@ha
// MOD-PPC64LE-NEXT: ld 4, __stop___dyncall_sites@got@l(4)
// MOD-PPC64LE-NEXT: addis 5, 2, __start___dyncall_keys@got@ha
// MOD-PPC64LE-NEXT: ld 5, __start___dyncall_keys@got@l(5)
// MOD-PPC64LE-NEXT: addis 6, 2, __stop___dyncall_keys@got@ha
// MOD-PPC64LE-NEXT: ld 6, __stop___dyncall_keys@got@l(6)
// MOD-PPC64LE-NEXT: bl __dyncall_register
// MOD-PPC64LE-NEXT: nop
// MOD-PPC64LE-NEXT: addi 1, 1, 32
// MOD-PPC64LE-NEXT: ld 0, 16(1)
// MOD-PPC64LE-NEXT: mtlr 0
// MOD-PPC64LE-NEXT: blr
// MOD-NEXT:         .size __dyncall_module_ctor, . - __dyncall_module_ctor
// MOD-NEXT:         .section .init_array.00100,"awG",@init_array,__dyncall_module_ctor,comdat
// MOD-NEXT:         .p2align 3
// MOD-NEXT:         .quad __dyncall_module_ctor
// MOD-NEXT:         .popsection
// MOD-NEXT:         .pushsection .text.__dyncall_module_dtor,"axG",@progbits,__dyncall_module_dtor,comdat
// MOD:              bl __dyncall_unregister
// MOD:              .section .fini_array.00100,"awG",@fini_array,__dyncall_module_dtor,comdat
// MOD-NEXT:         .p2align 3
// MOD-NEXT:         .quad __dyncall_module_dtor
// MOD-NEXT:         .popsection
// MOD-NEXT:         .endif
