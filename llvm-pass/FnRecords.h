//===- FnRecords.h - per-function records of patchable prologues -*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DYNCALL_FNRECORDS_H
#define DYNCALL_FNRECORDS_H

#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

namespace dyncall {

/// What a function's prototype passes in vector registers (x86-64 SysV,
/// AAPCS64; ppc64le ELFv2: floating-point and vector registers).
struct FnVecUse {
  unsigned Regs = 0;   ///< xmm0..Regs-1 (an upper bound, at most 8;
                       ///< ppc64le: f1..fRegs, at most 13)
  unsigned Regs2 = 0;  ///< ppc64le: v2..v(Regs2+1), at most 12
  unsigned Width = 16; ///< bytes of the widest vector one may hold
  bool VarArg = false; ///< variadic: Regs is 8 (ppc64le: 13 and 12)
  /// Integer argument registers (x86-64 rdi.., aarch64 x0.., ppc64le
  /// r3..; an upper bound), -1: not known, every one (variadic, a static
  /// chain, an argument this does not count).
  int IntRegs = -1;
  bool X8 = false; ///< aarch64: an indirect result in x8
};
bool fnVecUse(const llvm::Function &F, FnVecUse &U);
bool emitFnRecords(llvm::Module &M);
bool alignPatchable(llvm::Module &M);
bool dropUnpatchable(llvm::Module &M);
bool freePreEntry(llvm::Module &M);

/// __dyncall_fn_records for the module's patchable functions, and their
/// pre-entry NOPs 8-byte aligned (FnRecords.cpp).
struct FnRecordsPass : llvm::PassInfoMixin<FnRecordsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace dyncall

#endif
