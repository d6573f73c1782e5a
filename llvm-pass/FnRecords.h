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

bool fnTakesNoVec(const llvm::Function &F);
bool emitFnRecords(llvm::Module &M);

/// __dyncall_fn_records for the module's patchable functions (FnRecords.cpp).
struct FnRecordsPass : llvm::PassInfoMixin<FnRecordsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace dyncall

#endif
