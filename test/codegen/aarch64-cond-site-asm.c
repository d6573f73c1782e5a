// Checks the exact aarch64 code of conditional sites (Clang; `if (k) k(...)` through a void key as `if`, `!= NULL`, early return, `?:` with code after it, a local copy): the test and branch are gone, x18 holds the loaded pointer and the site is one unconditional `bl` (never a tail `b`) of a trampoline whose slow path returns on a null x18 (`cbz x18`), also with -mbranch-protection=standard (no landing pad: only direct branches reach it; PAC: x30 untouched); the entries say kind 6; a call returning a value stays behind its test with a remark.
// REQUIRES: dyncall-pass
// (dyncall-pass: the Clang plugins; only compiles, for the aarch64 target)
// RUN: %dyncall_clang --target=aarch64-linux-gnu -O2 -c %s -o %t.o -Rpass=dynamic-call -Rpass-missed=dynamic-call 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: llvm-objdump -d -r %t.o | FileCheck %s --check-prefixes=CHECK,PLAIN --implicit-check-not=paciasp
// RUN: llvm-objdump -s -j __dyncall_sites %t.o | FileCheck %s --check-prefix=TABLE
// RUN: %dyncall_clang --target=aarch64-linux-gnu -O2 -mbranch-protection=standard -c %s -o %t.bti.o
// RUN: llvm-objdump -d -r %t.bti.o | FileCheck %s --check-prefixes=CHECK,BTI

typedef void (*hook_t)(int);
hook_t on_packet __attribute__((dynamic_call));
typedef int (*ihook_t)(int);
ihook_t on_int __attribute__((dynamic_call));

// PLAIN-LABEL: <cond_if>:
// BTI-LABEL:   <cond_if>:
// BTI-NEXT:    d503233f paciasp
// CHECK:       f9400112 ldr x18, [x8]
// CHECK-NEXT:  R_AARCH64_LDST64_ABS_LO12_NC on_packet
// CHECK-NEXT:  94000000 bl
// CHECK-NEXT:  R_AARCH64_CALL26 [[T0:__dyncall_tramp\.[0-9a-f]+\.0]]
// CHECK-NOT:   cb
// CHECK:       d65f03c0 ret
// REMARK: [[@LINE+1]]:38: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.0 (fresh)
void cond_if(int v) { if (on_packet) on_packet(v); }

// CHECK-LABEL: <cond_ne>:
// CHECK:       ldr x18, [x8]
// CHECK-NEXT:  R_AARCH64_LDST64_ABS_LO12_NC on_packet
// CHECK-NEXT:  94000000 bl
// CHECK-NEXT:  R_AARCH64_CALL26 __dyncall_tramp.{{[0-9a-f]+}}.1
// REMARK: [[@LINE+1]]:43: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.1 (fresh)
void cond_ne(int v) { if (on_packet != 0) on_packet(v); }

// The early return: the argument computed unconditionally, a `bl` in tail
// position (a NOP cannot stand for a `b`).
// CHECK-LABEL: <cond_early>:
// CHECK:       add w0, w0, #0x1
// CHECK:       94000000 bl
// CHECK-NEXT:  R_AARCH64_CALL26 __dyncall_tramp.{{[0-9a-f]+}}.2
// CHECK-NEXT:  ldp x29, x30
// REMARK: [[@LINE+1]]:50: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.2 (fresh)
void cond_early(int v) { if (!on_packet) return; on_packet(v + 1); }

// CHECK-LABEL: <cond_ternary_more>:
// CHECK:       94000000 bl
// CHECK-NEXT:  R_AARCH64_CALL26 __dyncall_tramp.{{[0-9a-f]+}}.3
// CHECK-NEXT:  add w0, w19, w19, lsl #1
// REMARK: [[@LINE+1]]:44: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.3 (fresh)
int cond_ternary_more(int v) { on_packet ? on_packet(v) : (void)0; return v * 3; }

// Not void: an ordinary site behind its test.
// CHECK-LABEL: <not_void>:
// CHECK:       cbz x18
// CHECK:       R_AARCH64_JUMP26 [[T4:__dyncall_tramp\.[0-9a-f]+\.4]]
// REMARK: [[@LINE+2]]:42: remark: null-tested call through dynamic_call key 'on_int' stays behind its test: the call returns a value
// REMARK: [[@LINE+1]]:42: remark: call through dynamic_call key 'on_int' is now site __dyncall_tramp.{{[0-9a-f]+}}.4 (fresh)
int not_void(int v) { if (on_int) return on_int(v); return 0; }

// CHECK-LABEL: <local_copy>:
// CHECK:       94000000 bl
// CHECK-NEXT:  R_AARCH64_CALL26 __dyncall_tramp.{{[0-9a-f]+}}.5
// REMARK: [[@LINE+1]]:55: remark: call through dynamic_call key 'on_packet' is now conditional site __dyncall_tramp.{{[0-9a-f]+}}.5 (fresh)
void local_copy(int v) { hook_t f = on_packet; if (f) f(v); }

// The conditional trampoline: the patchable `b`, then the null test, the
// slow path and `ret`; the ordinary one has no test.
// CHECK-LABEL: Disassembly of section .text.__dyncall_tramp:
// CHECK:       <[[T0]]>:
// CHECK-NEXT:  0: 14000001 b 0x4
// CHECK-NEXT:  4: b4000072 cbz x18, 0x10
// CHECK-NEXT:  8: aa1203f0 mov x16, x18
// CHECK-NEXT:  c: d61f0200 br x16
// CHECK-NEXT:  10: d65f03c0 ret
// CHECK:       <[[T4]]>:
// CHECK-NEXT:  14000001 b
// CHECK-NEXT:  aa1203f0 mov x16, x18
// CHECK-NEXT:  d61f0200 br x16
// CHECK-EMPTY:

// Entries: version 1, kind 6 (cond), flags FRESH; not_void's kind 1 (call).
// TABLE:      0000 00000000 00000000 00000000 00000000
// TABLE-NEXT: 0010 01060100 00000000 00000000 00000000
// TABLE-NEXT: 0020 00000000 01060100 00000000 00000000
// TABLE-NEXT: 0030 00000000 00000000 01060100 00000000
// TABLE-NEXT: 0040 00000000 00000000 00000000 01060100
// TABLE-NEXT: 0050 00000000 00000000 00000000 00000000
// TABLE-NEXT: 0060 01010100 00000000 00000000 00000000
// TABLE-NEXT: 0070 00000000 01060100
