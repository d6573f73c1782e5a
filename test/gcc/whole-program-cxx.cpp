// Checks the exact assembly of whole-program mode for C++ on x86-64, aarch64 and ppc64le at -O2: a virtual call (OBJ_TYPE_REF), a call through a pointer to member function (virtual or not: both paths reach one site) and a virtual tail call (jmp/b to the trampoline; ppc64le: bl; nop, never a sibcall) are sites of the whole-program key; the verbose notes; -O0 and GCC 11 convert the same calls.
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_gcc.so; x86_64: the host GCC's target; the cross blocks run when their plugin exists)
// RUN: %dyncall_gxx -O2 %gcc_arg-no-inline-guard %gcc_arg-whole-program %gcc_arg-verbose -S %s -o %t.s 2> %t.notes
// RUN: FileCheck %s --check-prefixes=CHECK,X86_64 < %t.s
// RUN: FileCheck %s --check-prefix=NOTE < %t.notes
// RUN: %dyncall_gxx -O0 %gcc_arg-no-inline-guard %gcc_arg-whole-program -S %s -o - | FileCheck %s --check-prefix=O0
// RUN: %if gcc11-plugin %{ %dyncall_gxx11 -O2 %gcc11_arg-no-inline-guard %gcc11_arg-whole-program -S %s -o - | FileCheck %s --check-prefixes=CHECK,X86_64 %}
// RUN: %if gcc-plugin-aarch64 %{ aarch64-linux-gnu-g++-12 -fplugin=%plugin_dir/aarch64-linux-gnu/dyncall_gcc.so %gcc_arg-no-inline-guard %gcc_arg-whole-program -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64 %}
// RUN: %if gcc-plugin-ppc64le %{ powerpc64le-linux-gnu-g++-12 -fplugin=%plugin_dir/powerpc64le-linux-gnu/dyncall_gcc.so %gcc_arg-no-inline-guard %gcc_arg-whole-program -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE %}

namespace ns {
struct Base {
	virtual int f(int) = 0;
	virtual ~Base();
};
struct S {
	int v;
	int get(int x);
};

int vcall(Base *b, int x) { return b->f(x) + 1; }
// NOTE: whole-program-cxx.cpp:[[@LINE-1]]:40: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.0{{.*}} (whole program)
// CHECK-LABEL: _ZN2ns5vcallEPNS_4BaseEi:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// X86_64:        movq (%rdi), %rax
// X86_64-NEXT:   movq (%rax), %r10
// X86_64:        .p2align 2
// X86_64-NEXT:   .byte 0x0f,0x1f,0x00
// X86_64-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// X86_64-NEXT:   #NO_APP
// X86_64-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.0]]
// AARCH64:       ldr x2, [x0]
// AARCH64-NEXT:  ldr x18, [x2]
// AARCH64-NEXT:  #APP
// AARCH64-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// AARCH64-NEXT:  #NO_APP
// AARCH64-NEXT:  bl [[T:__dyncall_tramp\.[0-9a-f]+\.0]]
// PPC64LE:       ld 9,0(3)
// PPC64LE-NEXT:  ld 11,0(9)
// PPC64LE:      [[S:\.Ldyncall_site[0-9]+]]:
// PPC64LE-NEXT:  #NO_APP
// PPC64LE-NEXT:  bl [[T:__dyncall_tramp\.[0-9a-f]+\.0]]
// PPC64LE-NEXT:  nop
// CHECK:         .pushsection __dyncall_sites,"ao",@progbits,[[F]]
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL:__dyncall_keycell\.[0-9a-f]+\.0]] - .
// X86_64-NEXT:   .long [[F]] - .
// AARCH64-NEXT:  .long [[F]] - .
// PPC64LE-NEXT:  .long [[F]] - ([[F]] - _ZN2ns5vcallEPNS_4BaseEi) - .
// CHECK-NEXT:    .byte 1, 1
// CHECK-NEXT:    .short 2

