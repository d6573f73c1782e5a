// Checks the exact x86-64 code of the inline guard of whole-program sites (docs/abi.md "Inline guards"): the loaded pointer in r10 compared with the site's literal (`cmpq %r10, lit(%rip)`, the load folded into the compare), `jne` to the out-of-line miss block, a direct `call`/`jmp` of the hit trampoline on the fall-through path, the miss block = the unchanged site; tail sites stay tail jumps on both paths; the same with -fPIE -mretpoline and -fcf-protection=full; the literal is writable data holding its own address; the hit trampoline has the bytes of every trampoline; table entries: kind 1/2 then 7; none at -O0, -Os, -Oz or with -dyncall-inline-guard=0.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^[[:space:]]*#' > %t.plain.s
// RUN: FileCheck %s --check-prefixes=CHECK < %t.plain.s
// RUN: FileCheck %s --check-prefixes=TRAMP,TRAMP-PLAIN < %t.plain.s
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -fPIE -mretpoline -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^[[:space:]]*#' > %t.retp.s
// RUN: FileCheck %s --check-prefixes=CHECK < %t.retp.s
// RUN: FileCheck %s --check-prefixes=TRAMP,TRAMP-RETPOLINE < %t.retp.s
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -fcf-protection=full -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^[[:space:]]*#' | FileCheck %s --check-prefixes=CHECK,IBT
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=TABLE
// No guard at -O0 (optnone), -Os/-Oz (optsize, minsize), or when turned off:
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O0 -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -Os -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -Oz -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -mllvm -dyncall-inline-guard=0 -O2 -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit

typedef int (*fn_t)(int);
struct ops {
  fn_t read;
  fn_t write;
};

// CHECK-LABEL: field:
// IBT-NEXT: endbr64
// CHECK-NEXT: pushq %rax
// CHECK-NEXT: movq (%rdi), %r10
// CHECK-NEXT: cmpq %r10, .L__dyncall_lit.[[UNIT:[0-9a-f]+]].0(%rip)
// CHECK-NEXT: jne .LBB0_2
// CHECK-NEXT: movl %esi, %edi
// CHECK-NEXT: callq __dyncall_hit.[[UNIT]].0
// CHECK-NEXT: .LBB0_3:
// CHECK-NEXT: incl %eax
// CHECK-NEXT: popq %rcx
// CHECK-NEXT: retq
// CHECK-NEXT: .LBB0_2:
// CHECK-NEXT: movl %esi, %edi
// CHECK-NEXT: callq __dyncall_tramp.[[UNIT]].0
// CHECK-NEXT: jmp .LBB0_3
// NOGUARD-LABEL: field:
// NOGUARD: callq __dyncall_tramp.{{[0-9a-f]+}}.0
int field(struct ops *o, int x) { return o->read(x) + 1; }

// CHECK-LABEL: tail:
// IBT-NEXT: endbr64
// CHECK-NEXT: cmpq %rdi, .L__dyncall_lit.[[UNIT]].1(%rip)
// CHECK-NEXT: jne .LBB{{[0-9]+}}_2
// CHECK-NEXT: movq %rdi, %r10
// CHECK-NEXT: movl %esi, %edi
// CHECK-NEXT: jmp __dyncall_hit.[[UNIT]].1 # TAILCALL
// CHECK-NEXT: .LBB{{[0-9]+}}_2:
// CHECK-NEXT: movq %rdi, %r10
// CHECK-NEXT: movl %esi, %edi
// CHECK-NEXT: jmp __dyncall_tramp.[[UNIT]].1 # TAILCALL
// NOGUARD-LABEL: tail:
// NOGUARD: __dyncall_tramp.{{[0-9a-f]+}}.1
int tail(fn_t f, int x) { return f(x); }

// CHECK-LABEL: vcall:
// IBT-NEXT: endbr64
// CHECK-NEXT: cmpq %rdi, .L__dyncall_lit.[[UNIT]].2(%rip)
// CHECK-NEXT: jne .LBB{{[0-9]+}}_2
// CHECK-NEXT: movq %rdi, %r10
// CHECK-NEXT: jmp __dyncall_hit.[[UNIT]].2 # TAILCALL
// CHECK-NEXT: .LBB{{[0-9]+}}_2:
// CHECK-NEXT: movq %rdi, %r10
// CHECK-NEXT: jmp __dyncall_tramp.[[UNIT]].2 # TAILCALL
void vcall(void (*f)(void)) { f(); }

// The literal: 8-byte aligned writable data holding its own address.
// CHECK: .type .L__dyncall_lit.[[UNIT]].0,@object
// CHECK-NEXT: .data
// CHECK-NEXT: .p2align 3, 0x0
// CHECK-NEXT: .L__dyncall_lit.[[UNIT]].0:
// CHECK-NEXT: .quad .L__dyncall_lit.[[UNIT]].0

// The hit trampoline (module asm: before the functions): an ordinary
// trampoline (entry at 8k+3 behind int3, jmp rel32 to its slow path, jmp
// *%r10 or the r10 retpoline).
// TRAMP: .globl __dyncall_hit.[[UNIT:[0-9a-f]+]].0
// TRAMP-NEXT: .hidden __dyncall_hit.[[UNIT]].0
// TRAMP-NEXT: .type __dyncall_hit.[[UNIT]].0,@function
// TRAMP-NEXT: __dyncall_hit.[[UNIT]].0:
// TRAMP-NEXT: .byte 233
// TRAMP-NEXT: .Ltmp[[A:[0-9]+]]:
// TRAMP-NEXT: .long (.Ltmp[[B:[0-9]+]]-.Ltmp[[A]])-4
// TRAMP-NEXT: .Ltmp[[B]]:
// TRAMP-PLAIN-NEXT: jmpq *%r10
// TRAMP-RETPOLINE-NEXT: .byte 233
// TRAMP-RETPOLINE-NEXT: .Ltmp{{[0-9]+}}:
// TRAMP-RETPOLINE-NEXT: .long (__dyncall_retpoline_r10-.Ltmp{{[0-9]+}})-4

// Entries: the site (kind 1 call, 2 tail), then its guard (kind 7), flags
// 2 (TYPE_KEY) as the site's; the guard's keycell field is the literal.
// TABLE: @__dyncall_sites.{{[0-9a-f]+}} = private constant [6 x { i32, i32, i32, i32, i8, i8, i16 }]
// TABLE-SAME: i8 1, i8 1, i16 2 }
// TABLE-SAME: @__dyncall_lit.{{[0-9a-f]+}}.0 to i64)
// TABLE-SAME: i32 0, i8 1, i8 7, i16 2 }
// TABLE-SAME: i8 1, i8 2, i16 2 }
// TABLE-SAME: @__dyncall_lit.{{[0-9a-f]+}}.1 to i64)
// TABLE-SAME: i32 0, i8 1, i8 7, i16 2 }
// TABLE-SAME: i8 1, i8 2, i16 2 }
// TABLE-SAME: @__dyncall_lit.{{[0-9a-f]+}}.2 to i64)
// TABLE-SAME: i32 0, i8 1, i8 7, i16 2 }
