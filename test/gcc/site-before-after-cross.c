// Checks the exact instructions of a GCC-compiled site and its trampoline on disk (unpatched; ppc64le: bl to GNU ld's r2-saving stub, ld r2,24(r1) after it) and in the running process under qemu-user with the real runtime: after registration (the site is labelled, so no discovery: aarch64 bl twice at once, ppc64le trampoline b twice), after a plain store (square), and a guarded site with its guard stub.  The program is test/arch/Inputs/site_bytes.c, shared with the Clang path.
// REQUIRES: (gcc-plugin-aarch64 && qemu-aarch64 && dyncall-runtime-aarch64) || (gcc-plugin-ppc64le && qemu-ppc64le && dyncall-runtime-ppc64le)
// (gcc-plugin-<arch>: dyncall_gcc-<triple>.so; qemu-<arch>: qemu-user + the Debian sysroot; dyncall-runtime-<arch>: build/lib/<triple>/libdyncall; each block runs when all three exist)
// RUN: %if gcc-plugin-aarch64 && qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_gcc_aarch64 -O2 -DTRAMP_SLOW_WORDS=2 -DSTUB_WORDS=6 %src_root/test/arch/Inputs/site_bytes.c -o %t.a64 %libdyncall_aarch64_ldflags %}
// RUN: %if gcc-plugin-aarch64 && qemu-aarch64 && dyncall-runtime-aarch64 %{ llvm-objdump -d %t.a64 | FileCheck %s --check-prefix=DISK-AARCH64 %}
// RUN: %if gcc-plugin-aarch64 && qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64 | FileCheck %s --check-prefix=AARCH64 %}
// RUN: %if gcc-plugin-ppc64le && qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_gcc_ppc64le -O2 -DTRAMP_SLOW_WORDS=3 -DSTUB_WORDS=12 %src_root/test/arch/Inputs/site_bytes.c -o %t.ppc %libdyncall_ppc64le_ldflags %}
// RUN: %if gcc-plugin-ppc64le && qemu-ppc64le && dyncall-runtime-ppc64le %{ llvm-objdump -d %t.ppc | FileCheck %s --check-prefix=DISK-PPC64LE %}
// RUN: %if gcc-plugin-ppc64le && qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc | FileCheck %s --check-prefix=PPC64LE %}
//
// On disk, every trampoline is unpatched.
// DISK-AARCH64: <apply>:
// DISK-AARCH64: ldr x18,
// DISK-AARCH64: bl {{.*}} <__dyncall_tramp.[[UNIT:[0-9a-f]+]].0>
// DISK-AARCH64: <__dyncall_tramp.[[UNIT]].0>:
// DISK-AARCH64-NEXT: 14000001 b
// DISK-AARCH64-NEXT: aa1203f0 mov x16, x18
// DISK-AARCH64-NEXT: d61f0200 br x16
//
// DISK-PPC64LE: {{0*}}[[STUB:[1-9a-f][0-9a-f]*]] <{{[0-9a-f]+}}.long_branch.__dyncall_tramp.[[UNIT:[0-9a-f]+]].0>:
// DISK-PPC64LE-NEXT: 18 00 41 f8 std 2, 24(1)
// DISK-PPC64LE-NEXT: b {{.*}} <__dyncall_tramp.[[UNIT]].0>
// DISK-PPC64LE: <apply>:
// DISK-PPC64LE: bl 0x[[STUB]] <{{.*}}.long_branch.__dyncall_tramp.[[UNIT]].0>
// DISK-PPC64LE-NEXT: 18 00 41 e8 ld 2, 24(1)
// DISK-PPC64LE: <__dyncall_tramp.[[UNIT]].0>:
// DISK-PPC64LE-NEXT: 04 00 00 48 b
// DISK-PPC64LE-NEXT: a6 03 69 7d mtctr 11
// DISK-PPC64LE-NEXT: 78 5b 6c 7d mr 12, 11
// DISK-PPC64LE-NEXT: 20 04 80 4e bctr
//
// aarch64: GCC labels its sites, so registration patches the site itself
// straight to the target (and the trampoline too, for any other caller).
// AARCH64-LABEL: == registered
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <twice>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <twice>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64: apply(3) = 7
// AARCH64-LABEL: == called
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <twice>
// AARCH64: apply(3) = 10
// AARCH64-LABEL: == stored
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <square>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <square>
// An escaped key: site and trampoline -> the guard stub {ldr x16, lit;
// cmp x16, x18; b.ne miss; b twice; miss: adr x17, lit_site; b <miss entry>}.
// AARCH64: gapply(3) = 7
// AARCH64-LABEL: == guarded
// AARCH64-NEXT: site: {{9[4-7][0-9a-f]+}} bl <stub>
// AARCH64-NEXT: tramp: {{1[4-7][0-9a-f]+}} b <stub>
// AARCH64-NEXT: slow: aa1203f0 d61f0200
// AARCH64-NEXT: stub: 580000d0 eb12021f 54000041 {{1[4-7][0-9a-f]+}} 10000091 {{1[4-7][0-9a-f]+}}
//
// ppc64le: the site is never patched (bl <TOC-save stub>; ld r2,24(r1));
// the trampoline's b goes straight to the target's local entry (same
// module, same TOC).
// PPC64LE-LABEL: == registered
// PPC64LE-NEXT: site: {{4[89ab][0-9a-f]+[159d]}} bl <tocsave>
// PPC64LE-NEXT: after: e8410018
// PPC64LE-NEXT: tramp: {{4[89ab][0-9a-f]+[048c]}} b <twice>
// PPC64LE-NEXT: slow: 7d6903a6 7d6c5b78 4e800420
// PPC64LE: apply(3) = 7
// PPC64LE-LABEL: == called
// PPC64LE-NEXT: site: {{4[89ab][0-9a-f]+[159d]}} bl <tocsave>
// PPC64LE-NEXT: after: e8410018
// PPC64LE-NEXT: tramp: {{4[89ab][0-9a-f]+[048c]}} b <twice>
// PPC64LE: apply(3) = 10
// PPC64LE-LABEL: == stored
// PPC64LE: tramp: {{4[89ab][0-9a-f]+[048c]}} b <square>
// An escaped key: tramp -> learning guard stub {r12 = twice (5 insns); cmpd r11, r12;
// bne miss; mtctr r12; bctr; miss: r12 = &site literal (5 insns); b <miss entry>}.
// PPC64LE: gapply(3) = 7
// PPC64LE-LABEL: == guarded
// PPC64LE: tramp: {{4[89ab][0-9a-f]+[048c]}} b <stub>
// PPC64LE-NEXT: slow: 7d6903a6 7d6c5b78 4e800420
// PPC64LE-NEXT: stub: 3d80{{[0-9a-f]+}} 618c{{[0-9a-f]+}} 798c07c6 658c{{[0-9a-f]+}} 618c{{[0-9a-f]+}} 7c2b6000 4082000c 7d8903a6 4e800420 3d80{{[0-9a-f]+}} 618c{{[0-9a-f]+}} 798c07c6
