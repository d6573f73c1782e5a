// Checks the exact x86-64 code GCC 12 and 11 make of conditional sites (`if (k) k(...)` through a void key: `if`, `!= NULL`, the early return, `?:` with code after it, a local copy, a loop): the test and branch are gone, r10 holds the loaded pointer and the site is one unconditional `call` (never a tail jump) whose 5 bytes sit in one aligned quadword (opcode at 8k+3), of a trampoline whose slow path returns on a null r10 (plain and -mindirect-branch=thunk); the entries say kind 6; forms it does not fold stay behind their test with a note in the Clang pass's words; -O0 folds too (GCC reads the key twice at every level; the plugin merges the two reads).
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_gcc.so; x86_64: the x86-64 shapes)
// RUN: %dyncall_gcc -O2 %gcc_arg-verbose -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: llvm-objdump -d -r %t.o | FileCheck %s --check-prefixes=CHECK,OPT,PLAIN
// RUN: llvm-objdump -s -j __dyncall_sites %t.o | FileCheck %s --check-prefix=TABLE
// RUN: %dyncall_gcc -O2 -mindirect-branch=thunk -fPIC -c %s -o %t.r.o
// RUN: llvm-objdump -d -r %t.r.o | FileCheck %s --check-prefixes=CHECK,OPT,RETPOLINE
// RUN: %dyncall_gcc -O0 %gcc_arg-verbose -c %s -o %t.0.o 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: llvm-objdump -d -r %t.0.o | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %dyncall_gcc -O2 -fopt-info-missed -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 %gcc11_arg-verbose -c %s -o %t.11.o 2>&1 | FileCheck %s --check-prefix=NOTE %}
// RUN: %if gcc11-plugin %{ llvm-objdump -d -r %t.11.o | FileCheck %s --check-prefixes=CHECK,OPT,PLAIN %}
// RUN: %if gcc11-plugin %{ llvm-objdump -s -j __dyncall_sites %t.11.o | FileCheck %s --check-prefix=TABLE %}

typedef void (*hook_t)(int);
hook_t on_packet __attribute__((dynamic_call));
typedef int (*ihook_t)(int);
ihook_t on_int __attribute__((dynamic_call));
void work(int);

// The site: the call's opcode at 8k+3, its 5 bytes in one quadword.
// CHECK-LABEL: <cond_if>:
// PLAIN:       4c 8b 15 00 00 00 00 movq (%rip), %r10
// PLAIN-NEXT:  R_X86_64_PC32 on_packet-0x4
// RETPOLINE:   R_X86_64_REX_GOTPCRELX on_packet-0x4
// RETPOLINE-NEXT: 4c 8b 10 movq (%rax), %r10
// O0:          R_X86_64_PC32 on_packet-0x4
// O0:          %r10
// CHECK:       {{^ *[0-9a-f]*[3b]}}: e8 00 00 00 00 callq
// CHECK-NEXT:  R_X86_64_PLT32 [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]-0x4
// OPT-NEXT:    addq $0x8, %rsp
// CHECK-NOT:   <
// CHECK-NOT:   test
// NOTE: [[@LINE+1]]:38: note: dyncall: call through {{.*}}on_packet{{.*}} becomes a conditional call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} (fresh)
void cond_if(int v) { if (on_packet) on_packet(v); }

// CHECK-LABEL: <cond_ne>:
// CHECK-NOT:   test
// CHECK:       {{^ *[0-9a-f]*[3b]}}: e8 00 00 00 00 callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.1-0x4
// NOTE: [[@LINE+1]]:43: note: dyncall: call through {{.*}}on_packet{{.*}} becomes a conditional call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.1{{.*}} (fresh)
void cond_ne(int v) { if (on_packet != 0) on_packet(v); }

// The early return: the argument (v + 1) is computed unconditionally, and
// the call in tail position stays a call.
// CHECK-LABEL: <cond_early>:
// CHECK-NOT:   test
// CHECK:       {{^ *[0-9a-f]*[3b]}}: e8 00 00 00 00 callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.2-0x4
// NOTE: [[@LINE+1]]:50: note: dyncall: call through {{.*}}on_packet{{.*}} becomes a conditional call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.2{{.*}} (fresh)
void cond_early(int v) { if (!on_packet) return; on_packet(v + 1); }

// CHECK-LABEL: <cond_ternary_more>:
// CHECK-NOT:   test
// CHECK:       {{^ *[0-9a-f]*[3b]}}: e8 00 00 00 00 callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.3-0x4
// NOTE: [[@LINE+1]]:44: note: dyncall: call through {{.*}}on_packet{{.*}} becomes a conditional call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.3{{.*}} (fresh)
int cond_ternary_more(int v) { on_packet ? on_packet(v) : (void)0; return v * 3; }

