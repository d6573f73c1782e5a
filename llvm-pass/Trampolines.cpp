//===- Trampolines.cpp - per-arch trampoline text -------------------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Trampolines.h"
#include "dyncall/abi.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace dyncall {
namespace {

// x86-64: entry at 8k+3 behind three int3, so the rel32 of the patchable
// `jmp` is 4-byte aligned and inside one aligned quadword (one atomic store
// retargets it). The jmp is spelled as bytes so the assembler cannot relax it
// to a 2-byte jump to the next instruction.
class X86_64Trampolines : public TargetTrampolines {
public:
  std::string trampoline(StringRef Name,
                         const TrampolineStyle &Style) const override {
    std::string Slow = Style.Retpoline
                           ? formatv("\t.byte 0xe9\n\t.long {0} - . - 4\n",
                                     DYNCALL_RETPOLINE_THUNK)
                                 .str()
                           : "\tjmp *%r10\n";
    // A conditional site's trampoline returns on a null chain (abi.h): the
    // bytes are spelled out, the runtime and the rewriter match them.
    if (Style.Cond)
      Slow = formatv("\t.byte 0x4d, 0x85, 0xd2\n" // test %r10,%r10
                     "\t.byte 0x74, {0}\n"         // je over the branch
                     "{1}"
                     "\t.byte 0xc3\n", // ret
                     Style.Retpoline ? 5 : 3, Slow)
                 .str();
    return formatv(".pushsection .text.__dyncall_tramp,\"ax\",@progbits\n"
                   "\t.p2align 3\n"
                   "\t.byte 0xcc, 0xcc, 0xcc\n"
                   "\t.globl {0}\n"
                   "\t.hidden {0}\n"
                   "\t.type {0},@function\n"
                   "{0}:\n"
                   "\t.byte 0xe9\n"
                   "\t.long 1f - . - 4\n"
                   "1:\n"
                   "{1}"
                   "\t.size {0}, . - {0}\n"
                   ".popsection\n",
                   Name, Slow)
        .str();
  }

  bool hasCond() const override { return true; }

  // A retpoline on r10 (the static chain), the same sequence the compilers
  // use for their own thunks on r11.
  std::string sharedThunks(bool NeedRetpoline) const override {
    if (!NeedRetpoline)
      return "";
    return formatv(".pushsection .text.{0},\"axG\",@progbits,{0},comdat\n"
                   "\t.globl {0}\n"
                   "\t.hidden {0}\n"
                   "\t.type {0},@function\n"
                   "\t.p2align 4\n"
                   "{0}:\n"
                   "\tcall 1f\n"
                   "2:\tpause\n"
                   "\tlfence\n"
                   "\tjmp 2b\n"
                   "1:\tmov %r10, (%rsp)\n"
                   "\tret\n"
                   "\t.size {0}, . - {0}\n"
                   ".popsection\n",
                   DYNCALL_RETPOLINE_THUNK)
        .str();
  }
};

// aarch64: `b` is patched with one aligned 32-bit store. The slow path moves
// the chain (x18) to x16 because a `bti c` landing pad accepts `br x16`.
class AArch64Trampolines : public TargetTrampolines {
public:
  std::string trampoline(StringRef Name,
                         const TrampolineStyle &) const override {
    return formatv(".pushsection .text.__dyncall_tramp,\"ax\",%progbits\n"
                   "\t.p2align 2\n"
                   "\t.globl {0}\n"
                   "\t.hidden {0}\n"
                   "\t.type {0},%function\n"
                   "{0}:\n"
                   "\tb 1f\n"
                   "1:\n"
                   "\tmov x16, x18\n"
                   "\tbr x16\n"
                   "\t.size {0}, . - {0}\n"
                   ".popsection\n",
                   Name)
        .str();
  }
};

// ppc64le (ELFv2): `b` is patched with one aligned 32-bit store; the slow
// path enters the loaded function at its global entry (r12 = address, via
// ctr). `.localentry tramp, 1` says the trampoline does not preserve r2
// (ELFv2 ABI v1.4), and the pass declares it non-dso_local, so the site is
// `bl tramp; nop`, which GNU ld and lld both link as
//   bl <stub: std r2,24(r1); b tramp> ; ld r2,24(r1)
// and the callee may have any TOC. No sibcall either: LLVM does not tail
// call a function that may not share the caller's TOC.
class PPC64LETrampolines : public TargetTrampolines {
public:
  std::string trampoline(StringRef Name,
                         const TrampolineStyle &) const override {
    return formatv(".pushsection .text.__dyncall_tramp,\"ax\",@progbits\n"
                   "\t.p2align 2\n"
                   "\t.globl {0}\n"
                   "\t.hidden {0}\n"
                   "\t.type {0},@function\n"
                   "{0}:\n"
                   "\t.localentry {0}, 1\n"
                   "\t.long 0x48000004\n" // b .+4, patched
                   "\tmtctr 11\n"
                   "\tmr 12, 11\n"
                   "\tbctr\n"
                   "\t.size {0}, . - {0}\n"
                   ".popsection\n",
                   Name)
        .str();
  }
  bool clobbersToc() const override { return true; }
};

} // namespace

const TargetTrampolines *TargetTrampolines::get(const Triple &T) {
  static const X86_64Trampolines X86_64;
  static const AArch64Trampolines AArch64;
  static const PPC64LETrampolines PPC64LE;
  if (!T.isOSBinFormatELF())
    return nullptr;
  switch (T.getArch()) {
  case Triple::x86_64:
    return &X86_64;
  case Triple::aarch64:
    return &AArch64;
  case Triple::ppc64le:
    return &PPC64LE;
  default:
    return nullptr;
  }
}

} // namespace dyncall
