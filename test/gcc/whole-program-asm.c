// Checks the exact x86-64 assembly of whole-program mode (-fplugin-arg-dyncall_gcc-whole-program) at -O0..-O3/-Os, with -mindirect-branch=thunk + PIE, -fcf-protection and GCC 11: each converted shape (field, local, parameter, array element, returned pointer, cast, tail call) is a site of the unit's whole-program key (TYPE_KEY, never FRESH), a call through an annotated key keeps its key, and each skipped kind (a known function, ms_abi, every call under -mabi=ms but sysv_abi ones, a call with a static chain, a constant address) stays as it was, with its note; (whole-program-direct.c: calls that GCC makes direct later). (with -no-inline-guard: the inline guard is x86_64-inline-guard-asm.c)
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_gcc.so; x86_64: the host GCC's target)
// RUN: %dyncall_gcc -O0 %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,O0,NOTAIL
// RUN: %dyncall_gcc -O1 %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,NOTAIL,KNOWN
// RUN: %dyncall_gcc -O2 %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o %t.O2.s
// RUN: FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,OPT,TAIL,KNOWN,SKIP-PLAIN < %t.O2.s
// RUN: FileCheck %s --check-prefixes=MOD,SLOW < %t.O2.s
// RUN: %dyncall_gcc -O3 %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,OPT,TAIL,KNOWN
// RUN: %dyncall_gcc -Os %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,TAIL,KNOWN
// RUN: %dyncall_gcc -O2 -fPIE -mindirect-branch=thunk %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o %t.thunk.s
// RUN: FileCheck %s -DFLAGS=6 --check-prefixes=CHECK,OPT,TAIL,KNOWN,SKIP-THUNK < %t.thunk.s
// RUN: FileCheck %s --check-prefixes=MOD,RETP < %t.thunk.s
// RUN: %dyncall_gcc -O2 -fcf-protection %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s -DFLAGS=18 --check-prefixes=CHECK,OPT,TAIL,KNOWN
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 %gcc11_arg-no-inline-guard %gcc11_arg-whole-program -S %s -o %t.11.s %}
// RUN: %if gcc11-plugin %{ FileCheck %s -DFLAGS=2 --check-prefixes=CHECK,TAIL,KNOWN < %t.11.s %}
// RUN: %if gcc11-plugin %{ FileCheck %s --check-prefixes=MOD,SLOW < %t.11.s %}
// The notes (-fplugin-arg-...-verbose) and -fopt-info.
// RUN: %dyncall_gcc -O2 %gcc_arg-no-inline-guard %gcc_arg-whole-program %gcc_arg-verbose -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: %dyncall_gcc -O2 %gcc_arg-no-inline-guard %gcc_arg-whole-program -fopt-info-missed -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSED
// -mabi=ms: every call is ms_abi but those through sysv_abi pointers.
// RUN: %dyncall_gcc -O2 -mabi=ms %gcc_arg-no-inline-guard %gcc_arg-whole-program %gcc_arg-verbose -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MSABI
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 -mabi=ms %gcc11_arg-no-inline-guard %gcc11_arg-whole-program %gcc11_arg-verbose -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MSABI %}
// Without the argument, or with `disable`, no indirect call is touched.
// RUN: %dyncall_gcc -O2 -S %s -o - | FileCheck %s --check-prefix=OFF
// RUN: %dyncall_gcc -O2 %gcc_arg-disable %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s --check-prefix=OFF
// OFF-NOT: __dyncall_wpkey
// OFF-NOT: (indirect call)

struct ops { int (*read)(int); };
typedef int (*fn_t)(int);
int (*key)(int) __attribute__((dynamic_call));
extern fn_t get(int);
extern int foo(int);
int __attribute__((ms_abi)) (*ms_fn)(int);

// The first trampoline, then the key entries: the whole-program key first
// (TYPE|ESCAPES|WHOLE_PROGRAM = 11, "(indirect call)"), then `key`.
// MOD:          .p2align 3
// MOD-NEXT:     .byte 0xcc,0xcc,0xcc
// MOD-NEXT:     .globl [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// MOD-NEXT:     .hidden [[T0]]
// MOD-NEXT:     .type [[T0]], @function
// MOD-NEXT:   [[T0]]:
// MOD-NEXT:     .byte 0xe9
// MOD-NEXT:     .long 1f - . - 4
// MOD-NEXT:   1:
// SLOW-NEXT:    jmp *%r10
// RETP-NEXT:    .byte 0xe9
// RETP-NEXT:    .long __dyncall_retpoline_r10 - . - 4
// MOD-NEXT:     .size [[T0]], . - [[T0]]
// RETP:         .globl __dyncall_retpoline_r10
// MOD:          .pushsection __dyncall_keys,"aR",@progbits
// MOD-NEXT:     .p2align 2
// MOD-NEXT:     .long [[WPCELL:__dyncall_keycell\.[0-9a-f]+\.0]] - .
// MOD-NEXT:     .long [[WPNAME:\.Ldyncall_name\.[0-9a-f]+\.0]] - .
// MOD-NEXT:     .byte 1, 3
// MOD-NEXT:     .short 11
// MOD-NEXT:     .long 0
// MOD-NEXT:     .section .rodata.__dyncall_names,"a",@progbits
// MOD-NEXT:   [[WPNAME]]:
// MOD-NEXT:     .string "(indirect call)"
// MOD:          .pushsection __dyncall_keys,"aR",@progbits
// MOD-NEXT:     .p2align 2
// MOD-NEXT:     .long {{__dyncall_keycell\.[0-9a-f]+\.1}} - .
// MOD:          .string "key"

