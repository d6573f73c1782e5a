// Checks the ppc64le prologue of Clang 19 under --dyncall-prologues (its driver refuses -fpatchable-function-entry for ppc64le; dyncall-cc asks for XRay entry sleds instead): the sled at the local entry (after the global entry's TOC set-up when the function has one, at the function's one entry when it has none), `b .+28` over `nop; std 0,-8(1); mflr 0; bl __xray_FunctionEntry; nop; mtlr 0`, no exit sled; one xray_instr_map entry per function (SHF_LINK_ORDER to the function's section, 32 bytes: the sled and the function as R_PPC64_REL64, kind 0, version 2); DYNCALL_NOT_PATCHABLE (xray_never_instrument) leaves none; without --dyncall-prologues only DYNCALL_PATCHABLE (xray_always_instrument) functions get a sled.  And the linked sled: the `nop` after `bl` becomes the TOC restore when the linker calls libdyncall's __xray_FunctionEntry through a stub.
// REQUIRES: dyncall-runtime-ppc64le
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -c %S/Inputs/shape-xray.c -o %t.o
// RUN: llvm-objdump -dr %t.o | FileCheck %s
// RUN: llvm-readelf -S -r %t.o | FileCheck %s --check-prefix=MAP
// RUN: llvm-readelf -x xray_instr_map %t.o | FileCheck %s --check-prefix=ENTRY
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu -O2 -c %S/Inputs/shape-xray.c -o %t.sel.o
// RUN: llvm-objdump -d %t.sel.o | FileCheck %s --check-prefix=SEL
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -### -c %S/Inputs/shape-xray.c -o %t.x.o 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %S/Inputs/shape-xray.c -Wl,--defsym=ext=leaf -Wl,--defsym=main=leaf -o %t.exe
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=f %t.exe | FileCheck %s --check-prefix=LINKED
// CHECK-LABEL: <f>:
// CHECK-NEXT: 0: 00 00 4c 3c addis 2, 12, 0
// CHECK-NEXT: R_PPC64_REL16_HA .TOC.
// CHECK-NEXT: 4: 00 00 42 38 addi 2, 2, 0
// CHECK-NEXT: R_PPC64_REL16_LO .TOC.+0x4
// CHECK-NEXT: 8: 1c 00 00 48 b 0x24 <f+0x24>
// CHECK-NEXT: c: 00 00 00 60 nop
// CHECK-NEXT: 10: f8 ff 01 f8 std 0, -8(1)
// CHECK-NEXT: 14: a6 02 08 7c mflr 0
// CHECK-NEXT: 18: 01 00 00 48 bl
// CHECK-NEXT: R_PPC64_REL24 __xray_FunctionEntry
// CHECK-NEXT: 1c: 00 00 00 60 nop
// CHECK-NEXT: 20: a6 03 08 7c mtlr 0
// CHECK-NEXT: 24: 00 00 82 3c addis 4, 2, 0
// CHECK-NOT: __xray_FunctionExit
// CHECK-LABEL: <leaf>:
// CHECK-NEXT: 1c 00 00 48 b
// CHECK-NEXT: 00 00 00 60 nop
// CHECK-NEXT: f8 ff 01 f8 std 0, -8(1)
// CHECK-NEXT: a6 02 08 7c mflr 0
// CHECK-NEXT: 01 00 00 48 bl
// CHECK-NEXT: R_PPC64_REL24 __xray_FunctionEntry
// CHECK-NEXT: 00 00 00 60 nop
// CHECK-NEXT: a6 03 08 7c mtlr 0
// CHECK-NEXT: slwi 4, 3, 1
// CHECK-LABEL: <calls>:
// CHECK-NEXT: addis 2, 12, 0
// CHECK-NEXT: R_PPC64_REL16_HA .TOC.
// CHECK-NEXT: addi 2, 2, 0
// CHECK-NEXT: R_PPC64_REL16_LO .TOC.+0x4
// CHECK-NEXT: 1c 00 00 48 b
// CHECK-NEXT: 00 00 00 60 nop
// CHECK-NEXT: f8 ff 01 f8 std 0, -8(1)
// CHECK-NEXT: a6 02 08 7c mflr 0
// CHECK-NEXT: 01 00 00 48 bl
// CHECK-NEXT: R_PPC64_REL24 __xray_FunctionEntry
// CHECK-NEXT: 00 00 00 60 nop
// CHECK-NEXT: a6 03 08 7c mtlr 0
// CHECK-NEXT: mflr 0
// CHECK-NEXT: stdu 1, -32(1)
// CHECK-LABEL: <h>:
// CHECK-NEXT: slwi 4, 3, 2
// CHECK-LABEL: <sel>:
// CHECK-NEXT: addis 2, 12, 0
// CHECK-NEXT: R_PPC64_REL16_HA .TOC.
// CHECK-NEXT: addi 2, 2, 0
// CHECK-NEXT: R_PPC64_REL16_LO .TOC.+0x4
// CHECK-NEXT: 1c 00 00 48 b
// CHECK-NOT: __xray_FunctionExit
// four sleds: one xray_instr_map (and xray_fn_idx) per function, "ao"
// (SHF_ALLOC|SHF_LINK_ORDER to .text), two R_PPC64_REL64 each
// MAP-COUNT-4: xray_instr_map PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000020 00 AL 2 0 1
// MAP: Relocation section '.relaxray_instr_map'
// MAP-NEXT: Offset
// MAP-NEXT: 0000000000000000 {{[0-9a-f]+}} R_PPC64_REL64 {{0+}} .text + 8
// MAP-NEXT: 0000000000000008 {{[0-9a-f]+}} R_PPC64_REL64 {{0+}} .text + 0
// f's entry: sled, function (relocated at link), kind 0, always 0, version 2
// ENTRY: 0x00000000 00000000 00000000 00000000 00000000
// ENTRY-NEXT: 0x00000010 00000200 00000000 00000000 00000000
// SEL-LABEL: <f>:
// SEL-NEXT: addis 2, 12, 0
// SEL-NEXT: addi 2, 2, 0
// SEL-NEXT: addis 4, 2, 0
// SEL-LABEL: <leaf>:
// SEL-NEXT: slwi 4, 3, 1
// SEL-LABEL: <sel>:
// SEL-NEXT: addis 2, 12, 0
// SEL-NEXT: addi 2, 2, 0
// SEL-NEXT: 1c 00 00 48 b
// FLAGS: "-fxray-instrument" "-fxray-instruction-threshold=1" {{.*}}"-fxray-instrumentation-bundle=function-entry"
// LINKED-LABEL: <f>:
// LINKED-NEXT: addis 2, 12,
// LINKED-NEXT: addi 2, 2,
// LINKED-NEXT: b 0x{{[0-9a-f]+}} <f+0x24>
// LINKED-NEXT: nop
// LINKED-NEXT: std 0, -8(1)
// LINKED-NEXT: mflr 0
// LINKED-NEXT: bl 0x{{[0-9a-f]+}}
// LINKED-NEXT: ld 2, 24(1)
// LINKED-NEXT: mtlr 0
