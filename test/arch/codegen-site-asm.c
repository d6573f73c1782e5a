// Checks the assembly the pass emits per arch: the load of the key into the static-chain register (x18 / r11), the call or tail branch to the per-site trampoline (ppc64le: `bl; nop`, no sibcall), the trampoline's exact instructions, and the __dyncall_sites entries.
// REQUIRES: dyncall-pass
// RUN: %dyncall_cc_aarch64 -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64
// RUN: %dyncall_cc_aarch64 -O2 -S -mbranch-protection=standard %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64,AARCH64-BTI
// RUN: %dyncall_cc_ppc64le -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE
// RUN: %dyncall_cc_ppc64le -O2 -S -fPIC %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE
#include <dyncall.h>

int (*DYNCALL op)(int);

// The trampolines come first (module asm).
// CHECK: .section .text.__dyncall_tramp,"ax",@progbits
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .globl __dyncall_tramp.[[UNIT:[0-9a-f]+]].0
// CHECK-NEXT: .hidden __dyncall_tramp.[[UNIT]].0
// CHECK-NEXT: .type __dyncall_tramp.[[UNIT]].0,@function
// CHECK-NEXT: __dyncall_tramp.[[UNIT]].0:
// AARCH64-NEXT: b .Ltmp0
// AARCH64-NEXT: .Ltmp0:
// AARCH64-NEXT: mov x16, x18
// AARCH64-NEXT: br x16
// PPC64LE-NEXT: .localentry __dyncall_tramp.[[UNIT]].0, 1
// PPC64LE-NEXT: b .Ltmp0
// PPC64LE-NEXT: .Ltmp0:
// PPC64LE-NEXT: mtctr 11
// PPC64LE-NEXT: mr 12, 11
// PPC64LE-NEXT: bctr
// CHECK: __dyncall_tramp.[[UNIT]].1:

// CHECK-LABEL: call_op:
// AARCH64: ldr x18, [x{{[0-9]+}}, :lo12:op]
// AARCH64-NEXT: bl __dyncall_tramp.[[UNIT]].0
// PPC64LE: ld 11, {{.*}}
// PPC64LE-NEXT: bl __dyncall_tramp.[[UNIT]].0
// PPC64LE-NEXT: nop
int call_op(int x) { return op(x) + 1; }

// CHECK-LABEL: tail_op:
// AARCH64: ldr x18, [x{{[0-9]+}}, :lo12:op]
// AARCH64-NEXT: b __dyncall_tramp.[[UNIT]].1
// PPC64LE: bl __dyncall_tramp.[[UNIT]].1
// PPC64LE-NEXT: nop
int tail_op(int x) { return op(x); }

// The ctor is called through .init_array: with BTI it needs a landing pad.
// CHECK-LABEL: __dyncall_module_ctor:
// AARCH64-BTI-NEXT: // %bb.0:
// AARCH64-BTI-NEXT: hint #34

// Two site entries (one array per module): site 0 (discovered), tramp,
// keycell, func 0, version 1, kind 1 (call) / 2 (tail), flags FRESH (| BTI).
// CHECK: .section __dyncall_sites,"a{{[^"]*}}",@progbits
// CHECK: .L__dyncall_sites.[[UNIT]]:
// CHECK-NEXT: {{.word|.long}} 0
// CHECK-NEXT: {{.word|.long}} (__dyncall_tramp.[[UNIT]].0-
// CHECK-NEXT: {{.word|.long}} (.L__dyncall_keycell.{{.*}}-
// CHECK-NEXT: {{.word|.long}} 0
// CHECK-NEXT: .byte 1
// CHECK-NEXT: .byte 1
// AARCH64-BTI-NEXT: .hword 9{{ }}
// The tail site: a jump on aarch64; on ppc64le the backend emitted `bl; nop`
// (the kind is a prediction; ppc64le never patches the site itself).
// CHECK: {{.word|.long}} 0
// CHECK-NEXT: {{.word|.long}} (__dyncall_tramp.[[UNIT]].1-
