// Checks the exact aarch64 and ppc64le assembly of whole-program mode at -O2 (and -O0, BTI, PIC): a field, a local, a parameter, an array element and a tail call are sites of the whole-program key (x18 / r11, bl / b, ppc64le bl; nop), TYPE_KEY (+BTI), never FRESH; a call with a static chain and an aarch64_vector_pcs call stay indirect, with their notes; the key entry, cell and trampoline.
// REQUIRES: gcc-plugin-aarch64 || gcc-plugin-ppc64le
// (gcc-plugin-<arch>: needs dyncall_gcc-<triple>.so; each RUN block runs when its plugin exists.  The plugin is loaded as <triple>/dyncall_gcc.so, the name that takes -fplugin-arg-dyncall_gcc-* arguments)
// RUN: %if gcc-plugin-aarch64 %{ %gcc_aarch64 -fplugin=%plugin_dir/aarch64-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program %gcc_arg-verbose -O2 -S %s -o %t.a64.s 2> %t.a64.notes %}
// RUN: %if gcc-plugin-aarch64 %{ FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,AARCH64 < %t.a64.s %}
// RUN: %if gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=NOTE,NOTE-AARCH64 < %t.a64.notes %}
// RUN: %if gcc-plugin-aarch64 %{ %gcc_aarch64 -fplugin=%plugin_dir/aarch64-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program -O2 -mbranch-protection=standard -S %s -o - | FileCheck %s -DFLAGS=10 --check-prefixes=CHECK,AARCH64 %}
// RUN: %if gcc-plugin-aarch64 %{ %gcc_aarch64 -fplugin=%plugin_dir/aarch64-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program -O0 -S %s -o - | FileCheck %s --check-prefix=O0 %}
// RUN: %if gcc-plugin-ppc64le %{ %gcc_ppc64le -fplugin=%plugin_dir/powerpc64le-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program %gcc_arg-verbose -O2 -S %s -o %t.ppc.s 2> %t.ppc.notes %}
// RUN: %if gcc-plugin-ppc64le %{ FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,PPC64LE < %t.ppc.s %}
// RUN: %if gcc-plugin-ppc64le %{ FileCheck %s --check-prefix=NOTE < %t.ppc.notes %}
// RUN: %if gcc-plugin-ppc64le %{ %gcc_ppc64le -fplugin=%plugin_dir/powerpc64le-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program -O2 -fPIC -S %s -o - | FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,PPC64LE %}
// RUN: %if gcc-plugin-ppc64le %{ %gcc_ppc64le -fplugin=%plugin_dir/powerpc64le-linux-gnu/dyncall_gcc.so %gcc_arg-whole-program -O0 -S %s -o - | FileCheck %s --check-prefix=O0 %}

struct ops { int (*read)(int); };
typedef int (*fn_t)(int);
extern fn_t get(int);

// CHECK:         .p2align 2
// CHECK-NEXT:    .globl [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// CHECK-NEXT:    .hidden [[T0]]
// CHECK-NEXT:    .type [[T0]], @function
// CHECK-NEXT:  [[T0]]:
// PPC64LE-NEXT:  .localentry [[T0]], 1
// CHECK-NEXT:    b 1f
// CHECK-NEXT:  1:
// AARCH64-NEXT:  mov x16, x18
// AARCH64-NEXT:  br x16
// PPC64LE-NEXT:  mtctr 11
// PPC64LE-NEXT:  mr 12, 11
// PPC64LE-NEXT:  bctr
// CHECK:         .pushsection __dyncall_keys,"aR",@progbits
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[CELL:__dyncall_keycell\.[0-9a-f]+\.0]] - .
// CHECK-NEXT:    .long [[NAME:\.Ldyncall_name\.[0-9a-f]+\.0]] - .
// CHECK-NEXT:    .byte 1, 3
// CHECK-NEXT:    .short 11
// CHECK-NEXT:    .long 0
// CHECK-NEXT:    .section .rodata.__dyncall_names,"a",@progbits
// CHECK-NEXT:  [[NAME]]:
// CHECK-NEXT:    .string "(indirect call)"

int field_call(struct ops *o, int x) { return o->read(x) + 1; }
// NOTE: whole-program-asm-cross.c:[[@LINE-1]]:47: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} (whole program)
// CHECK-LABEL: field_call:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// AARCH64:       ldr x18, [x2]
// PPC64LE:       ld 11,0(9)
// CHECK:       [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK-NEXT:    bl [[T0]]
// PPC64LE-NEXT:  nop
// CHECK:         .pushsection __dyncall_sites,"ao",@progbits,[[F]]
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[S]] - .
// CHECK-NEXT:    .long [[T0]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// AARCH64-NEXT:  .long [[F]] - .
// PPC64LE-NEXT:  .long [[F]] - ([[F]] - field_call) - .
// CHECK-NEXT:    .byte 1, 1
// CHECK-NEXT:    .short [[FLAGS]]

