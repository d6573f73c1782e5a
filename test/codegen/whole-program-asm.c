// Checks the machine code of whole-program sites per arch: the loaded pointer goes to the static-chain register (x86_64 r10, aarch64 x18, ppc64le r11), the call or tail branch targets the site's trampoline (ppc64le: `bl; nop`, no sibcall), as for any dyncall site. (x86-64 with -dyncall-inline-guard=0: the inline guard is x86_64-inline-guard-asm.c)
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -mllvm -dyncall-inline-guard=0 -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,X86_64
// RUN: %dyncall_clang --target=aarch64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64
// RUN: %dyncall_clang --target=powerpc64le-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE

typedef int (*fn_t)(int);
struct ops {
  fn_t read;
  fn_t write;
};

// CHECK-LABEL: field:
// X86_64: movq (%rdi), %r10
// X86_64-NEXT: movl %esi, %edi
// X86_64-NEXT: callq __dyncall_tramp.[[UNIT:[0-9a-f]+]].0
// AARCH64: ldr x18, [x0]
// AARCH64-NEXT: mov w0, w1
// AARCH64-NEXT: bl __dyncall_tramp.[[UNIT:[0-9a-f]+]].0
// PPC64LE: ld 11, 0(3)
// PPC64LE-NEXT: mr 3, 4
// PPC64LE-NEXT: bl __dyncall_tramp.[[UNIT:[0-9a-f]+]].0
// PPC64LE-NEXT: nop
int field(struct ops *o, int x) { return o->read(x) + 1; }

// CHECK-LABEL: tail:
// X86_64: movq %rdi, %r10
// X86_64-NEXT: movl %esi, %edi
// X86_64-NEXT: jmp __dyncall_tramp.[[UNIT]].1 # TAILCALL
// AARCH64: mov x18, x0
// AARCH64-NEXT: mov w0, w1
// AARCH64-NEXT: b __dyncall_tramp.[[UNIT]].1
// PPC64LE: mr 11, 3
// PPC64LE-NEXT: mr 3, 4
// PPC64LE-NEXT: bl __dyncall_tramp.[[UNIT]].1
// PPC64LE-NEXT: nop
int tail(fn_t f, int x) { return f(x); }
