// Checks the exact x86-64 code of conditional sites (`if (k) k(...)` through a void key, as `if`, early return and with code after it): the test and branch are gone, the loaded pointer goes to r10 and the site is one unconditional `call` of a trampoline whose slow path returns on a null r10 (plain and -mretpoline -fPIC builds); the table entries say kind 6 (cond); a call that returns a value stays behind its test with a remark; at -O0 (two reads of the key) nothing is folded and a remark says why.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -c %s -o %t.o -Rpass=dynamic-call -Rpass-missed=dynamic-call 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: llvm-objdump -d -r --no-show-raw-insn %t.o | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: llvm-objdump -d %t.o | FileCheck %s --check-prefix=BYTES
// RUN: llvm-objdump -s -j __dyncall_sites %t.o | FileCheck %s --check-prefix=TABLE
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -mretpoline -fPIC -c %s -o %t.r.o
// RUN: llvm-objdump -d -r --no-show-raw-insn %t.r.o | FileCheck %s --check-prefixes=CHECK,RETPOLINE
// RUN: llvm-objdump -d %t.r.o | FileCheck %s --check-prefix=RBYTES
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O0 -c %s -o %t.0.o -Rpass-missed=dynamic-call 2>&1 | FileCheck %s --check-prefix=O0 --implicit-check-not=remark:

typedef void (*hook_t)(int);
hook_t on_packet __attribute__((dynamic_call));
typedef int (*ihook_t)(int);
ihook_t on_int __attribute__((dynamic_call));

// CHECK-LABEL: <cond_if>:
// PLAIN:       movq {{.*}}(%rip), %r10
// PLAIN-NEXT:  R_X86_64_PC32 on_packet-0x4
// RETPOLINE:   movq (%rip), %rax
// RETPOLINE-NEXT: R_X86_64_REX_GOTPCRELX on_packet-0x4
// RETPOLINE-NEXT: movq (%rax), %r10
// CHECK-NEXT:  pushq %rax
// CHECK-NEXT:  callq
// CHECK-NEXT:  R_X86_64_PLT32 [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]-0x4
// CHECK-NEXT:  addq $0x8, %rsp
// CHECK-NEXT:  retq
// REMARK: [[@LINE+1]]:38: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.0 (fresh)
void cond_if(int v) { if (on_packet) on_packet(v); }

// The early return: the argument (v + 1) is computed unconditionally.
// CHECK-LABEL: <cond_early>:
// CHECK:       incl %edi
// CHECK-NEXT:  callq
// CHECK-NEXT:  R_X86_64_PLT32 [[T1:__dyncall_tramp\.[0-9a-f]+\.1]]-0x4
// CHECK-NEXT:  addq $0x8, %rsp
// CHECK-NEXT:  retq
// REMARK: [[@LINE+1]]:50: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.1 (fresh)
void cond_early(int v) { if (!on_packet) return; on_packet(v + 1); }

// Code after the `if`: the call is never a tail jump, so a NOP can stand for it.
// CHECK-LABEL: <cond_ternary_more>:
// CHECK:       callq
// CHECK-NEXT:  R_X86_64_PLT32 [[T2:__dyncall_tramp\.[0-9a-f]+\.2]]-0x4
// CHECK-NEXT:  leal (%rbx,%rbx,2), %eax
// REMARK: [[@LINE+1]]:44: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.2 (fresh)
int cond_ternary_more(int v) { on_packet ? on_packet(v) : (void)0; return v * 3; }

// Not void: an ordinary site behind its test.
// CHECK-LABEL: <not_void>:
// CHECK:       testq %r10, %r10
// CHECK-NEXT:  jne
// CHECK-NEXT:  R_X86_64_PLT32 [[T3:__dyncall_tramp\.[0-9a-f]+\.3]]-0x4
// REMARK: [[@LINE+2]]:42: remark: null-tested call through dynamic_call key 'on_int' stays behind its test: the call returns a value
// REMARK: [[@LINE+1]]:42: remark: call through dynamic_call key 'on_int' is now site __dyncall_tramp.{{[0-9a-f]+}}.3 (fresh)
int not_void(int v) { if (on_int) return on_int(v); return 0; }

