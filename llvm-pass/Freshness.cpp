//===- Freshness.cpp - may a site skip its guard? -------------------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Freshness.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace dyncall {
namespace {

/// Intrinsics that write nothing a site could observe.
bool isHarmless(const Instruction &I) {
  if (isa<DbgInfoIntrinsic>(I))
    return true;
  if (const auto *II = dyn_cast<IntrinsicInst>(&I)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::assume:
    case Intrinsic::ptr_annotation:
    case Intrinsic::var_annotation:
    case Intrinsic::annotation:
    case Intrinsic::experimental_noalias_scope_decl:
    case Intrinsic::pseudoprobe:
      return true;
    default:
      return false;
    }
  }
  return false;
}

bool blocksRange(BasicBlock::const_iterator Begin,
                 BasicBlock::const_iterator End) {
  for (auto It = Begin; It != End; ++It)
    if ((It->mayWriteToMemory() || isa<CallBase>(*It)) && !isHarmless(*It))
      return true;
  return false;
}

bool onlyNullTestsBesides(const LoadInst &Load, const CallBase &Call) {
  for (const User *U : Load.users()) {
    if (U == &Call)
      continue;
    const auto *Cmp = dyn_cast<ICmpInst>(U);
    if (!Cmp || !Cmp->isEquality())
      return false;
    const Value *Other = Cmp->getOperand(0) == &Load ? Cmp->getOperand(1)
                                                     : Cmp->getOperand(0);
    if (!isa<ConstantPointerNull>(Other))
      return false;
  }
  return true;
}

} // namespace

bool isFreshLoad(const LoadInst &Load, const CallBase &Call) {
  // Moving the load to the call is invisible only if nothing else observes
  // the loaded value (docs/abi.md): a test against null is all it may do,
  // whatever the kind of load. Otherwise another thread's store between the
  // load and the call would make the program call one value and use another.
  if (!onlyNullTestsBesides(Load, Call))
    return false;

  const BasicBlock *LB = Load.getParent(), *CB = Call.getParent();
  if (LB->getParent() != CB->getParent())
    return false;
  if (LB == CB && Load.comesBefore(&Call))
    return !blocksRange(std::next(Load.getIterator()), Call.getIterator());

  // Blocks on some path from the load to the call: reachable forward from the
  // load's block and backward from the call's block. If the call's block lies
  // on a cycle of that region, the whole block counts. A path that comes back
  // to the load's block runs the load again, and the call then uses that new
  // value: such paths end there (a loop that reloads its key each iteration,
  // e.g. `for (...) if (k) k(i);`, keeps its site fresh).
  SmallPtrSet<const BasicBlock *, 16> Forward, Backward;
  SmallVector<const BasicBlock *, 16> Work(succ_begin(LB), succ_end(LB));
  while (!Work.empty()) {
    const BasicBlock *B = Work.pop_back_val();
    if (B == LB || !Forward.insert(B).second)
      continue;
    if (Forward.size() > 256)
      return false; // large regions: not worth it, stay guarded
    Work.append(succ_begin(B), succ_end(B));
  }
  if (!Forward.count(CB))
    return false;
  Work.assign(pred_begin(CB), pred_end(CB));
  while (!Work.empty()) {
    const BasicBlock *B = Work.pop_back_val();
    if (!Backward.insert(B).second || B == LB)
      continue;
    Work.append(pred_begin(B), pred_end(B));
  }

  for (const BasicBlock *B : Forward) {
    if (!Backward.count(B) && B != CB)
      continue;
    if (B == LB || B == CB)
      continue;
    if (blocksRange(B->begin(), B->end()))
      return false;
  }
  bool CallOnCycle = Backward.count(CB);
  if (blocksRange(std::next(Load.getIterator()), LB->end()))
    return false;
  if (blocksRange(CB->begin(), CallOnCycle ? CB->end() : Call.getIterator()))
    return false;
  return true;
}

} // namespace dyncall
