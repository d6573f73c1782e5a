//===- Unsupported.h - what the plugin refuses to compile -------*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef DYNCALL_UNSUPPORTED_H
#define DYNCALL_UNSUPPORTED_H

namespace llvm {
class Module;
}

namespace dyncall {

/// A compile error (once per module) when \p M is built with
/// -fsanitize=kcfi or cfi-icall, which the runtime's generated code cannot
/// satisfy (Unsupported.cpp).  True when it was reported: the caller stops.
bool refuseCfi(llvm::Module &M);

} // namespace dyncall

#endif