int field_call(struct ops *o, int x) { return o->read(x) + 1; }
// MSABI: whole-program-asm.c:[[@LINE-1]]:47: note: dyncall: indirect call not transformed: the callee's calling convention is not the platform's C one
// NOTE: whole-program-asm.c:[[@LINE-2]]:47: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} (whole program)
// CHECK-LABEL: field_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          movq (%rax), %r10
// CHECK:        .p2align 2
// CHECK-NEXT:   .byte 0x0f,0x1f,0x00
// CHECK-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// CHECK-NEXT:   call [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// CHECK:        .pushsection __dyncall_sites,"ao",@progbits,[[F]]
// CHECK-NEXT:   .p2align 2
// CHECK-NEXT:   .long [[S]] - .
// CHECK-NEXT:   .long [[T0]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// CHECK-NEXT:   .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

int local_call(int x) { fn_t f = get(x); return f(x) + 2; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:49: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.1{{.*}} (whole program)
// CHECK-LABEL: local_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          call get@PLT
// OPT-NEXT:     movl %ebx, %edi
// OPT-NEXT:     movq %rax, %r10
// O0:           movq %rax, -8(%rbp)
// O0-NEXT:      movl -20(%rbp), %eax
// O0-NEXT:      movq -8(%rbp), %r10
// O0-NEXT:      movl %eax, %edi
// CHECK:      [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// CHECK-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.1]]
// CHECK:        .pushsection __dyncall_sites,"ao",@progbits,[[F]]
// CHECK-NEXT:   .p2align 2
// CHECK-NEXT:   .long [[S]] - .
// CHECK-NEXT:   .long [[T]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// CHECK-NEXT:   .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

int param_call(fn_t f, int x) { return f(x) + 3; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:40: note: {{.*}}.2{{.*}} (whole program)
// CHECK-LABEL: param_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          movq %rdi, %r10
// OPT-NEXT:     movl %esi, %edi
// CHECK:      [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// CHECK-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.2]]
// CHECK:        .long [[S]] - .
// CHECK-NEXT:   .long [[T]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// CHECK-NEXT:   .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

int array_call(fn_t *t, int i) { return t[i](i) + 4; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:41: note: {{.*}}.3{{.*}} (whole program)
// CHECK-LABEL: array_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          movq (%rax,%rdx,8), %r10
// CHECK:      [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// CHECK-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.3]]
// CHECK:        .long [[S]] - .
// CHECK-NEXT:   .long [[T]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// CHECK-NEXT:   .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

int returned_call(int x) { return get(x)(x) + 5; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:35: note: {{.*}}.4{{.*}} (whole program)
// CHECK-LABEL: returned_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          call get@PLT
// OPT-NEXT:     movl %ebx, %edi
// OPT-NEXT:     movq %rax, %r10
// CHECK:      [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// CHECK-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.4]]
// CHECK:        .long [[S]] - .
// CHECK-NEXT:   .long [[T]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// CHECK-NEXT:   .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

int cast_call(void *p, int x) { return ((fn_t)p)(x) + 6; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:41: note: {{.*}}.5{{.*}} (whole program)
// CHECK-LABEL: cast_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          movq %rdi, %r10
// CHECK:      [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// CHECK-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.5]]
// CHECK:        .long [[S]] - .
// CHECK-NEXT:   .long [[T]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// CHECK-NEXT:   .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

// An indirect tail call: jmp to the trampoline, kind 2 (a call, kind 1,
// without sibling-call optimization).
int tail_call(fn_t f, int x) { return f(x); }
// NOTE: whole-program-asm.c:[[@LINE-1]]:39: note: {{.*}}.6{{.*}} (whole program)
// CHECK-LABEL: tail_call:
// CHECK:        [[F:\.Ldyncall_func[0-9]+]]:
// OPT:          movq %rdi, %r10
// OPT-NEXT:     movl %esi, %edi
// CHECK:      [[S:\.Ldyncall_site[0-9]+]]:
// CHECK-NEXT:   #NO_APP
// TAIL-NEXT:    jmp [[T:__dyncall_tramp\.[0-9a-f]+\.6]]
// NOTAIL-NEXT:  call [[T:__dyncall_tramp\.[0-9a-f]+\.6]]
// CHECK:        .long [[S]] - .
// CHECK-NEXT:   .long [[T]] - .
// CHECK-NEXT:   .long {{__dyncall_keycell\.[0-9a-f]+\.0}} - .
// CHECK-NEXT:   .long [[F]] - .
// TAIL-NEXT:    .byte 1, 2
// NOTAIL-NEXT:  .byte 1, 1
// CHECK-NEXT:   .short [[FLAGS]]

// Through an annotated key: its own key and handling (FRESH here).
int key_call(int x) { return key(x) + 7; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:30: note: dyncall: call through {{.*}}key{{.*}} becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.7{{.*}} (fresh)
// CHECK-LABEL: key_call:
// CHECK:        .long {{__dyncall_keycell\.[0-9a-f]+\.1}} - .

// Skipped: a pointer GCC propagates to a direct call, ms_abi, a call that
// already has a static chain.
int known_call(int x) { fn_t f = foo; return f(x) + 8; }
// At -O0 the pointer lives in memory and the call stays indirect: a site.
// CHECK-LABEL: known_call:
// KNOWN-NOT:    __dyncall
// KNOWN:        call foo
// KNOWN-NOT:    __dyncall
// O0:           movq -8(%rbp), %r10
// O0:           call {{__dyncall_tramp\.[0-9a-f]+\.8}}
// CHECK-LABEL:  .size known_call

int ms_call(int x) { return ms_fn(x) + 9; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:29: note: dyncall: indirect call not transformed: the callee's calling convention is not the platform's C one
// MISSED: whole-program-asm.c:[[@LINE-2]]:29: missed: dyncall: call not transformed: the callee's calling convention is not the platform's C one
// CHECK-LABEL: ms_call:
// CHECK-NOT:    __dyncall
// SKIP-PLAIN:   movl %edi, %ecx
// SKIP-PLAIN-NEXT: call *ms_fn(%rip)
// SKIP-THUNK:   movq ms_fn(%rip), %rax
// SKIP-THUNK-NEXT: call __x86_indirect_thunk_rax
// CHECK-NOT:    __dyncall
// CHECK-LABEL:  .size ms_call

int chain_call(fn_t f, int x) { return __builtin_call_with_static_chain(f(x), &x) + 10; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:73: note: dyncall: indirect call not transformed: the call already has a static chain
// MISSED: whole-program-asm.c:[[@LINE-2]]:73: missed: dyncall: call not transformed: the call already has a static chain
// CHECK-LABEL: chain_call:
// CHECK-NOT:    __dyncall
// SKIP-PLAIN:   leaq 12(%rsp), %r10
// SKIP-PLAIN-NEXT: call *%rax
// SKIP-THUNK:   leaq 12(%rsp), %r10
// SKIP-THUNK-NEXT: call __x86_indirect_thunk_rax
// CHECK-NOT:    __dyncall
// CHECK-LABEL:  .size chain_call

int __attribute__((sysv_abi)) (*sysv_fn)(int);
int sysv_call(int x) { return sysv_fn(x) + 12; }
// MSABI: whole-program-asm.c:[[@LINE-1]]:31: note: dyncall: indirect call becomes a call to {{.*}} (whole program)
// CHECK-LABEL: sysv_call:
// CHECK:        call {{__dyncall_tramp\.[0-9a-f]+\.[0-9]+}}

int const_call(int x) { return ((fn_t)0x1000)(x) + 13; }
// NOTE: whole-program-asm.c:[[@LINE-1]]:32: note: dyncall: indirect call not transformed: the callee is not a pointer value
// CHECK-LABEL: const_call:
// CHECK-NOT:    __dyncall
// OPT:          movl $4096, %eax
// SKIP-PLAIN-NEXT: call *%rax
// SKIP-THUNK-NEXT: call __x86_indirect_thunk_rax
// CHECK-NOT:    __dyncall
// CHECK-LABEL:  .size const_call

// The key cell and the descriptor: hidden, COMDAT, writable, 16 bytes.
// MOD:          .section .data.rel.ro
// MOD:        [[WPCELL]]:
// MOD-NEXT:     .quad [[WPKEY:__dyncall_wpkey\.[0-9a-f]+]]
// MOD-NEXT:     .hidden [[WPKEY]]
// MOD-NEXT:     .weak [[WPKEY]]
// MOD-NEXT:     .section .bss.[[WPKEY]],"awG",@nobits,[[WPKEY]],comdat
// MOD-NEXT:     .align 8
// MOD-NEXT:     .type [[WPKEY]], @gnu_unique_object
// MOD-NEXT:     .size [[WPKEY]], 16
// MOD-NEXT:   [[WPKEY]]:
// MOD-NEXT:     .zero 16
