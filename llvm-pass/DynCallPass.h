//===- DynCallPass.h - dynamic_call sites to patchable direct calls -*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DYNCALL_DYNCALLPASS_H
#define DYNCALL_DYNCALLPASS_H

#include "llvm/IR/PassManager.h"

namespace dyncall {

/// Rewrites calls through values loaded from `dynamic_call` keys into direct
/// calls to per-site trampolines, routes stores to keys through the runtime,
/// and emits the __dyncall_sites/__dyncall_keys tables and the module's
/// registration constructor. See docs/abi.md.
class DynCallPass : public llvm::PassInfoMixin<DynCallPass> {
public:
  /// Stores run at pipeline start, sites at optimizer last; Both is for
  /// `opt -passes=dynamic-call`.
  enum class Phase { Stores, Sites, Both };
  explicit DynCallPass(Phase P = Phase::Both) : P(P) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; } // also at -O0 / optnone

private:
  Phase P;
};

} // namespace dyncall

#endif