// Read once into a local: the call through the tested value.
// CHECK-LABEL: <local_copy>:
// CHECK-NOT:   test
// CHECK:       {{^ *[0-9a-f]*[3b]}}: e8 00 00 00 00 callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.4-0x4
// NOTE: [[@LINE+1]]:55: note: dyncall: call through {{.*}}on_packet{{.*}} becomes a conditional call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.4{{.*}} (fresh)
void local_copy(int v) { hook_t f = on_packet; if (f) f(v); }

// A loop that reloads the key every iteration (work() may store to it).
// CHECK-LABEL: <loop_with_work>:
// CHECK:       R_X86_64_PLT32 work-0x4
// CHECK-NOT:   test{{.*}}%r10
// CHECK:       {{^ *[0-9a-f]*[3b]}}: e8 00 00 00 00 callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.5-0x4
// NOTE: [[@LINE+1]]:84: note: dyncall: call through {{.*}}on_packet{{.*}} becomes a conditional call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.5{{.*}} (fresh)
void loop_with_work(int n) { for (int i = 0; i < n; i++) { work(i); if (on_packet) on_packet(i); } }

// Not folded, each an ordinary site behind its test, with the reason.
// CHECK-LABEL: <not_void>:
// OPT:         test{{q?}} %r10, %r10
// NOTE: [[@LINE+3]]:42: note: dyncall: null-tested call through {{.*}}on_int{{.*}} stays behind its test: the call returns a value
// NOTE: [[@LINE+2]]:42: note: dyncall: call through {{.*}}on_int{{.*}} becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.6{{.*}} (fresh)
// MISSED: [[@LINE+1]]:42: missed: dyncall: null-tested call through on_int stays behind its test: the call returns a value
int not_void(int v) { if (on_int) return on_int(v); return 0; }
// NOTE: [[@LINE+2]]:37: note: dyncall: null-tested call through {{.*}}on_packet{{.*}} stays behind its test: the guarded block does more than the call
// MISSED: [[@LINE+1]]:37: missed: dyncall: null-tested call through on_packet stays behind its test: the guarded block does more than the call
void more(int v) { if (on_packet) { on_packet(v); work(v); } }
// NOTE: [[@LINE+2]]:38: note: dyncall: null-tested call through {{.*}}on_packet{{.*}} stays behind its test: the guarded block computes something that is not safe to compute when the pointer is null
// MISSED: [[@LINE+1]]:38: missed: dyncall: null-tested call through on_packet stays behind its test: the guarded block computes something that is not safe to compute when the pointer is null
void unsafe(int *p) { if (on_packet) on_packet(*p); }
// NOTE: [[@LINE+2]]:58: note: dyncall: null-tested call through {{.*}}on_packet{{.*}} stays behind its test: the call loads the key again after the test, and the two reads cannot be one (a volatile or atomic read, or something in between may store): the pointer called may not be the one tested
// MISSED: [[@LINE+1]]:58: missed: dyncall: null-tested call through on_packet stays behind its test: the call loads the key again
void store_between(int v) { if (on_packet) { on_int = 0; on_packet(v); } }
// NOTE: [[@LINE+2]]:40: note: dyncall: null-tested call through {{.*}}on_packet{{.*}} stays behind its test: the guarded block does not rejoin the path that skips it
// MISSED: [[@LINE+1]]:40: missed: dyncall: null-tested call through on_packet stays behind its test: the guarded block does not rejoin
void with_else(int v) { if (on_packet) on_packet(v); else work(v); }

// The conditional trampoline: the patchable jmp, then the null test.
// CHECK-LABEL: Disassembly of section .text.__dyncall_tramp:
// CHECK:       <[[T0]]>:
// CHECK-NEXT:  3: e9 00 00 00 00 jmp
// CHECK-NEXT:  8: 4d 85 d2 testq %r10, %r10
// PLAIN-NEXT:  b: 74 03 je
// PLAIN-NEXT:  d: 41 ff e2 jmpq *%r10
// PLAIN-NEXT:  10: c3 retq
// O0-NEXT:     b: 74 03 je
// O0-NEXT:     d: 41 ff e2 jmpq *%r10
// O0-NEXT:     10: c3 retq
// RETPOLINE-NEXT: b: 74 05 je
// RETPOLINE-NEXT: d: e9 00 00 00 00 jmp
// RETPOLINE-NEXT: R_X86_64_PC32 __dyncall_retpoline_r10-0x4
// RETPOLINE-NEXT: 12: c3 retq

// Entries (one section per function): version 1, kind 6, flags FRESH for
// the six folded sites; the others are ordinary call (1) or tail (2) sites.
// TABLE-COUNT-6: 0010 01060100
// TABLE-NOT:     0010 0106
