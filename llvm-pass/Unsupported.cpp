//===- Unsupported.cpp - what the plugin refuses to compile --------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Control-flow integrity checks that an indirect call's target is a
// function of the caller's type, by data the compiler and the linker put
// beside every function; code the runtime generates has none of it: a
// hook list's jump function (called through the list's key),
// dyncall_fn_original's thunk, a site's trampoline.
//  - -fsanitize=kcfi: a 32-bit hash of the type right before the callee
//    (before its patchable prefix).  A program with both trapped (ud2,
//    SIGILL) at the first such call: test/exec/Inputs/code_changes.c at
//    its hook list with two handlers, examples/call_counter.c at its call
//    of eval's original.  (The runtime could write a hash before each
//    piece of code; which hash a call site expects, it cannot tell.)
//  - -fsanitize=cfi-icall (module flag "CFI Canonical Jump Tables"): the
//    target must be an entry of the type's jump table, which LTO builds;
//    code_changes.c trapped at the same call.  There a function's address
//    is also its jump-table entry, not the function with the NOPs.
// So either is a compile error, once per module, by whichever of the
// passes sees it first, not a trap at run time (docs/runtime.md
// "Sanitizers").
//
//===----------------------------------------------------------------------===//

#include "Unsupported.h"

#include "llvm/ADT/Twine.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace dyncall {

static const char ReportedFlag[] = "dyncall.cfi.refused";

bool refuseCfi(Module &M) {
  const char *Flag = M.getModuleFlag("kcfi") ? "kcfi"
                     : M.getModuleFlag("CFI Canonical Jump Tables")
                         ? "cfi-icall"
                         : nullptr;
  if (!Flag)
    return false;
  if (!M.getModuleFlag(ReportedFlag)) {
    M.getContext().emitError(
        Twine("dyncall: -fsanitize=") + Flag +
        " is not supported: the code the runtime generates (hook-list jump "
        "functions, dyncall_fn_original's thunks, call-site trampolines) "
        "carries no CFI type information, so an indirect call to it would "
        "trap");
    M.addModuleFlag(Module::Override, ReportedFlag, 1);
  }
  return true;
}

} // namespace dyncall
