//===- FnRecords.cpp - per-function records of patchable prologues -------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One struct dyncall_fn_record (dyncall/abi.h, docs/abi.md "Function
// records") per patchable function whose prototype passes nothing in
// vector registers (x86-64 SysV ELF): DYNCALL_FN_REC_NO_VEC.  Runs last in
// the optimizer pipeline, on the final signatures (argument promotion and
// dead-argument elimination have run); the record's reference to the
// function is a non-call use, which keeps any later pass (LTO) from
// changing the signature it describes.  Conservative: a floating-point or
// vector type anywhere in a parameter (a struct passed in memory included)
// leaves the function unflagged, as do varargs and any calling convention
// but C (and fastcc, the optimizer's for internal functions).  No record:
// the runtime's safe default (xmm0-7 saved).
//
//===----------------------------------------------------------------------===//

#include "FnRecords.h"

#include "dyncall/abi.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace dyncall {

static bool hasVecPart(Type *T) {
  if (T->isFloatingPointTy() || T->isVectorTy() || T->isX86_AMXTy())
    return true;
  if (auto *S = dyn_cast<StructType>(T)) {
    for (Type *E : S->elements())
      if (hasVecPart(E))
        return true;
    return false;
  }
  if (auto *A = dyn_cast<ArrayType>(T))
    return hasVecPart(A->getElementType());
  return false;
}

/// The function takes nothing in xmm registers (x86-64 SysV).
bool fnTakesNoVec(const Function &F) {
  // fastcc: what the optimizer gives internal functions; on x86-64 it
  // assigns registers like C (the types decide, checked below)
  if (F.isVarArg() || (F.getCallingConv() != CallingConv::C &&
                       F.getCallingConv() != CallingConv::Fast))
    return false;
  for (const Argument &A : F.args()) {
    if (hasVecPart(A.getType()))
      return false;
    // aggregates passed in memory: their type, conservatively
    for (Type *T : std::initializer_list<Type *>{A.getParamByValType(), A.getParamByRefType(),
                    A.getParamInAllocaType(),
                    A.getParamStructRetType()})
      if (T && hasVecPart(T))
        return false;
  }
  return true;
}

static bool patchable(const Function &F) {
  Attribute A = F.getFnAttribute("patchable-function-entry");
  unsigned N = 0;
  return A.isValid() && !A.getValueAsString().getAsInteger(10, N) && N > 0;
}

bool emitFnRecords(Module &M) {
  Triple T(M.getTargetTriple());
  if (T.getArch() != Triple::x86_64 || !T.isOSBinFormatELF())
    return false;
  LLVMContext &C = M.getContext();
  auto *I32 = Type::getInt32Ty(C);
  auto *Ptr = PointerType::getUnqual(C);
  auto *RecTy = StructType::get(C, {Ptr, I32, I32});
  // (Thin)LTO pre-link (clang adds this flag with -flto and -flto=thin
  // only): the link may drop this copy of a linkonce, weak or COMDAT
  // function for another unit's, which leaves the record's !associated
  // without its function and the LTO back end's verifier refuses the
  // module ("associated metadata must have a global value": muParser with
  // -flto=thin, scripts/heldout/run.sh).  Such a function gets no record
  // there: the safe default.
  bool PreLink = M.getModuleFlag("EnableSplitLTOUnit") != nullptr;
  SmallVector<GlobalValue *, 16> Used;
  for (Function &F : M) {
    if (F.isDeclarationForLinker() || !patchable(F) || !fnTakesNoVec(F))
      continue;
    if (PreLink && (F.isWeakForLinker() || F.hasComdat()))
      continue;
    auto *GV = new GlobalVariable(
        M, RecTy, /*isConstant=*/false, GlobalValue::PrivateLinkage,
        ConstantStruct::get(RecTy,
                            {&F, ConstantInt::get(I32, DYNCALL_FN_REC_NO_VEC),
                             ConstantInt::get(I32, 0)}),
        "__dyncall_fn_record");
    GV->setSection(DYNCALL_FN_RECORDS_SECTION);
    GV->setAlignment(Align(8));
    // SHF_LINK_ORDER to the function: dropped with it (--gc-sections)
    GV->setMetadata(LLVMContext::MD_associated,
                    MDNode::get(C, ValueAsMetadata::get(&F)));
    if (Comdat *CD = F.getComdat())
      GV->setComdat(CD);
    Used.push_back(GV);
  }
  if (Used.empty())
    return false;
  appendToCompilerUsed(M, Used);
  return true;
}

PreservedAnalyses FnRecordsPass::run(Module &M, ModuleAnalysisManager &) {
  return emitFnRecords(M) ? PreservedAnalyses::none()
                          : PreservedAnalyses::all();
}

} // namespace dyncall