int local_call(int x) { fn_t f = get(x); return f(x) + 2; }
// NOTE: whole-program-asm-cross.c:[[@LINE-1]]:49: note: {{.*}}.1{{.*}} (whole program)
// CHECK-LABEL: local_call:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// AARCH64:       bl get
// AARCH64-NEXT:  mov x18, x0
// PPC64LE:       bl get
// PPC64LE-NEXT:  nop
// PPC64LE-NEXT:  mr 11,3
// CHECK:       [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK-NEXT:    bl [[T:__dyncall_tramp\.[0-9a-f]+\.1]]
// PPC64LE-NEXT:  nop
// CHECK:         .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// CHECK-NEXT:    .long [[F]]
// CHECK-NEXT:    .byte 1, 1
// CHECK-NEXT:    .short [[FLAGS]]

int param_call(fn_t f, int x) { return f(x) + 3; }
// NOTE: whole-program-asm-cross.c:[[@LINE-1]]:40: note: {{.*}}.2{{.*}} (whole program)
// CHECK-LABEL: param_call:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// AARCH64:       mov x18, x0
// PPC64LE:       mr 11,3
// CHECK:       [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK-NEXT:    bl [[T:__dyncall_tramp\.[0-9a-f]+\.2]]
// PPC64LE-NEXT:  nop
// CHECK:         .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// CHECK-NEXT:    .long [[F]]
// CHECK-NEXT:    .byte 1, 1
// CHECK-NEXT:    .short [[FLAGS]]

int array_call(fn_t *t, int i) { return t[i](i) + 4; }
// NOTE: whole-program-asm-cross.c:[[@LINE-1]]:41: note: {{.*}}.3{{.*}} (whole program)
// CHECK-LABEL: array_call:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// AARCH64:       ldr x18, [x2, w1, sxtw 3]
// PPC64LE:       ldx 11,10,9
// CHECK:       [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// CHECK-NEXT:    bl [[T:__dyncall_tramp\.[0-9a-f]+\.3]]
// PPC64LE-NEXT:  nop
// CHECK:         .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// CHECK-NEXT:    .long [[F]]
// CHECK-NEXT:    .byte 1, 1
// CHECK-NEXT:    .short [[FLAGS]]

// aarch64: b to the trampoline, kind 2; ppc64le: never a sibcall.
int tail_call(fn_t f, int x) { return f(x); }
// NOTE: whole-program-asm-cross.c:[[@LINE-1]]:39: note: {{.*}}.4{{.*}} (whole program)
// CHECK-LABEL: tail_call:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// AARCH64:       mov x18, x0
// PPC64LE:       mr 11,3
// CHECK:       [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:    #NO_APP
// AARCH64-NEXT:  b [[T:__dyncall_tramp\.[0-9a-f]+\.4]]
// PPC64LE-NEXT:  bl [[T:__dyncall_tramp\.[0-9a-f]+\.4]]
// PPC64LE-NEXT:  nop
// CHECK:         .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// CHECK-NEXT:    .long [[F]]
// AARCH64-NEXT:  .byte 1, 2
// PPC64LE-NEXT:  .byte 1, 1
// CHECK-NEXT:    .short [[FLAGS]]

int chain_call(fn_t f, int x) { return __builtin_call_with_static_chain(f(x), &x) + 10; }
// NOTE: whole-program-asm-cross.c:[[@LINE-1]]:73: note: dyncall: indirect call not transformed: the call already has a static chain
// CHECK-LABEL: chain_call:
// CHECK-NOT:     __dyncall
// AARCH64:       add x18, sp, 28
// AARCH64:       blr x2
// PPC64LE:       addi 11,1,32
// PPC64LE-NEXT:  bctrl
// CHECK-NOT:     __dyncall
// CHECK-LABEL:   .size chain_call

#ifdef __aarch64__
typedef int __attribute__((aarch64_vector_pcs)) (*vfn_t)(int);
int vpcs_call(vfn_t f, int x) { return f(x) + 11; }
// NOTE-AARCH64: whole-program-asm-cross.c:[[@LINE-1]]:40: note: dyncall: indirect call not transformed: the callee's calling convention is not the platform's C one
// AARCH64-LABEL: vpcs_call:
// AARCH64-NOT:   __dyncall
// AARCH64:       mov x2, x0
// AARCH64:       blr x2
// AARCH64-NOT:   __dyncall
// AARCH64-LABEL: .size vpcs_call
#endif

// CHECK:       [[CELL]]:
// AARCH64-NEXT:  .xword __dyncall_wpkey.{{[0-9a-f]+}}
// PPC64LE-NEXT:  .quad __dyncall_wpkey.{{[0-9a-f]+}}

// -O0: the same five calls are sites.
// O0-LABEL: field_call:
// O0:         bl __dyncall_tramp.{{[0-9a-f]+}}.0
// O0-LABEL: local_call:
// O0:         bl __dyncall_tramp.{{[0-9a-f]+}}.1
// O0-LABEL: param_call:
// O0:         bl __dyncall_tramp.{{[0-9a-f]+}}.2
// O0-LABEL: array_call:
// O0:         bl __dyncall_tramp.{{[0-9a-f]+}}.3
// O0-LABEL: tail_call:
// O0:         bl __dyncall_tramp.{{[0-9a-f]+}}.4
