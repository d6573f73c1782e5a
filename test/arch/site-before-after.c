// Checks the exact instructions of a site and its trampoline on disk (unpatched) and in the running process: after registration (trampoline -> discovery thunk), after the first call (site discovered, patched to `bl twice`), after a plain store (`bl square`), a guarded site with its guard stub, and that guarded site's stub after it learned 2 and 4 targets and once megamorphic (one compare, then the plain slow path).
// REQUIRES: dyncall-pass
//
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc_aarch64 -O2 -DTRAMP_SLOW_WORDS=2 -DSTUB_WORDS=6 %arch_inputs/site_bytes.c -o %t.a64 %rt_aarch64 && llvm-objdump -d %t.a64 | FileCheck %s --check-prefix=DISK-AARCH64 && env DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 DYNCALL_LEARN_RETARGETS=2 %run_aarch64 %t.a64 | FileCheck %s --check-prefixes=CHECK,AARCH64 %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc_ppc64le -O2 -DTRAMP_SLOW_WORDS=3 -DSTUB_WORDS=12 %arch_inputs/site_bytes.c -o %t.ppc %rt_ppc64le && llvm-objdump -d %t.ppc | FileCheck %s --check-prefix=DISK-PPC64LE && env DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 DYNCALL_LEARN_RETARGETS=2 %run_ppc64le %t.ppc | FileCheck %s --check-prefixes=CHECK,PPC64LE %}
//
// On disk, every trampoline is unpatched:
// DISK-AARCH64: <apply>:
// DISK-AARCH64: bl {{.*}} <__dyncall_tramp.[[UNIT:[0-9a-f]+]].0>
// DISK-AARCH64: <__dyncall_tramp.[[UNIT]].0>:
// DISK-AARCH64-NEXT: 14000001 b
// DISK-AARCH64-NEXT: aa1203f0 mov x16, x18
// DISK-AARCH64-NEXT: d61f0200 br x16
//
// DISK-PPC64LE: <apply>:
// DISK-PPC64LE: bl {{.*}} <__toc_save___dyncall_tramp.[[UNIT:[0-9a-f]+]].0>
// DISK-PPC64LE-NEXT: 18 00 41 e8 ld 2, 24(1)
// DISK-PPC64LE: <__dyncall_tramp.[[UNIT]].0>:
// DISK-PPC64LE-NEXT: 04 00 00 48 b
// DISK-PPC64LE-NEXT: a6 03 69 7d mtctr 11
// DISK-PPC64LE-NEXT: 78 5b 6c 7d mr 12, 11
// DISK-PPC64LE-NEXT: 20 04 80 4e bctr
// DISK-PPC64LE: <__toc_save___dyncall_tramp.[[UNIT]].0>:
// DISK-PPC64LE-NEXT: 18 00 41 f8 std 2, 24(1)
// DISK-PPC64LE-NEXT: b {{.*}} <__dyncall_tramp.[[UNIT]].0>
//
// ppc64le: the site is never patched (bl <TOC-save stub>; ld r2,24(r1));
// the trampoline's `b` goes straight to the target's local entry (same
// module, same TOC) or to a stub that enters the global entry with r12.
// PPC64LE-LABEL: == registered
// PPC64LE-NEXT: site: {{48[0-9a-f]+[159d]}} bl <tocsave>
// PPC64LE-NEXT: after: e8410018
// PPC64LE-NEXT: tramp: {{4[89ab][0-9a-f]+[048c]}} b <twice>
// PPC64LE-NEXT: slow: 7d6903a6 7d6c5b78 4e800420
// PPC64LE: apply(3) = 7
// PPC64LE-LABEL: == called
// PPC64LE-NEXT: site: {{48[0-9a-f]+[159d]}} bl <tocsave>
// PPC64LE-NEXT: after: e8410018
// PPC64LE-NEXT: tramp: {{4[89ab][0-9a-f]+[048c]}} b <twice>
// PPC64LE: apply(3) = 10
// PPC64LE-LABEL: == stored
// PPC64LE: tramp: {{4[89ab][0-9a-f]+[048c]}} b <square>
// An escaped key: tramp -> learning guard stub {r12 = twice (5 insns);
// cmpd r11, r12; bne miss; mtctr r12; bctr; miss: r12 = &site literal
// (5 insns); b <region miss entry>} (the first 12 words).
// PPC64LE: gapply(3) = 7
// PPC64LE-LABEL: == guarded
// PPC64LE: tramp: {{4[89ab][0-9a-f]+[048c]}} b <stub>
// PPC64LE-NEXT: slow: 7d6903a6 7d6c5b78 4e800420
// PPC64LE-NEXT: stub: 3d80{{[0-9a-f]+}} 618c{{[0-9a-f]+}} 798c07c6 658c{{[0-9a-f]+}} 618c{{[0-9a-f]+}} 7c2b6000 4082000c 7d8903a6 4e800420 3d80{{[0-9a-f]+}} 618c{{[0-9a-f]+}} 798c07c6
//
// aarch64: registered: the site still calls the trampoline, whose branch goes to the
// site's discovery thunk (ldr x17, lit; b disc).
// AARCH64-LABEL: == registered
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <tramp>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64-NEXT: stub: 58000051 {{1[4-7][0-9a-f]+}}
// AARCH64: apply(3) = 7
//
// The first call discovered the site (bl at LR - 4) and patched it direct.
// AARCH64-LABEL: == called
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <twice>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64: apply(3) = 10
// AARCH64-LABEL: == stored
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <square>
// AARCH64: gapply(3) = 7
//
// An escaped key: site -> learning guard stub {ldr x16, lit; cmp x16, x18;
// b.ne miss; b twice; miss: adr x17, lit_site; b <region miss entry>}.
// AARCH64-LABEL: == guarded
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <stub>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64-NEXT: stub: 580000d0 eb12021f 54000041 {{1[4-7][0-9a-f]+}} 10000091 {{1[4-7][0-9a-f]+}}
//
// Learning (every miss sampled, windows of 2, 4, 8; 2 re-specialisations,
// then megamorphic): gop changes by stores the runtime does not see.  One
// token an instruction: the exact word, or an address-carrying instruction
// with its address named (ldr:x16=<T>: a literal holding T; r12=<T>: the
// 5-instruction 64-bit immediate; &<site>: the site literal; b:<entry>:
// the stub region's miss entry).  The stored value (twice) stays first.
// CHECK: ntargets=1 mega=0 targets=<twice>
// AARCH64-NEXT: learn1: ldr:x16=<twice> eb12021f 54000041 b:<twice> adr:x17=&<site> b:<entry>
// PPC64LE-NEXT: learn1: r12=<twice> 7c2b6000 4082000c 7d8903a6 4e800420 r12=&<site> b:<entry>
// CHECK-NEXT: ntargets=2 mega=0 targets=<twice>,<square>
// AARCH64-NEXT: learn2: ldr:x16=<twice> eb12021f 54000041 b:<twice> ldr:x16=<square> eb12021f 54000041 b:<square> adr:x17=&<site> b:<entry>
// PPC64LE-NEXT: learn2: r12=<twice> 7c2b6000 4082000c 7d8903a6 4e800420 r12=<square> 7c2b6000 4082000c 7d8903a6 4e800420 r12=&<site> b:<entry>
// Most frequent first (equal counts: first seen first), then what it had.
// CHECK-NEXT: ntargets=4 mega=0 targets=<twice>,<cube>,<neg>,<square>
// AARCH64-NEXT: learn4: ldr:x16=<twice> eb12021f 54000041 b:<twice> ldr:x16=<cube> eb12021f 54000041 b:<cube> ldr:x16=<neg> eb12021f 54000041 b:<neg> ldr:x16=<square> eb12021f 54000041 b:<square> adr:x17=&<site> b:<entry>
// PPC64LE-NEXT: learn4: r12=<twice> 7c2b6000 4082000c 7d8903a6 4e800420 r12=<cube> 7c2b6000 4082000c 7d8903a6 4e800420 r12=<neg> 7c2b6000 4082000c 7d8903a6 4e800420 r12=<square> 7c2b6000 4082000c 7d8903a6 4e800420 r12=&<site> b:<entry>
// Megamorphic: one compare with the stored value, then the plain slow path
// (aarch64: mov x16, x18; br x16; ppc64le: mtctr r11; mr r12, r11; bctr).
// CHECK-NEXT: ntargets=1 mega=1 targets=<twice>
// AARCH64-NEXT: mega: ldr:x16=<twice> eb12021f 54000041 b:<twice> aa1203f0 d61f0200
// PPC64LE-NEXT: mega: r12=<twice> 7c2b6000 4082000c 7d8903a6 4e800420 7d6903a6 7d6c5b78 4e800420
// (9+1)*2 + (27+1)*2 + (-3+1)*2 + (3+1+1)*8: every call reached the handler it loaded
// CHECK-NEXT: sum = 112
