// Checks the exact code the cross GCC plugins make of conditional sites (`if (k) k(...)` through a void key: `if`, the early return, `?:` with code after it): the test is gone and the site is one call, never a tail jump, of a trampoline whose slow path returns on a null chain: aarch64 (plain and -mbranch-protection=standard) `bl` with x18 and `cbz x18`; ppc64le `bl; nop` (the linker's TOC save and restore) with r11 and `cmpdi r11, 0; beqlr`; entries of kind 6; a call returning a value stays behind its test with a note.
// (per arch: gcc-plugin-<arch>: dyncall_gcc-<triple>.so)
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_gcc_aarch64 -O2 -c %s -o %t.a64.o -fopt-info-missed 2>&1 | FileCheck %s --check-prefix=MISSED %}
// RUN: %if gcc-plugin-aarch64 %{ llvm-objdump -d -r %t.a64.o | FileCheck %s --check-prefixes=AARCH64 %}
// RUN: %if gcc-plugin-aarch64 %{ llvm-objdump -s -j __dyncall_sites %t.a64.o | FileCheck %s --check-prefix=TABLE %}
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_gcc_aarch64 -O2 -mbranch-protection=standard -c %s -o %t.a64b.o %}
// RUN: %if gcc-plugin-aarch64 %{ llvm-objdump -d -r %t.a64b.o | FileCheck %s --check-prefixes=AARCH64,AARCH64-BTI %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_gcc_ppc64le -O2 -c %s -o %t.ppc.o -fopt-info-missed 2>&1 | FileCheck %s --check-prefix=MISSED %}
// RUN: %if gcc-plugin-ppc64le %{ llvm-objdump -d -r %t.ppc.o | FileCheck %s --check-prefixes=PPC64LE %}
// RUN: %if gcc-plugin-ppc64le %{ llvm-objdump -s -j __dyncall_sites %t.ppc.o | FileCheck %s --check-prefix=TABLE-PPC64LE %}

typedef void (*hook_t)(int);
hook_t on_packet __attribute__((dynamic_call));
typedef int (*ihook_t)(int);
ihook_t on_int __attribute__((dynamic_call));

// AARCH64-LABEL: <cond_if>:
// AARCH64-BTI-NEXT: d503233f paciasp
// AARCH64:       f9400032 ldr x18, [x1]
// AARCH64-NEXT:  R_AARCH64_LDST64_ABS_LO12_NC .bss
// AARCH64-NEXT:  94000000 bl
// AARCH64-NEXT:  R_AARCH64_CALL26 [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// AARCH64-NEXT:  a8c17bfd ldp x29, x30, [sp], #0x10
// PPC64LE-LABEL: <cond_if>:
// PPC64LE:       00 00 6b e9 ld 11, 0(11)
// PPC64LE-NOT:   cmp
// PPC64LE:       01 00 00 48 bl
// PPC64LE-NEXT:  R_PPC64_REL24 [[P0:__dyncall_tramp\.[0-9a-f]+\.0]]
// PPC64LE-NEXT:  00 00 00 60 nop
void cond_if(int v) { if (on_packet) on_packet(v); }

// The call in tail position stays a `bl`.
// AARCH64-LABEL: <cond_early>:
// AARCH64:       11000400 add w0, w0, #0x1
// AARCH64:       94000000 bl
// AARCH64-NEXT:  R_AARCH64_CALL26 __dyncall_tramp.{{[0-9a-f]+}}.1
// AARCH64-NEXT:  a8c17bfd ldp x29, x30, [sp], #0x10
// PPC64LE-LABEL: <cond_early>:
// PPC64LE-NOT:   cmp
// PPC64LE:       01 00 00 48 bl
// PPC64LE-NEXT:  R_PPC64_REL24 __dyncall_tramp.{{[0-9a-f]+}}.1
// PPC64LE-NEXT:  00 00 00 60 nop
void cond_early(int v) { if (!on_packet) return; on_packet(v + 1); }

// AARCH64-LABEL: <cond_ternary_more>:
// AARCH64:       94000000 bl
// AARCH64-NEXT:  R_AARCH64_CALL26 __dyncall_tramp.{{[0-9a-f]+}}.2
// AARCH64-NEXT:  0b130660 add w0, w19, w19, lsl #1
// PPC64LE-LABEL: <cond_ternary_more>:
// PPC64LE-NOT:   cmp
// PPC64LE:       01 00 00 48 bl
// PPC64LE-NEXT:  R_PPC64_REL24 __dyncall_tramp.{{[0-9a-f]+}}.2
// PPC64LE-NEXT:  00 00 00 60 nop
int cond_ternary_more(int v) { on_packet ? on_packet(v) : (void)0; return v * 3; }

// Not void: an ordinary site behind its test.
// AARCH64-LABEL: <not_void>:
// AARCH64:       cbnz x18
// AARCH64:       R_AARCH64_JUMP26 [[T3:__dyncall_tramp\.[0-9a-f]+\.3]]
// PPC64LE-LABEL: <not_void>:
// PPC64LE:       00 00 2b 2c cmpdi 11, 0
// PPC64LE:       R_PPC64_REL24 [[P3:__dyncall_tramp\.[0-9a-f]+\.3]]
// MISSED: cond-site-asm-cross.c:[[@LINE+1]]:42: missed: dyncall: null-tested call through on_int stays behind its test: the call returns a value
int not_void(int v) { if (on_int) return on_int(v); return 0; }

// AARCH64-LABEL: Disassembly of section .text.__dyncall_tramp:
// AARCH64:       <[[T0]]>:
// AARCH64-NEXT:  0: 14000001 b 0x4
// AARCH64-NEXT:  4: b4000072 cbz x18, 0x10
// AARCH64-NEXT:  8: aa1203f0 mov x16, x18
// AARCH64-NEXT:  c: d61f0200 br x16
// AARCH64-NEXT:  10: d65f03c0 ret
// AARCH64:       <[[T3]]>:
// AARCH64-NEXT:  14000001 b
// AARCH64-NEXT:  aa1203f0 mov x16, x18
// AARCH64-NEXT:  d61f0200 br x16
// AARCH64-EMPTY:
// PPC64LE-LABEL: Disassembly of section .text.__dyncall_tramp:
// PPC64LE:       <[[P0]]>:
// PPC64LE-NEXT:  0: 04 00 00 48 b 0x4
// PPC64LE-NEXT:  4: 00 00 2b 2c cmpdi 11, 0
// PPC64LE-NEXT:  8: 20 00 82 4d bclr 12, 2
// PPC64LE-NEXT:  c: a6 03 69 7d mtctr 11
// PPC64LE-NEXT:  10: 78 5b 6c 7d mr 12, 11
// PPC64LE-NEXT:  14: 20 04 80 4e bctr
// PPC64LE:       <[[P3]]>:
// PPC64LE-NEXT:  04 00 00 48 b
// PPC64LE-NEXT:  a6 03 69 7d mtctr 11
// PPC64LE-NEXT:  78 5b 6c 7d mr 12, 11
// PPC64LE-NEXT:  20 04 80 4e bctr
// PPC64LE-EMPTY:

// Entries (one section per function): kind 6, flags FRESH; not_void's 2 (tail).
// TABLE-COUNT-3: 0010 01060100
// TABLE:         0010 01020100
// ppc64le never sibcalls a trampoline: not_void's is kind 1.
// TABLE-PPC64LE-COUNT-3: 0010 01060100
// TABLE-PPC64LE:         0010 01010100
