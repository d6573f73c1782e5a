// Checks the code of a hook-list call site (DYNCALL_HOOKS_CALL, docs/hooks.md): with Clang it is one conditional site (the list's key loaded into r10, no test or branch, one `call` of a conditional trampoline; the data variant passes a zero placeholder in rdi); with GCC the same conditional site (kind 6 in the entry, the call's opcode at 8k+3, no test); and dyncall_hooks_add passes the key's address and the declaration's signature word (0x10000001: one integer register) to the runtime, which does not make the key escape (the site stays fresh).
// REQUIRES: dyncall-pass, gcc-plugin
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -c %s -o %t.o -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: llvm-objdump -d -r --no-show-raw-insn %t.o | FileCheck %s
// RUN: %dyncall_gcc -O2 -S %s -o - | FileCheck %s --check-prefix=GCC
#include <dyncall.h>

struct pkt;
DYNCALL_HOOKS(pkt_hooks, void, struct pkt *);
DYNCALL_HOOKS_DATA(ev_hooks, void, int, double);

// CHECK-LABEL: <fire>:
// CHECK-NEXT:  movq (%rip), %r10
// CHECK-NEXT:  R_X86_64_PC32 pkt_hooks-0x4
// CHECK-NEXT:  pushq %rax
// CHECK-NEXT:  callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.0-0x4
// CHECK-NEXT:  addq $0x8, %rsp
// CHECK-NEXT:  retq
// GCC-LABEL: fire:
// GCC:       movq pkt_hooks(%rip), %r10
// GCC-NOT:   test
// GCC:       .p2align 3
// GCC-NEXT:  .byte 0x0f,0x1f,0x00
// GCC-NEXT:  .Ldyncall_site
// GCC-NEXT:  #NO_APP
// GCC-NEXT:  call __dyncall_tramp.{{[0-9a-f]+}}.0
// GCC:       .byte 1, 6
// REMARK: [[@LINE+1]]:28: remark: call through dynamic_call key 'pkt_hooks' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.0 (fresh)
void fire(struct pkt *p) { DYNCALL_HOOKS_CALL(pkt_hooks, p); }

// CHECK-LABEL: <fire_ev>:
// CHECK-NEXT:  movq (%rip), %r10
// CHECK-NEXT:  R_X86_64_PC32 ev_hooks-0x4
// CHECK:       xorl %edi, %edi
// CHECK-NEXT:  callq
// CHECK-NEXT:  R_X86_64_PLT32 __dyncall_tramp.{{[0-9a-f]+}}.1-0x4
// GCC-LABEL: fire_ev:
// GCC:       movq ev_hooks(%rip), %r10
// GCC:       xorl %edi, %edi
// GCC-NOT:   test
// GCC:       call __dyncall_tramp.{{[0-9a-f]+}}.1
// GCC:       .byte 1, 6
// REMARK: [[@LINE+1]]:23: remark: call through dynamic_call key 'ev_hooks' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.1 (fresh)
void fire_ev(int x) { DYNCALL_HOOKS_DATA_CALL(ev_hooks, x, 0.5); }

// CHECK-LABEL: <add>:
// CHECK:       leaq (%rip), %rdi
// CHECK-NEXT:  R_X86_64_PC32 pkt_hooks-0x4
// CHECK-NEXT:  movl $0x10000001, %esi
// CHECK:       R_X86_64_PLT32 dyncall_hooks_add_-0x4
int add(void (*h)(struct pkt *)) { return dyncall_hooks_add(pkt_hooks, h); }
