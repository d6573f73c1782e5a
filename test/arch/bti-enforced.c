// Checks that -mbranch-protection=standard builds work in a BTI-enforcing process (qemu-aarch64's default CPU has BTI): the program, its dyncall module constructor and the static runtime are BTI-marked, guarded pages stay guarded across patching (PROT_BTI kept), generated stubs are entered only by direct branches, and the runtime's indirect entries have landing pads; checking mode and discovery go through those entries.
// REQUIRES: qemu-aarch64, dyncall-runtime-aarch64, dyncall-pass
// Debian 12's cross Scrt1.o/crti.o/crtbeginS.o have no BTI landing pads (the
// loader enters _start with br x16), hence -nostartfiles + Inputs/bti_start.S.
// RUN: %cc_aarch64 -O2 -mbranch-protection=standard %arch_inputs/differential.c -o %t.ref
// RUN: %dyncall_cc_aarch64 -O2 -mbranch-protection=standard -mno-outline-atomics %arch_inputs/differential.c %arch_inputs/bti_start.S -nostartfiles -Wl,-z,force-bti -o %t.bti %rt_static_aarch64 2>&1 | FileCheck %s --check-prefix=LINK --allow-empty
// RUN: llvm-readelf -n %t.bti | FileCheck %s --check-prefix=NOTE
// RUN: %run_aarch64 %t.ref > %t.ref.out
// RUN: %run_aarch64 %t.bti > %t.bti.out
// RUN: diff %t.ref.out %t.bti.out
// RUN: env DYNCALL_CHECK=1 %run_aarch64 %t.bti > %t.check.out
// RUN: diff %t.ref.out %t.check.out
// Control: an indirect call to a function without a landing pad dies.
// RUN: %cc_aarch64 -O2 -mbranch-protection=standard -DNO_PAD %s %arch_inputs/bti_start.S -nostartfiles -Wl,-z,force-bti -o %t.nopad 2>/dev/null
// RUN: not --crash %run_aarch64 %t.nopad
// LINK-NOT: error
// NOTE: {{[Aa]}}arch64 feature: BTI
#ifdef NO_PAD
__attribute__((target("branch-protection=none"))) int f(int x) { return x + 1; }
int (*volatile fp)(int) = f;
int main(void) { return fp(1); }
#endif
