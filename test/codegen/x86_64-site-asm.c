// Checks the exact x86-64 machine code of a call site, a tail site and their
// trampolines, in plain, -mretpoline and -fPIC builds: the loaded pointer goes
// to r10, the site is a direct call/jmp to the trampoline, the trampoline's
// patchable jmp has a 4-byte aligned rel32 and falls back through r10.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -c %s -o %t.o
// RUN: llvm-objdump -d -r --no-show-raw-insn %t.o | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: llvm-objdump -d %t.o | FileCheck %s --check-prefix=BYTES
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -mretpoline -fPIC -c %s -o %t.r.o
// RUN: llvm-objdump -d -r --no-show-raw-insn %t.r.o | FileCheck %s --check-prefixes=CHECK,RETPOLINE
// RUN: llvm-objdump -d %t.r.o | FileCheck %s --check-prefix=RBYTES

typedef int (*handler_t)(int);
int dflt(int);
handler_t on_event __attribute__((dynamic_call)) = dflt;

// CHECK-LABEL: <call_site>:
// PLAIN:       movq {{.*}}(%rip), %r10
// PLAIN-NEXT:  R_X86_64_PC32 on_event-0x4
// RETPOLINE:   movq (%rip), %rax
// RETPOLINE-NEXT: R_X86_64_REX_GOTPCRELX on_event-0x4
// RETPOLINE-NEXT: movq (%rax), %r10
// CHECK-NEXT:  callq
// CHECK-NEXT:  R_X86_64_PLT32 [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]-0x4
int call_site(int v) { return on_event(v) + 1; }

// A call in tail position stays a tail jump.
// CHECK-LABEL: <tail_site>:
// CHECK:       movq {{.*}}%r10
// CHECK:       jmp
// CHECK-NEXT:  R_X86_64_PLT32 [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]-0x4
int tail_site(int v) { return on_event(v); }

// CHECK-LABEL: Disassembly of section .text.__dyncall_tramp:
// CHECK:       2: int3
// CHECK:       <[[T0]]>:
// CHECK-NEXT:  3: jmp 0x8
// PLAIN-NEXT:  8: jmpq *%r10
// RETPOLINE-NEXT: 8: jmp 0xd
// RETPOLINE-NEXT: R_X86_64_PC32 __dyncall_retpoline_r10-0x4
// CHECK:       <[[T1]]>:
// CHECK-NEXT:  13: jmp 0x18

// BYTES-LABEL: <__dyncall_tramp.{{[0-9a-f]+}}.0>:
// BYTES-NEXT:  3: e9 00 00 00 00 jmp
// BYTES-NEXT:  8: 41 ff e2 jmpq *%r10

// The retpoline thunk on r10 (COMDAT, shared by the module's trampolines).
// RBYTES-LABEL: <__dyncall_retpoline_r10>:
// RBYTES-NEXT: 0: e8 07 00 00 00 callq
// RBYTES-NEXT: 5: f3 90 pause
// RBYTES-NEXT: 7: 0f ae e8 lfence
// RBYTES-NEXT: a: eb f9 jmp
// RBYTES-NEXT: c: 4c 89 14 24 movq %r10, (%rsp)
// RBYTES-NEXT: 10: c3 retq
