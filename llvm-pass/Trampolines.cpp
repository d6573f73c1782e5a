//===- Trampolines.cpp - per-arch trampoline text -------------------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The instruction text comes from include/dyncall/abi-asm.h, shared with the
// GCC plugin (gcc-plugin/arch-*.cc) and the test generators; only the lines
// that name the symbol are written here.
//
//===----------------------------------------------------------------------===//

#include "Trampolines.h"
#include "dyncall/abi-asm.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace dyncall {
namespace {

// A trampoline: section, alignment, symbol, the arch's text, size.
std::string trampolineText(StringRef Name, StringRef Align, StringRef Body) {
  return formatv("{1}{2}"
                 "\t.globl {0}\n"
                 "\t.hidden {0}\n"
                 "\t.type {0}, @function\n"
                 "{0}:\n"
                 "{3}"
                 "\t.size {0}, . - {0}\n"
                 "\t.popsection\n",
                 Name, DYNCALL_ASM_TRAMP_PUSHSECTION, Align, Body)
      .str();
}

// x86_64: entry at 8k+3 behind three int3, so the rel32 of the patchable
// `jmp` is 4-byte aligned and inside one aligned quadword (one atomic store
// retargets it).
class X86_64Trampolines : public TargetTrampolines {
public:
  std::string trampoline(StringRef Name,
                         const TrampolineStyle &Style) const override {
    bool R = Style.Retpoline;
    std::string Body = DYNCALL_ASM_X86_64_TRAMP_ENTRY;
    // A conditional site's trampoline returns on a null chain (abi.h): test,
    // je over the slow branch, the branch, ret; the runtime and the
    // rewriter match these bytes.
    if (Style.Cond)
      Body += R ? DYNCALL_ASM_X86_64_TRAMP_COND_SKIP_RETPOLINE
                : DYNCALL_ASM_X86_64_TRAMP_COND_SKIP;
    Body += R ? DYNCALL_ASM_X86_64_TRAMP_SLOW_RETPOLINE
              : DYNCALL_ASM_X86_64_TRAMP_SLOW;
    if (Style.Cond)
      Body += DYNCALL_ASM_X86_64_TRAMP_COND_RET;
    return trampolineText(Name, DYNCALL_ASM_X86_64_TRAMP_ALIGN, Body);
  }

  bool hasCond() const override { return true; }
  bool hasInlineGuard() const override { return true; }

  // A retpoline on r10 (the static chain): the same instructions as the
  // GCC plugin's, in a COMDAT of the same name, so whichever copy the
  // linker keeps is the same.
  std::string retpolineThunkBody() const override {
    return DYNCALL_ASM_X86_64_RETPOLINE_BODY;
  }
};

// aarch64: `b` is patched with one aligned 32-bit store. The slow path moves
// the chain (x18) to x16 because a `bti c` landing pad accepts `br x16`. A
// conditional site's slow path returns first on a null chain (`cbz x18`).
class AArch64Trampolines : public TargetTrampolines {
public:
  std::string trampoline(StringRef Name,
                         const TrampolineStyle &Style) const override {
    return trampolineText(Name, DYNCALL_ASM_AARCH64_TRAMP_ALIGN,
                          Style.Cond ? DYNCALL_ASM_AARCH64_TRAMP_COND_ENTRY
                                     : DYNCALL_ASM_AARCH64_TRAMP_ENTRY);
  }

  bool hasCond() const override { return true; }
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
                         const TrampolineStyle &Style) const override {
    return trampolineText(Name, DYNCALL_ASM_PPC64LE_TRAMP_ALIGN,
                          formatv("\t.localentry {0}, {1}\n{2}", Name,
                                  DYNCALL_ASM_PPC64LE_TRAMP_LOCALENTRY,
                                  Style.Cond
                                      ? DYNCALL_ASM_PPC64LE_TRAMP_COND_ENTRY
                                      : DYNCALL_ASM_PPC64LE_TRAMP_ENTRY)
                              .str());
  }
  bool clobbersToc() const override { return true; }
  // The site is `bl tramp; nop`, `bl <TOC-save stub>; ld r2,24(r1)` once
  // linked; the runtime discovers it (it is not labelled) and turns the
  // `bl` into `b .+8` while the key is NULL (docs/hooks.md).
  bool hasCond() const override { return true; }
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
