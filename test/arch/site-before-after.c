// Checks the exact instructions of a site and its trampoline on disk (unpatched) and in the running process: after registration (trampoline -> discovery thunk), after the first call (site discovered, patched to `bl twice`), after a plain store (`bl square`), and a guarded site with its guard stub.
// REQUIRES: dyncall-pass
//
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc_aarch64 -O2 -DTRAMP_SLOW_WORDS=2 -DSTUB_WORDS=6 %arch_inputs/site_bytes.c -o %t.a64 %rt_aarch64 && llvm-objdump -d %t.a64 | FileCheck %s --check-prefix=DISK-AARCH64 && %run_aarch64 %t.a64 | FileCheck %s --check-prefixes=CHECK,AARCH64 %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc_ppc64le -O2 -DTRAMP_SLOW_WORDS=3 -DSTUB_WORDS=12 %arch_inputs/site_bytes.c -o %t.ppc %rt_ppc64le && llvm-objdump -d %t.ppc | FileCheck %s --check-prefix=DISK-PPC64LE && %run_ppc64le %t.ppc | FileCheck %s --check-prefixes=CHECK,PPC64LE %}
//
// On disk, every trampoline is unpatched:
// DISK-AARCH64: <apply>:
// DISK-AARCH64: bl {{.*}} <__dyncall_tramp.[[UNIT:[0-9a-f]+]].0>
// DISK-AARCH64: <__dyncall_tramp.[[UNIT]].0>:
// DISK-AARCH64-NEXT: 14000001 b
// DISK-AARCH64-NEXT: aa1203f0 mov x16, x18
// DISK-AARCH64-NEXT: d61f0200 br x16
//
// Registered: the site still calls the trampoline, whose branch goes to the
// site's discovery thunk (ldr x17, lit; b disc).
// CHECK-LABEL: == registered
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <tramp>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64-NEXT: stub: 58000051 {{1[4-7][0-9a-f]+}}
// CHECK: apply(3) = 7
//
// The first call discovered the site (bl at LR - 4) and patched it direct.
// CHECK-LABEL: == called
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <twice>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// CHECK: apply(3) = 10
// CHECK-LABEL: == stored
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <square>
// CHECK: gapply(3) = 7
//
// An escaped key: site -> guard stub {ldr x16, lit; cmp x16, x18; b.ne slow;
// b twice; slow: mov x16, x18; br x16}.
// CHECK-LABEL: == guarded
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <stub>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64-NEXT: stub: 58000150 eb12021f 54000041 {{1[4-7][0-9a-f]+}} aa1203f0 d61f0200
