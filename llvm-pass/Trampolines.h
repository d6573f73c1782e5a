//===- Trampolines.h - per-arch trampoline text ----------------*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The per-arch part of the pass: the assembly of a site's trampoline and of
// the shared thunks, exactly as docs/abi.md shows them. Everything else in
// the pass is arch-neutral.
//
//===----------------------------------------------------------------------===//

#ifndef DYNCALL_TRAMPOLINES_H
#define DYNCALL_TRAMPOLINES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/TargetParser/Triple.h"
#include <string>

namespace dyncall {

struct TrampolineStyle {
  bool Retpoline = false; // slow path through a retpoline (x86-64)
  bool Cond = false;      // a DYNCALL_KIND_COND site: return on null first
};

class TargetTrampolines {
public:
  virtual ~TargetTrampolines() = default;
  /// Module asm defining the hidden trampoline \p Name.
  virtual std::string trampoline(llvm::StringRef Name,
                                 const TrampolineStyle &Style) const = 0;
  /// The instructions of the retpoline on the static chain the trampolines'
  /// slow path uses under -mretpoline (x86-64), or "" when the arch has
  /// none. The pass makes it a linkonce_odr COMDAT function (not module
  /// asm: under LTO, module asm symbols of several units are strong
  /// duplicates to the linker's symbol resolution).
  virtual std::string retpolineThunkBody() const { return ""; }
  /// The trampoline does not preserve the caller's TOC pointer (ppc64le):
  /// declare it non-dso_local with default visibility in IR (the asm keeps
  /// it hidden), so the call is `bl tramp; nop` and the linker saves and
  /// restores r2 around it (docs/abi.md, ppc64le).
  virtual bool clobbersToc() const { return false; }
  /// Conditional (DYNCALL_KIND_COND) trampolines exist for this arch, and
  /// its runtime patches their sites (docs/hooks.md).
  virtual bool hasCond() const { return false; }
  /// Whole-program sites may get an inline guard here (docs/abi.md,
  /// "Inline guards"): the runtime patches its hit call.
  virtual bool hasInlineGuard() const { return false; }

  /// The implementation for \p T, or null when the arch is not supported
  /// (then the pass leaves every call alone and says so in a remark).
  static const TargetTrampolines *get(const llvm::Triple &T);
};

} // namespace dyncall

#endif