int pmf_call(S *s, int (S::*m)(int), int x) { return (s->*m)(x) + 2; }
// NOTE: whole-program-cxx.cpp:[[@LINE-1]]:61: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.1{{.*}} (whole program)
// CHECK-LABEL: _ZN2ns8pmf_callEPNS_1SEMS0_FiiEi:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// X86_64:        movq %rsi, %r10
// X86_64:        je .L[[J:[0-9]+]]
// X86_64-NEXT:   movq (%rdi), %rax
// X86_64-NEXT:   movq -1(%rax,%r10), %r10
// X86_64-NEXT: .L[[J]]:
// X86_64-NEXT:   movl %{{ecx|r8d}}, %esi
// X86_64-NEXT:   #APP
// X86_64-NEXT:   .p2align 2
// X86_64-NEXT:   .byte 0x0f,0x1f,0x00
// X86_64-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// X86_64-NEXT:   #NO_APP
// X86_64-NEXT:   call [[T:__dyncall_tramp\.[0-9a-f]+\.1]]
// AARCH64:       mov x18, x1
// AARCH64:       tbz x2, 0, .L[[J:[0-9]+]]
// AARCH64-NEXT:  ldr x2, [x4, x5]
// AARCH64-NEXT:  ldr x18, [x2, x18]
// AARCH64-NEXT: .L[[J]]:
// AARCH64-NEXT:  #APP
// AARCH64-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// AARCH64-NEXT:  #NO_APP
// AARCH64-NEXT:  bl [[T:__dyncall_tramp\.[0-9a-f]+\.1]]
// PPC64LE:       mr 11,4
// PPC64LE:       beq 0,.L[[J:[0-9]+]]
// PPC64LE:       ld 11,0(9)
// PPC64LE-NEXT: .L[[J]]:
// PPC64LE-NEXT:  #APP
// PPC64LE-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// PPC64LE-NEXT:  #NO_APP
// PPC64LE-NEXT:  bl [[T:__dyncall_tramp\.[0-9a-f]+\.1]]
// PPC64LE-NEXT:  nop
// CHECK:         .pushsection __dyncall_sites,"ao",@progbits,[[F]]
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// CHECK-NEXT:    .long [[F]]
// CHECK-NEXT:    .byte 1, 1
// CHECK-NEXT:    .short 2

int vtail(Base *b, int x) { return b->f(x); }
// NOTE: whole-program-cxx.cpp:[[@LINE-1]]:40: note: dyncall: indirect call becomes a call to {{.*}}__dyncall_tramp.{{[0-9a-f]+}}.2{{.*}} (whole program)
// CHECK-LABEL: _ZN2ns5vtailEPNS_4BaseEi:
// CHECK:         [[F:\.Ldyncall_func[0-9]+]]:
// X86_64:        movq (%rdi), %rax
// X86_64-NEXT:   movq (%rax), %r10
// X86_64-NEXT:   #APP
// X86_64-NEXT:   .p2align 2
// X86_64-NEXT:   .byte 0x0f,0x1f,0x00
// X86_64-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// X86_64-NEXT:   #NO_APP
// X86_64-NEXT:   jmp [[T:__dyncall_tramp\.[0-9a-f]+\.2]]
// AARCH64:       ldr x2, [x0]
// AARCH64-NEXT:  ldr x18, [x2]
// AARCH64-NEXT:  #APP
// AARCH64-NEXT: [[S:\.Ldyncall_site[0-9]+]]:
// AARCH64-NEXT:  #NO_APP
// AARCH64-NEXT:  b [[T:__dyncall_tramp\.[0-9a-f]+\.2]]
// PPC64LE:       ld 11,0(9)
// PPC64LE:      [[S:\.Ldyncall_site[0-9]+]]:
// PPC64LE-NEXT:  #NO_APP
// PPC64LE-NEXT:  bl [[T:__dyncall_tramp\.[0-9a-f]+\.2]]
// PPC64LE-NEXT:  nop
// CHECK:         .pushsection __dyncall_sites,"ao",@progbits,[[F]]
// CHECK-NEXT:    .p2align 2
// CHECK-NEXT:    .long [[S]] - .
// CHECK-NEXT:    .long [[T]] - .
// CHECK-NEXT:    .long [[CELL]] - .
// CHECK-NEXT:    .long [[F]]
// X86_64-NEXT:   .byte 1, 2
// AARCH64-NEXT:  .byte 1, 2
// PPC64LE-NEXT:  .byte 1, 1
// CHECK-NEXT:    .short 2
} // namespace ns

// CHECK:       [[CELL]]:
// X86_64-NEXT:   .quad __dyncall_wpkey.{{[0-9a-f]+}}
// AARCH64-NEXT:  .xword __dyncall_wpkey.{{[0-9a-f]+}}
// PPC64LE-NEXT:  .quad __dyncall_wpkey.{{[0-9a-f]+}}

// At -O0 the same three calls are sites (the pointers are reloaded from
// the stack into r10).
// O0-LABEL: _ZN2ns5vcallEPNS_4BaseEi:
// O0:         movq (%rax), %rcx
// O0:         movq %rcx, %r10
// O0:         call __dyncall_tramp.{{[0-9a-f]+}}.0
// O0-LABEL: _ZN2ns8pmf_callEPNS_1SEMS0_FiiEi:
// O0:         call __dyncall_tramp.{{[0-9a-f]+}}.1
// O0-LABEL: _ZN2ns5vtailEPNS_4BaseEi:
// O0:         call __dyncall_tramp.{{[0-9a-f]+}}.2
