//===- CondSites.cpp - `if (k) k(...)` as one conditional site ------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// See CondSites.h. Why folding is exact C semantics: the block of the call
// holds nothing but the call and instructions that are safe to execute
// speculatively (no side effect, no trap), so running it when the pointer is
// null differs from skipping it only by the call itself, and the conditional
// trampoline (and every state the runtime gives the site) does nothing when
// the pointer it received is null.
//
//===----------------------------------------------------------------------===//

#include "CondSites.h"
#include "llvm/Analysis/Loads.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace dyncall {
namespace {

/// Is \p C `icmp eq|ne %V, null` (either operand order)? Sets \p IsNe.
bool isNullTestOf(const Value *C, const Value *V, bool &IsNe) {
  const auto *Cmp = dyn_cast<ICmpInst>(C);
  if (!Cmp || !Cmp->isEquality())
    return false;
  const Value *A = Cmp->getOperand(0), *B = Cmp->getOperand(1);
  if (B == V)
    std::swap(A, B);
  if (A != V || !isa<ConstantPointerNull>(B))
    return false;
  IsNe = Cmp->getPredicate() == ICmpInst::ICMP_NE;
  return true;
}

/// The block's only instruction, debug intrinsics aside, is `ret void`.
bool isBareReturn(const BasicBlock &BB) {
  for (const Instruction &I : BB) {
    if (isa<DbgInfoIntrinsic>(I))
      continue;
    const auto *R = dyn_cast<ReturnInst>(&I);
    return R && !R->getReturnValue();
  }
  return false;
}

/// Does \p Load have a null test among its users (is the call guarded)?
bool hasNullTest(const LoadInst &Load) {
  bool IsNe;
  for (const User *U : Load.users())
    if (isNullTestOf(U, &Load, IsNe))
      return true;
  return false;
}

/// Is the call's block entered only from a null test of another load from
/// the same address (the key read twice, as at -O0)?
bool testsAnotherLoad(const CallBase &Call, const LoadInst &Load) {
  const BasicBlock *Pred = Call.getParent()->getSinglePredecessor();
  const auto *Br = Pred ? dyn_cast<BranchInst>(Pred->getTerminator()) : nullptr;
  if (!Br || !Br->isConditional())
    return false;
  const auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cmp || !Cmp->isEquality())
    return false;
  for (const Value *Op : Cmp->operands())
    if (const auto *L = dyn_cast<LoadInst>(Op); L && L != &Load) {
      bool IsNe;
      if (L->getPointerOperand() == Load.getPointerOperand() &&
          isNullTestOf(Cmp, L, IsNe))
        return true;
    }
  return false;
}

// A by-value aggregate (byval, inalloca, preallocated) is copied from
// memory by the call itself, not by an instruction before it: folding the
// test makes that copy unconditional, so it is allowed only when the
// memory is known to be readable (`if (k) k(*p)` with p NULL must not
// fault while k is NULL).
bool argumentsSafeWhenNull(const CallBase &Call) {
  const DataLayout &DL = Call.getDataLayout();
  for (unsigned I = 0, E = Call.arg_size(); I != E; ++I) {
    Type *Copied = Call.getParamByValType(I);
    if (!Copied)
      Copied = Call.getParamInAllocaType(I);
    if (!Copied)
      Copied = Call.getParamPreallocatedType(I);
    if (!Copied)
      continue;
    if (!isDereferenceableAndAlignedPointer(
            Call.getArgOperand(I), Copied,
            Call.getParamAlign(I).valueOrOne(), DL, &Call))
      return false;
  }
  return true;
}

} // namespace

CondMatch matchCondSite(CallBase &Call, LoadInst &Load) {
  CondMatch M;
  if (!hasNullTest(Load)) {
    // An unguarded call is an ordinary site, nothing to say about it.
    if (testsAnotherLoad(Call, Load))
      M.WhyNot = "the call loads the key again after the test (two reads, "
                 "as without optimization): the pointer called is not the "
                 "one tested";
    return M;
  }
  auto Fail = [&](const char *Why) {
    M.WhyNot = Why;
    return M;
  };
  BasicBlock *CallBB = Call.getParent();
  BasicBlock *Pred = CallBB->getSinglePredecessor();
  auto *Br = Pred ? dyn_cast<BranchInst>(Pred->getTerminator()) : nullptr;
  bool IsNe = false;
  if (!Br || !Br->isConditional() ||
      !isNullTestOf(Br->getCondition(), &Load, IsNe) ||
      Br->getSuccessor(IsNe ? 0 : 1) != CallBB ||
      Br->getSuccessor(0) == Br->getSuccessor(1))
    return Fail("the null test of the loaded pointer does not branch "
                "straight to a block of its own holding the call");
  if (Call.getCalledOperand() != &Load)
    return Fail("the call does not go through the pointer that was tested");
  if (!Call.getType()->isVoidTy())
    return Fail("the call returns a value");
  if (!isa<CallInst>(Call))
    return Fail("the call is an invoke (it may unwind to a handler)");
  if (cast<CallInst>(Call).isMustTailCall())
    return Fail("the call is musttail");
  if (!argumentsSafeWhenNull(Call))
    return Fail("the call copies an argument from memory that may not be "
                "readable when the pointer is null (a by-value aggregate)");
  for (Instruction &I : *CallBB) {
    if (&I == &Call)
      break;
    if (isa<DbgInfoIntrinsic>(I))
      continue;
    if (isa<PHINode>(I) || I.mayHaveSideEffects() ||
        !isSafeToSpeculativelyExecute(&I))
      return Fail("the guarded block computes something that is not safe "
                  "to compute when the pointer is null");
  }
  Instruction *Term = CallBB->getTerminator();
  for (Instruction *I = Call.getNextNode(); I != Term; I = I->getNextNode())
    if (!isa<DbgInfoIntrinsic>(I))
      return Fail("the guarded block does more than the call");
  BasicBlock *Skip = Br->getSuccessor(IsNe ? 1 : 0);
  if (auto *J = dyn_cast<BranchInst>(Term);
      J && !J->isConditional() && J->getSuccessor(0) == Skip) {
    for (PHINode &Phi : Skip->phis())
      if (Phi.getIncomingValueForBlock(Pred) !=
          Phi.getIncomingValueForBlock(CallBB))
        return Fail("the paths with and without the call merge different "
                    "values");
  } else if (auto *R = dyn_cast<ReturnInst>(Term);
             !(R && !R->getReturnValue() && isBareReturn(*Skip))) {
    return Fail("the guarded block does not rejoin the path that skips it");
  }
  M.Site = CondSite{Br, &Call};
  return M;
}

void foldCondSite(const CondSite &S) {
  BranchInst *Br = S.Test;
  BasicBlock *Pred = Br->getParent();
  BasicBlock *CallBB = S.Call->getParent();
  BasicBlock *Skip =
      Br->getSuccessor(0) == CallBB ? Br->getSuccessor(1) : Br->getSuccessor(0);
  auto *Cond = dyn_cast<Instruction>(Br->getCondition());
  Skip->removePredecessor(Pred);
  BranchInst::Create(CallBB, Br->getIterator());
  Br->eraseFromParent();
  if (Cond && Cond->use_empty())
    Cond->eraseFromParent();
  if (pred_empty(Skip) && Skip != &Skip->getParent()->getEntryBlock())
    DeleteDeadBlock(Skip);
  // A NOP cannot stand for a tail jump: the site is always a call.
  cast<CallInst>(S.Call)->setTailCallKind(CallInst::TCK_NoTail);
}

} // namespace dyncall
