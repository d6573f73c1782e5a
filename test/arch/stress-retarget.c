// Checks that no call goes astray while 4 threads call through a direct (FRESH) site and a guarded site and the main thread retargets them 100,000 times with plain C stores, under qemu-user (each call checked against the values the key held / the pointer the caller loaded); and, in learning mode, while the guarded site is re-specialised (at least 30 times) to the targets it misses on, among 2..6 that change in phases, mostly by stores the runtime does not see.
// REQUIRES: dyncall-pass
// ALLOW_RETRIES: 2
// (Only for qemu-user: its translated-block cache can let a thread finish one
// stale block across a code write, which membarrier SYNC_CORE rules out on
// hardware; one such call in ~16 million was seen once. Deliberately broken
// protocols gave from 87 to 88 million stray calls per native x86 run of the
// same check, so a retry does not hide a real bug.)
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc_aarch64 -O2 -pthread %arch_inputs/stress.c -o %t.a64 %rt_aarch64 && %run_aarch64 %t.a64 100000 | FileCheck %s %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc_ppc64le -O2 -pthread %arch_inputs/stress.c -o %t.ppc %rt_ppc64le && %run_ppc64le %t.ppc 100000 | FileCheck %s %}
// Learning: every miss sampled, windows from 1 (doubling), up to 64
// re-specialisations; 20,000 stores or more, until 30 re-specialisations.
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ env DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=1 DYNCALL_LEARN_RETARGETS=64 %run_aarch64 %t.a64 20000 learn 30 | FileCheck %s --check-prefix=LEARN %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ env DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=1 DYNCALL_LEARN_RETARGETS=64 %run_ppc64le %t.ppc 20000 learn 30 | FileCheck %s --check-prefix=LEARN %}
// LEARN: learned>=30=yes retargets={{[0-9]+}} calls={{[0-9]+}} failures: direct=0 guarded=0 op=direct gop=guarded status=ok
// CHECK: retargets=100000 calls={{[0-9]+}} failures: direct=0 guarded=0 op=direct gop=guarded status=ok
