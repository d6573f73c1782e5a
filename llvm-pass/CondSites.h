//===- CondSites.h - `if (k) k(...)` as one conditional site ---*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A call through a void key guarded by a test of the same loaded value
// against null,
//
//   %fp = load ptr, ptr @k
//   %c  = icmp ne ptr %fp, null          ; or eq, with the branch swapped
//   br i1 %c, label %call, label %skip
// call:                                  ; only predecessor: the test
//   <speculatable instructions>          ; the arguments
//   call void %fp(...)
//   br label %skip                       ; or `ret void` when %skip is one
//
// is folded into an unconditional call, which the pass then turns into a
// DYNCALL_KIND_COND site: the trampoline returns when the pointer it gets is
// null, and the runtime turns the call into a NOP of its size while the key
// holds null (docs/hooks.md). `if (k) k(...)`, `if (k != NULL)`,
// `k ? k(...) : (void)0` and `if (!k) return; k(...);` all reach the pass in
// this shape. Anything else stays as it is, an ordinary site behind its
// `if`, and gets a remark saying why.
//
//===----------------------------------------------------------------------===//

#ifndef DYNCALL_CONDSITES_H
#define DYNCALL_CONDSITES_H

#include <optional>
#include <string>

namespace llvm {
class BranchInst;
class CallBase;
class LoadInst;
} // namespace llvm

namespace dyncall {

/// A recognised guarded call: the test's branch and the call.
struct CondSite {
  llvm::BranchInst *Test = nullptr;
  llvm::CallBase *Call = nullptr;
};

/// The result of looking at one call through a key.
struct CondMatch {
  /// Set when the call is a conditional site that can be folded.
  std::optional<CondSite> Site;
  /// Set when the call looks guarded by a null test of its pointer but the
  /// shape is not one the pass folds: why (for a remark).
  std::string WhyNot;
};

/// Is \p Call (through the value \p Load produced) guarded as above?
CondMatch matchCondSite(llvm::CallBase &Call, llvm::LoadInst &Load);

/// Make the call of \p S unconditional (the branch goes straight to its
/// block, the skipped path loses that edge) and never a tail call.
void foldCondSite(const CondSite &S);

} // namespace dyncall

#endif
