//===- Plugin.cpp - registration of the dyncall pass plugin ---------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// -fpass-plugin=dyncall_llvm.so runs the pass at the end of the per-module
// optimization pipeline, at every -O level and in (Thin)LTO pre-link. It is
// also available to `opt -load-pass-plugin ... -passes=dynamic-call`.
//
//===----------------------------------------------------------------------===//

#include "DynCallPass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "FnRecords.h"

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "dyncall", "0.1", [](PassBuilder &PB) {
            using dyncall::DynCallPass;
            PB.registerPipelineStartEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(DynCallPass(DynCallPass::Phase::Stores));
                });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(DynCallPass(DynCallPass::Phase::Sites));
                  MPM.addPass(dyncall::FnRecordsPass());
                });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  using dyncall::DynCallPass;
                  if (Name == "dynamic-call")
                    MPM.addPass(DynCallPass(DynCallPass::Phase::Both));
                  else if (Name == "dynamic-call-stores")
                    MPM.addPass(DynCallPass(DynCallPass::Phase::Stores));
                  else if (Name == "dynamic-call-fn-records")
                    MPM.addPass(dyncall::FnRecordsPass());
                  else if (Name == "dynamic-call-sites")
                    MPM.addPass(DynCallPass(DynCallPass::Phase::Sites));
                  else
                    return false;
                  return true;
                });
          }};
}
