// Checks the exact x86-64 code GCC 12 and 11 make of the inline guard of whole-program sites (docs/abi.md "Inline guards"): the loaded pointer in r10 compared with the site's literal (`cmpq %r10, lit(%rip)`), `jne` to the miss block, the hit call (or tail jmp) of the hit trampoline labelled and padded like any site (rel32 4-byte aligned), the miss block = the unchanged site; the hit trampoline (an ordinary trampoline, file-local, emitted with the function) and the entries: the site's, then kind 7 naming the hit call, the hit trampoline and the literal; the literal is writable data holding its own address; the same with -fPIE -mindirect-branch=thunk and -fcf-protection; none at -O0, -Os or with -no-inline-guard.
// REQUIRES: gcc-plugin, gcc11-plugin, x86_64
// (gcc-plugin, gcc11-plugin: dyncall_gcc.so and dyncall_gcc11.so; x86_64: the host GCC's target)
// RUN: %dyncall_gcc -O2 %gcc_arg-whole-program -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^#' | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: %dyncall_gcc -O2 -fPIE -mindirect-branch=thunk %gcc_arg-whole-program -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^#' | FileCheck %s --check-prefixes=CHECK,THUNK
// RUN: %dyncall_gcc -O2 -fcf-protection=full %gcc_arg-whole-program -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^#' | FileCheck %s --check-prefixes=CHECK,PLAIN,IBT
// RUN: %dyncall_gcc11 -O2 %gcc11_arg-whole-program -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^#' | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: %dyncall_gcc11 -O2 -fPIE -mindirect-branch=thunk %gcc11_arg-whole-program -fno-asynchronous-unwind-tables -S %s -o - | grep -v '^#' | FileCheck %s --check-prefixes=CHECK,THUNK
// RUN: %dyncall_gcc -O0 %gcc_arg-whole-program -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit
// RUN: %dyncall_gcc -Os %gcc_arg-whole-program -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit
// RUN: %dyncall_gcc -O2 %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s --check-prefix=NOGUARD --implicit-check-not=__dyncall_hit --implicit-check-not=__dyncall_lit

typedef int (*fn_t)(int);
struct ops {
  fn_t read;
  fn_t write;
};

