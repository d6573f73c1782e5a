//===- Freshness.h - may a site skip its guard? ----------------*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A site is *fresh* when calling the key's current value at the moment of the
// call is a legal execution of the program, given that every store to the key
// goes through the runtime. Then the runtime may patch the site to a direct
// call without a guard. See docs/abi.md ("Why direct sites are correct").
//
//===----------------------------------------------------------------------===//

#ifndef DYNCALL_FRESHNESS_H
#define DYNCALL_FRESHNESS_H

namespace llvm {
class CallBase;
class LoadInst;
} // namespace llvm

namespace dyncall {

/// True when the value \p Load produced is as good as one loaded at \p Call:
///  - no instruction that may write memory (which includes calls, fences,
///    atomic and volatile accesses, and loads stronger than unordered) lies
///    on any path from \p Load to \p Call, so neither this thread's own store
///    through the runtime nor a synchronization that would make another
///    thread's store visible can come in between; for a plain load any other
///    change would be a data race;
///  - when \p Load is atomic or volatile (other threads may legitimately
///    store meanwhile), the loaded value is used only by \p Call and by
///    comparisons with null, which any non-null target satisfies alike.
bool isFreshLoad(const llvm::LoadInst &Load, const llvm::CallBase &Call);

} // namespace dyncall

#endif