// A loop that reloads the key every iteration (work() may store to it): the
// site stays fresh (a path back to the load runs the load again).
// CHECK-LABEL: <loop_with_work>:
// CHECK:       callq
// CHECK-NEXT:  R_X86_64_PLT32 work-0x4
// PLAIN-NEXT:  movq {{.*}}(%rip), %r10
// PLAIN-NEXT:  R_X86_64_PC32 on_packet-0x4
// CHECK:       callq
// CHECK-NEXT:  R_X86_64_PLT32 [[T4:__dyncall_tramp\.[0-9a-f]+\.4]]-0x4
// REMARK: [[@LINE+2]]:84: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.4 (fresh)
void work(int);
void loop_with_work(int n) { for (int i = 0; i < n; i++) { work(i); if (on_packet) on_packet(i); } }

// O0-COUNT-3: remark: null-tested call through dynamic_call key 'on_packet' stays behind its test: the call loads the key again after the test (two reads, as without optimization): the pointer called is not the one tested
// O0: remark: null-tested call through dynamic_call key 'on_int' stays behind its test: the call loads the key again
// O0: remark: null-tested call through dynamic_call key 'on_packet' stays behind its test: the call loads the key again

// The conditional trampoline: patchable jmp, then the null test.
// CHECK-LABEL: Disassembly of section .text.__dyncall_tramp:
// CHECK:       <[[T0]]>:
// CHECK-NEXT:  3: jmp 0x8
// CHECK-NEXT:  8: testq %r10, %r10
// PLAIN-NEXT:  b: je 0x10
// PLAIN-NEXT:  d: jmpq *%r10
// PLAIN-NEXT:  10: retq
// RETPOLINE-NEXT: b: je 0x12
// RETPOLINE-NEXT: d: jmp 0x12
// RETPOLINE-NEXT: R_X86_64_PC32 __dyncall_retpoline_r10-0x4
// RETPOLINE-NEXT: 12: retq
// CHECK:       <[[T3]]>:
// CHECK-NEXT:  jmp
// PLAIN-NEXT:  jmpq *%r10
// RETPOLINE-NEXT: jmp
// RETPOLINE-NEXT: R_X86_64_PC32 __dyncall_retpoline_r10-0x4

// BYTES-LABEL: <__dyncall_tramp.{{[0-9a-f]+}}.0>:
// BYTES-NEXT:  3: e9 00 00 00 00 jmp
// BYTES-NEXT:  8: 4d 85 d2 testq %r10, %r10
// BYTES-NEXT:  b: 74 03 je
// BYTES-NEXT:  d: 41 ff e2 jmpq *%r10
// BYTES-NEXT:  10: c3 retq

// RBYTES-LABEL: <__dyncall_tramp.{{[0-9a-f]+}}.0>:
// RBYTES-NEXT: 3: e9 00 00 00 00 jmp
// RBYTES-NEXT: 8: 4d 85 d2 testq %r10, %r10
// RBYTES-NEXT: b: 74 05 je
// RBYTES-NEXT: d: e9 00 00 00 00 jmp
// RBYTES-NEXT: 12: c3 retq

// Entries: version 1, kind 6 (cond), flags FRESH for the three conditional
// sites, kind 1 (call) for not_void's, kind 6 again for the loop's.
// TABLE:      0000 00000000 00000000 00000000 00000000
// TABLE-NEXT: 0010 01060100 00000000 00000000 00000000
// TABLE-NEXT: 0020 00000000 01060100 00000000 00000000
// TABLE-NEXT: 0030 00000000 00000000 01060100 00000000
// TABLE-NEXT: 0040 00000000 00000000 00000000 01010100
// TABLE-NEXT: 0050 00000000 00000000 00000000 00000000
// TABLE-NEXT: 0060 01060100
