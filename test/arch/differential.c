// Checks that a program built with the plugin prints exactly what the program without it prints (variable and type keys, tail calls, stack/FP/varargs arguments, struct returns, constructors) at -O0 and -O2, per arch under qemu-user.
// REQUIRES: dyncall-pass
//
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %cc_aarch64 -O0 %arch_inputs/differential.c -o %t.a64.ref0 && %dyncall_cc_aarch64 -O0 %arch_inputs/differential.c -o %t.a64.dc0 %rt_aarch64 && %run_aarch64 %t.a64.ref0 > %t.a64.ref0.out && %run_aarch64 %t.a64.dc0 > %t.a64.dc0.out && diff %t.a64.ref0.out %t.a64.dc0.out && FileCheck %s < %t.a64.dc0.out %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %cc_aarch64 -O2 %arch_inputs/differential.c -o %t.a64.ref2 && %dyncall_cc_aarch64 -O2 %arch_inputs/differential.c -o %t.a64.dc2 %rt_aarch64 && %run_aarch64 %t.a64.ref2 > %t.a64.ref2.out && %run_aarch64 %t.a64.dc2 > %t.a64.dc2.out && diff %t.a64.ref2.out %t.a64.dc2.out && FileCheck %s < %t.a64.dc2.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %cc_ppc64le -O0 %arch_inputs/differential.c -o %t.ppc.ref0 && %dyncall_cc_ppc64le -O0 %arch_inputs/differential.c -o %t.ppc.dc0 %rt_ppc64le && %run_ppc64le %t.ppc.ref0 > %t.ppc.ref0.out && %run_ppc64le %t.ppc.dc0 > %t.ppc.dc0.out && diff %t.ppc.ref0.out %t.ppc.dc0.out && FileCheck %s < %t.ppc.dc0.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %cc_ppc64le -O2 %arch_inputs/differential.c -o %t.ppc.ref2 && %dyncall_cc_ppc64le -O2 %arch_inputs/differential.c -o %t.ppc.dc2 %rt_ppc64le && %run_ppc64le %t.ppc.ref2 > %t.ppc.ref2.out && %run_ppc64le %t.ppc.dc2 > %t.ppc.dc2.out && diff %t.ppc.ref2.out %t.ppc.dc2.out && FileCheck %s < %t.ppc.dc2.out %}
//
// CHECK: ctor: 42
// CHECK-NEXT: apply(0) = 1 tail(0) = 0
// CHECK-NEXT: apply(1) = 0 tail(1) = -1
// CHECK-NEXT: apply(2) = 5 tail(2) = 4
// CHECK-NEXT: apply(3) = 10 tail(3) = 9
// CHECK: many = 385
// CHECK-NEXT: fp = 6.250
// CHECK-NEXT: big = 10 13 15
// CHECK-NEXT: var = 19
// CHECK-NEXT: field = -7
// CHECK-NEXT: many = 3628800
// CHECK: op is null