// CHECK-LABEL: field:
// CHECK-NEXT: .Ldyncall_func[[F:[0-9]+]]:
// IBT-NEXT: endbr64
// CHECK-NEXT: movq %rdi, %[[R:[a-z0-9]+]]
// CHECK-NEXT: subq $8, %rsp
// CHECK-NEXT: movl %esi, %edi
// CHECK-NEXT: movq (%[[R]]), %r10
// CHECK-NEXT: cmpq %r10, __dyncall_lit.[[UNIT:[0-9a-f]+]].0(%rip)
// CHECK-NEXT: jne .L[[MISS:[0-9]+]]
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .byte 0x0f,0x1f,0x00
// CHECK-NEXT: .Ldyncall_site[[HIT:[0-9]+]]:
// CHECK-NEXT: call __dyncall_hit.[[UNIT]].0
// CHECK-NEXT: .L[[RET:[0-9]+]]:
// CHECK-NEXT: addl $1, %eax
// CHECK-NEXT: addq $8, %rsp
// CHECK-NEXT: ret
// CHECK-NEXT: .L[[MISS]]:
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .byte 0x0f,0x1f,0x00
// CHECK-NEXT: .Ldyncall_site[[SITE:[0-9]+]]:
// CHECK-NEXT: call __dyncall_tramp.[[UNIT]].0
// CHECK-NEXT: jmp .L[[RET]]
// The hit trampoline, file-local (no .globl), the ABI's bytes:
// CHECK-NEXT: .pushsection .text.__dyncall_tramp,"ax",@progbits
// CHECK-NEXT: .p2align 3
// CHECK-NEXT: .byte 0xcc,0xcc,0xcc
// CHECK-NEXT: .type __dyncall_hit.[[UNIT]].0, @function
// CHECK-NEXT: __dyncall_hit.[[UNIT]].0:
// CHECK-NEXT: .byte 0xe9
// CHECK-NEXT: .long 1f - . - 4
// CHECK-NEXT: 1:
// PLAIN-NEXT: jmp *%r10
// THUNK-NEXT: .byte 0xe9
// THUNK-NEXT: .long __dyncall_retpoline_r10 - . - 4
// CHECK-NEXT: .size __dyncall_hit.[[UNIT]].0, . - __dyncall_hit.[[UNIT]].0
// CHECK-NEXT: .popsection
// The site's entry (kind 1), then its guard's (kind 7), same flags:
// CHECK-NEXT: .pushsection __dyncall_sites,"ao",@progbits,.Ldyncall_func[[F]]
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .long .Ldyncall_site[[SITE]] - .
// CHECK-NEXT: .long __dyncall_tramp.[[UNIT]].0 - .
// CHECK-NEXT: .long __dyncall_keycell.[[UNIT]].0 - .
// CHECK-NEXT: .long .Ldyncall_func[[F]] - .
// CHECK-NEXT: .byte 1, 1
// CHECK-NEXT: .short [[FLAGS:[0-9]+]]
// CHECK-NEXT: .popsection
// CHECK-NEXT: .pushsection __dyncall_sites,"ao",@progbits,.Ldyncall_func[[F]]
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .long .Ldyncall_site[[HIT]] - .
// CHECK-NEXT: .long __dyncall_hit.[[UNIT]].0 - .
// CHECK-NEXT: .long __dyncall_lit.[[UNIT]].0 - .
// CHECK-NEXT: .long .Ldyncall_func[[F]] - .
// CHECK-NEXT: .byte 1, 7
// CHECK-NEXT: .short [[FLAGS]]
// CHECK-NEXT: .popsection
// NOGUARD-LABEL: field:
// NOGUARD: call{{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0
int field(struct ops *o, int x) { return o->read(x) + 1; }

// Tail sites: both paths stay sibcalls, entries kind 2 and 7.
// CHECK-LABEL: tail:
// CHECK-NEXT: .Ldyncall_func[[F:[0-9]+]]:
// IBT-NEXT: endbr64
// CHECK-NEXT: movq %rdi, %r10
// CHECK-NEXT: cmpq %r10, __dyncall_lit.[[UNIT]].1(%rip)
// CHECK-NEXT: movl %esi, %edi
// CHECK-NEXT: jne .L[[MISS:[0-9]+]]
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .byte 0x0f,0x1f,0x00
// CHECK-NEXT: .Ldyncall_site[[HIT:[0-9]+]]:
// CHECK-NEXT: jmp __dyncall_hit.[[UNIT]].1
// CHECK-NEXT: .L[[MISS]]:
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .byte 0x0f,0x1f,0x00
// CHECK-NEXT: .Ldyncall_site[[SITE:[0-9]+]]:
// CHECK-NEXT: jmp __dyncall_tramp.[[UNIT]].1
// CHECK: .long .Ldyncall_site[[SITE]] - .
// CHECK-NEXT: .long __dyncall_tramp.[[UNIT]].1 - .
// CHECK: .byte 1, 2
// CHECK: .long .Ldyncall_site[[HIT]] - .
// CHECK-NEXT: .long __dyncall_hit.[[UNIT]].1 - .
// CHECK-NEXT: .long __dyncall_lit.[[UNIT]].1 - .
// CHECK: .byte 1, 7
int tail(fn_t f, int x) { return f(x); }

// The literal: 8-byte aligned writable data (.data.rel.local, not RELRO)
// holding its own address.
// CHECK: .section .data.rel.local,"aw"
// CHECK: .align 8
// CHECK-NEXT: .type __dyncall_lit.[[UNIT]].1, @object
// CHECK-NEXT: .size __dyncall_lit.[[UNIT]].1, 8
// CHECK-NEXT: __dyncall_lit.[[UNIT]].1:
// CHECK-NEXT: .quad __dyncall_lit.[[UNIT]].1
