//===- FnRecords.cpp - per-function records of patchable prologues -------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One struct dyncall_fn_record (dyncall/abi.h, docs/abi.md "Function
// records") per patchable function (x86-64, aarch64 and ppc64le ELF:
// emitFnRecords; ppc64le: the functions that get an XRay entry sled, the
// Clang route of docs/prologues.md) saying which vector argument registers
// (xmm0-7; v0-v7; f1-f13 and v2-v13) its prototype uses:
// DYNCALL_FN_REC_NO_VEC (none), or DYNCALL_FN_REC_VEC_COUNT with n (xmm0..n-1;
// an upper bound counted on the IR types clang lowered the arguments to),
// DYNCALL_FN_REC_VARIADIC (n = 8) and DYNCALL_FN_REC_VEC_YMM/ZMM for vectors
// wider than 16 bytes, and DYNCALL_FN_REC_INT_COUNT with how many integer
// argument registers it receives (rdi.., x0.., r3..; aarch64
// DYNCALL_FN_REC_INT_X8 for an sret in x8; none for a variadic function or
// a static chain).  Runs last in the optimizer pipeline, on the final
// signatures (argument promotion and dead-argument elimination have run); the
// record's reference to the function is a non-call use, which keeps any later
// pass (LTO) from changing the signature it describes.  A calling convention
// but C (and fastcc, the optimizer's for internal functions) gets no
// record: the runtime's safe default (xmm0-7 saved).
//
// A function of another calling convention (preserve_most, preserve_all,
// ms_abi, regcall, interrupt, aarch64_vector_pcs, SVE...) or declared
// no_caller_saved_registers is not made patchable (dropUnpatchable: its
// patchable-function-entry and -prefix attributes go, so it gets no NOPs
// and no __patchable_function_entries record): its callers keep values in
// registers the C convention lets a callee clobber (r11, xmm8-15, the
// upper vector halves...), which a hook's handler, an ordinary C function,
// does clobber, and a redirect target of the C convention would too.  The
// runtime never registers it (DYNCALL_ERR_NOFN), and it runs as built.
//
// The bytes right before a patchable function's entry are the runtime's
// (the slot and its jumps: docs/prologues.md), so freePreEntry drops
// -fsanitize=function's signature from such a function (!func_sanitize:
// the AsmPrinter would put 8 bytes of it between the pre-entry NOPs and
// the entry, and the link's check refused every record, DC063).  Calls to
// it are then not type-checked: the check at a call site looks for the
// signature 8 bytes before the callee and checks nothing without it (the
// runtime's bytes there never match it: x86-64's are 90 90 90 90, or
// 90 90 90 e9/eb once patched; aarch64's are two NOPs, or the slot, a
// 4-aligned code address, where the signature, 0xc105cafe, is not
// 4-aligned).  Calls from it still are.
//
// The same pass aligns every patchable function with pre-entry NOPs to 8
// bytes (alignPatchable): the runtime's slot is those NOPs, replaced with
// one aligned 8-byte store.  -falign-functions=8 (what dyncall-cc adds)
// reaches only the functions clang generates through a declaration: the
// ones it makes itself (a C++ unit's static initializer _GLOBAL__sub_I_*)
// kept the target's minimum (aarch64: 4; x86-64 -Os: 1) and the runtime
// refused them with DYNCALL_ERR_ALIGN (muParser, docs/prologues.md).
//
//===----------------------------------------------------------------------===//

#include "FnRecords.h"
#include "Unsupported.h"

#include <algorithm>

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

static constexpr unsigned VecArgRegs = DYNCALL_X86_64_VEC_ARG_REGS;
static_assert(VecArgRegs == DYNCALL_AARCH64_VEC_ARG_REGS,
              "one count for both arches (xmm0-7, v0-v7)");

/// Vector registers a value of type T takes when passed directly, an
/// upper bound (x86-64 SysV; clang has already lowered aggregates to the
/// IR types the backend assigns): each floating-point scalar one (x86_fp80
/// none: it is passed in memory), each vector one per Granule bits (128,
/// 256 in a function with AVX, 512 with AVX-512F: a vector wider than the
/// registers is split),
/// aggregates the sum of their elements.  Width: raised to 32 or 64 bytes
/// when a vector that wide may sit in one register.  Capped at
/// VecArgRegs + 1.
static unsigned vecRegs(Type *T, unsigned Granule, unsigned &Width) {
  if (T->isX86_FP80Ty())
    return 0;
  if (T->isFloatingPointTy())
    return 1;
  if (auto *V = dyn_cast<FixedVectorType>(T)) {
    uint64_t Bits = V->getPrimitiveSizeInBits().getFixedValue();
    if (Bits > 128)
      Width = std::max(Width, Bits > 256 ? 64u : 32u);
    return (unsigned)std::min<uint64_t>((Bits + Granule - 1) / Granule,
                                        VecArgRegs + 1);
  }
  if (T->isVectorTy() || T->isX86_AMXTy())
    return VecArgRegs + 1; // not a SysV type: every register
  if (auto *S = dyn_cast<StructType>(T)) {
    unsigned N = 0;
    for (Type *E : S->elements())
      N = std::min(N + vecRegs(E, Granule, Width), VecArgRegs + 1);
    return N;
  }
  if (auto *A = dyn_cast<ArrayType>(T)) {
    unsigned E = vecRegs(A->getElementType(), Granule, Width);
    return (unsigned)std::min<uint64_t>(E * A->getNumElements(),
                                        VecArgRegs + 1);
  }
  return 0; // integers, pointers (byval, sret, ...: memory, not xmm)
}

/// Integer argument registers a value of type T takes when passed
/// directly (x86-64 SysV rdi.., AAPCS64 x0..; clang has already lowered
/// aggregates to the IR types the backend assigns), an upper bound, or
/// -1 when this does not know the type.  N is the count so far: AAPCS64
/// gives a 16-byte integer (__int128, a 16-byte-aligned composite) an
/// even register pair, the odd one skipped is counted.  Floating-point
/// scalars and vectors wider than 8 bytes travel in vector registers or
/// memory; a vector of integers of at most 8 bytes counts one (an upper bound
/// wherever the backend puts it).
static int intRegs(Type *T, bool AArch64, unsigned N, int Depth = 0) {
  if (Depth > 16)
    return -1;
  if (auto *I = dyn_cast<IntegerType>(T)) {
    unsigned Bits = I->getBitWidth();
    if (Bits > 128)
      return -1;
    if (Bits > 64)
      return AArch64 ? (int)(N & 1) + 2 : 2;
    return 1;
  }
  if (T->isPointerTy())
    return 1;
  if (T->isFloatingPointTy())
    return 0;
  if (auto *V = dyn_cast<FixedVectorType>(T)) {
    if (V->getElementType()->isIntegerTy(1))
      return -1; // masks: not a C type
    return !V->getElementType()->isFloatingPointTy() &&
                   V->getPrimitiveSizeInBits().getFixedValue() <= 64
               ? 1
               : 0;
  }
  if (auto *S = dyn_cast<StructType>(T)) {
    unsigned Sum = 0;
    for (Type *E : S->elements()) {
      int R = intRegs(E, AArch64, N + Sum, Depth + 1);
      if (R < 0)
        return -1;
      Sum = std::min(Sum + (unsigned)R, 64u);
    }
    return (int)Sum;
  }
  if (auto *A = dyn_cast<ArrayType>(T)) {
    unsigned Sum = 0;
    for (uint64_t I = 0; I < A->getNumElements() && Sum < 64; I++) {
      int R = intRegs(A->getElementType(), AArch64, N + Sum, Depth + 1);
      if (R < 0)
        return -1;
      Sum += (unsigned)R;
    }
    return (int)std::min(Sum, 64u);
  }
  return -1; // scalable vectors, target types, x86_amx, ...
}

/// Does an attribute give A a register of its own (the static chain, a
/// Swift context register) or a memory convention the argument count does
/// not model?  Then a record must not state an integer register count.
static bool takesOwnRegister(const Argument &A) {
  return A.hasAttribute(Attribute::Nest) ||
         A.hasAttribute(Attribute::SwiftSelf) ||
         A.hasAttribute(Attribute::SwiftError) ||
         A.hasAttribute(Attribute::SwiftAsync) ||
         A.hasAttribute(Attribute::InAlloca) ||
         A.hasAttribute(Attribute::Preallocated);
}

/// F's integer argument registers (FnVecUse::IntRegs, X8): -1 when the
/// record must not say (variadic; a static chain or another register
/// an attribute assigns; an argument type intRegs does not know).
static void fnIntUse(const Function &F, bool AArch64, FnVecUse &U) {
  unsigned Max =
      AArch64 ? DYNCALL_AARCH64_INT_ARG_REGS : DYNCALL_X86_64_INT_ARG_REGS;
  unsigned N = 0;
  U.IntRegs = -1;
  U.X8 = false;
  if (F.isVarArg())
    return;
  for (const Argument &A : F.args()) {
    if (takesOwnRegister(A))
      return;
    if (A.hasByValAttr())
      continue; // a copy in memory
    if (A.hasStructRetAttr() && AArch64) {
      if (A.hasInRegAttr())
        return; // not AAPCS64's x8 (Windows' x0)
      U.X8 = true;
      continue;
    }
    int R = intRegs(A.getType(), AArch64, N);
    if (R < 0)
      return;
    N = std::min(N + (unsigned)R, Max);
  }
  U.IntRegs = (int)N;
}

/// ppc64le ELFv2: the floating-point (Fpr) and vector (Vr) registers a
/// value of type T takes when passed directly, an upper bound on the IR
/// types clang lowered it to (a homogeneous aggregate is an array or
/// struct of its members): float and double one FPR, ppc_fp128 (IBM long
/// double) two, fp128 (IEEE binary128) one VR, a vector one VR per 16
/// bytes, aggregates the sum of their elements; integers and pointers
/// (byval aggregates among them) none.
static void ppcRegs(Type *T, unsigned &Fpr, unsigned &Vr) {
  if (T->isPPC_FP128Ty()) {
    Fpr += 2;
  } else if (T->isFP128Ty()) {
    Vr += 1;
  } else if (T->isFloatingPointTy()) {
    Fpr += 1;
  } else if (auto *V = dyn_cast<FixedVectorType>(T)) {
    Vr += (unsigned)std::min<uint64_t>(
        (V->getPrimitiveSizeInBits().getFixedValue() + 127) / 128,
        DYNCALL_PPC64LE_VR_ARG_REGS);
  } else if (T->isVectorTy()) {
    Fpr += DYNCALL_PPC64LE_FPR_ARG_REGS;
    Vr += DYNCALL_PPC64LE_VR_ARG_REGS;
  } else if (auto *S = dyn_cast<StructType>(T)) {
    for (Type *E : S->elements())
      ppcRegs(E, Fpr, Vr);
  } else if (auto *A = dyn_cast<ArrayType>(T)) {
    unsigned F = 0, W = 0;
    ppcRegs(A->getElementType(), F, W);
    Fpr += (unsigned)std::min<uint64_t>(F * A->getNumElements(),
                                        DYNCALL_PPC64LE_FPR_ARG_REGS);
    Vr += (unsigned)std::min<uint64_t>(W * A->getNumElements(),
                                       DYNCALL_PPC64LE_VR_ARG_REGS);
  }
  Fpr = std::min(Fpr, (unsigned)DYNCALL_PPC64LE_FPR_ARG_REGS);
  Vr = std::min(Vr, (unsigned)DYNCALL_PPC64LE_VR_ARG_REGS);
}

/// ppc64le ELFv2: the bytes of the parameter save area a value of type T
/// takes when passed directly (the backend's layout of a C call: a
/// scalar one doubleword, a vector or fp128 a quadword-aligned quadword,
/// a first-class aggregate its elements one after the other, an array, in
/// consecutive registers, its elements at their own size and then rounded
/// to a doubleword), placed at Off (updated): __int128 (i128) at the next
/// doubleword, an aggregate clang coerced to [N x i128] (16-byte aligned)
/// at the next quadword.  false: a type this does not know.
static bool ppcSaveArea(Type *T, uint64_t &Off, int Depth = 0) {
  if (Depth > 16)
    return false;
  auto Place = [&Off](uint64_t Size, uint64_t Al) {
    Off = alignTo(alignTo(Off, Al) + Size, 8);
  };
  if (auto *I = dyn_cast<IntegerType>(T)) {
    unsigned Bits = I->getBitWidth();
    if (Bits > 128)
      return false;
    Place(Bits > 64 ? 16 : 8, 8); // i128: two doublewords, any pair
    return true;
  }
  if (T->isPointerTy() || T->isFloatTy() || T->isDoubleTy()) {
    Place(8, 8);
    return true;
  }
  if (T->isPPC_FP128Ty()) { // two doublewords, f1-f2
    Place(16, 8);
    return true;
  }
  if (T->isFP128Ty()) {
    Place(16, 16);
    return true;
  }
  if (auto *V = dyn_cast<FixedVectorType>(T)) {
    if (V->getElementType()->isIntegerTy(1))
      return false; // masks: not a C type
    Place(alignTo(V->getPrimitiveSizeInBits().getFixedValue(), 128) / 8, 16);
    return true;
  }
  if (auto *S = dyn_cast<StructType>(T)) { // split into its elements
    for (Type *E : S->elements())
      if (!ppcSaveArea(E, Off, Depth + 1))
        return false;
    return true;
  }
  if (auto *A = dyn_cast<ArrayType>(T)) {
    // a homogeneous aggregate ([N x double], [N x <4 x i32>]) or an
    // aggregate clang coerced to [N x i64] / [N x i128]: each element at
    // its own size (floats packed two to a doubleword)
    Type *E = A->getElementType();
    uint64_t Size = 0, Al = 0;
    if (E->isFloatTy()) {
      Size = Al = 4;
    } else if (E->isDoubleTy() || E->isPointerTy() ||
               (E->isIntegerTy() && E->getIntegerBitWidth() <= 64)) {
      Size = Al = 8;
    } else if (E->isPPC_FP128Ty()) {
      Size = 16;
      Al = 8;
    } else if (E->isFP128Ty() || E->isIntegerTy(128)) {
      Size = Al = 16;
    } else if (auto *V = dyn_cast<FixedVectorType>(E);
               V && !V->getElementType()->isIntegerTy(1)) {
      Size = alignTo(V->getPrimitiveSizeInBits().getFixedValue(), 128) / 8;
      Al = 16;
    } else {
      return false;
    }
    Off = alignTo(alignTo(Off, Al) +
                      Size * std::min<uint64_t>(A->getNumElements(), 1024),
                  8);
    return true;
  }
  return false; // scalable vectors, target types, x86 types, ...
}

/// ppc64le ELFv2: F's integer argument registers r3.. (FnVecUse::IntRegs),
/// an upper bound.  r3-r10 are the first eight doublewords of the
/// parameter save area, where every argument has its place (also one
/// passed in an FPR or a VR); an argument in GPRs is in those of its
/// doublewords, so the count is the doublewords up to the end of the last
/// argument, capped at 8: `f(double, long)` 2 (the long in r4), a byval
/// aggregate (copied from GPRs and memory) as many as it takes.  fastcc
/// (internal functions) gives GPRs to the integer arguments alone, in
/// order: no more than this.  -1 when the record must not say (variadic;
/// the static chain r11 or another register an attribute assigns; a type
/// ppcSaveArea does not know).
static void ppcIntUse(const Function &F, FnVecUse &U) {
  uint64_t Off = 0;
  U.IntRegs = -1;
  if (F.isVarArg())
    return;
  for (const Argument &A : F.args()) {
    if (takesOwnRegister(A))
      return;
    if (Type *BV = A.getParamByValType()) {
      const DataLayout &DL = F.getParent()->getDataLayout();
      uint64_t Al =
          std::max<uint64_t>(A.getParamAlign().valueOrOne().value(), 8);
      Off = alignTo(alignTo(Off, Al) + DL.getTypeAllocSize(BV).getFixedValue(),
                    8);
    } else if (!ppcSaveArea(A.getType(), Off)) {
      return;
    }
    Off = std::min<uint64_t>(Off, 1u << 20);
  }
  U.IntRegs =
      (int)std::min<uint64_t>((Off + 7) / 8, DYNCALL_PPC64LE_INT_ARG_REGS);
}

/// What F's prototype passes in vector registers (x86-64 SysV, AAPCS64,
/// ppc64le ELFv2): false for a calling convention this does not know (no
/// record: the runtime's safe default).
bool fnVecUse(const Function &F, FnVecUse &U) {
  // fastcc: what the optimizer gives internal functions; on x86-64 and
  // aarch64 it assigns registers like C (the types decide, counted below)
  if (F.getCallingConv() != CallingConv::C &&
      F.getCallingConv() != CallingConv::Fast)
    return false;
  Triple T(F.getParent()->getTargetTriple());
  bool AArch64 = T.isAArch64();
  // SVE arguments (scalable vectors, predicates) use z and p registers
  // wider than what the jump function saves: no record
  for (const Argument &A : F.args())
    if (isa<ScalableVectorType>(A.getType()) || A.getType()->isTargetExtTy())
      return false;
  U = FnVecUse();
  if (T.getArch() == Triple::ppc64le) {
    if (F.isVarArg()) { // every register: as without a record
      U.VarArg = true;
      U.Regs = DYNCALL_PPC64LE_FPR_ARG_REGS;
      U.Regs2 = DYNCALL_PPC64LE_VR_ARG_REGS;
      return true;
    }
    for (const Argument &A : F.args())
      ppcRegs(A.getType(), U.Regs, U.Regs2);
    ppcIntUse(F, U);
    return true;
  }
  if (F.isVarArg()) { // %al and up to xmm0-7 from every caller
    U.VarArg = true;
    U.Regs = VecArgRegs;
  }
  // 256-bit vectors take one ymm with AVX, 512-bit ones one zmm with
  // AVX-512F (and 512-bit EVEX: "-evex512", AVX10/256, splits them in two
  // ymm); the function's own features: clang decides by the translation
  // unit's, the backend by these
  unsigned Granule = 128;
  SmallVector<StringRef, 16> Features;
  F.getFnAttribute("target-features").getValueAsString().split(Features, ',');
  if (llvm::is_contained(Features, "+avx"))
    Granule = 256;
  if (llvm::is_contained(Features, "+avx512f") &&
      !llvm::is_contained(Features, "-evex512"))
    Granule = 512;
  for (const Argument &A : F.args())
    U.Regs =
        std::min(U.Regs + vecRegs(A.getType(), Granule, U.Width), VecArgRegs);
  if (AArch64) // a vector wider than 16 bytes goes by reference there
    U.Width = 16;
  fnIntUse(F, AArch64, U);
  return true;
}

/// Its record's flags (abi.h enum dyncall_fn_record_flags); Ppc: both
/// vector counts (DYNCALL_FN_REC_VEC2_COUNT).
static uint32_t recordFlags(const FnVecUse &U, bool Ppc) {
  uint32_t Fl = 0;
  if (U.IntRegs >= 0)
    Fl = DYNCALL_FN_REC_INT_COUNT |
         (uint32_t)U.IntRegs << DYNCALL_FN_REC_INT_SHIFT |
         (U.X8 ? DYNCALL_FN_REC_INT_X8 : 0);
  if (!U.Regs && !U.Regs2 && !U.VarArg)
    return Fl | DYNCALL_FN_REC_NO_VEC;
  Fl |= DYNCALL_FN_REC_VEC_COUNT | U.Regs << DYNCALL_FN_REC_VEC_SHIFT;
  if (Ppc)
    Fl |= DYNCALL_FN_REC_VEC2_COUNT | U.Regs2 << DYNCALL_FN_REC_VEC2_SHIFT;
  if (U.VarArg)
    Fl |= DYNCALL_FN_REC_VARIADIC;
  if (U.Width == 32)
    Fl |= DYNCALL_FN_REC_VEC_YMM;
  if (U.Width == 64)
    Fl |= DYNCALL_FN_REC_VEC_ZMM;
  return Fl;
}

static bool patchable(const Function &F) {
  Attribute A = F.getFnAttribute("patchable-function-entry");
  unsigned N = 0;
  return A.isValid() && !A.getValueAsString().getAsInteger(10, N) && N > 0;
}

/// ppc64le, Clang's route (docs/prologues.md "What the compilers emit
/// (ppc64le)"): F gets an XRay entry sled, which the runtime patches.
/// The XRay pass instruments an "xray-always" function, never an
/// "xray-never" one, and otherwise one of at least the threshold's
/// instructions: every function with dyncall-cc --dyncall-prologues'
/// threshold of 1.  Another threshold may leave F without a sled, and a
/// record naming a function without one fails dyncall-rewrite check
/// (DC066): no record there.
static bool xraySled(const Function &F) {
  StringRef I = F.getFnAttribute("function-instrument").getValueAsString();
  if (I == "xray-always")
    return true;
  if (I == "xray-never" || F.hasFnAttribute("xray-skip-entry"))
    return false;
  return F.getFnAttribute("xray-instruction-threshold").getValueAsString() ==
         "1";
}

bool emitFnRecords(Module &M) {
  Triple T(M.getTargetTriple());
  bool Ppc = T.getArch() == Triple::ppc64le;
  if ((T.getArch() != Triple::x86_64 && T.getArch() != Triple::aarch64 &&
       !Ppc) ||
      !T.isOSBinFormatELF())
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
    FnVecUse U;
    if (F.isDeclarationForLinker() || !(Ppc ? xraySled(F) : patchable(F)) ||
        !fnVecUse(F, U))
      continue;
    if (PreLink && (F.isWeakForLinker() || F.hasComdat()))
      continue;
    auto *GV = new GlobalVariable(
        M, RecTy, /*isConstant=*/false, GlobalValue::PrivateLinkage,
        ConstantStruct::get(RecTy, {&F, ConstantInt::get(I32, recordFlags(U, Ppc)),
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

/// The targets whose patchable prologues the runtime drives from this pass
/// (x86-64 and aarch64 ELF): alignPatchable and dropUnpatchable act there.
static bool entryPatchingTarget(const Module &M) {
  Triple T(M.getTargetTriple());
  return (T.getArch() == Triple::x86_64 || T.getArch() == Triple::aarch64) &&
         T.isOSBinFormatELF();
}

/// A patchable function defined here with pre-entry NOPs (the runtime's
/// slot and jumps right before its entry).
static bool hasPreEntryNops(const Function &F) {
  Attribute Pre = F.getFnAttribute("patchable-function-prefix");
  unsigned N = 0;
  return !F.isDeclaration() && patchable(F) && Pre.isValid() &&
         !Pre.getValueAsString().getAsInteger(10, N) && N > 0;
}

bool alignPatchable(Module &M) {
  if (!entryPatchingTarget(M))
    return false;
  bool Changed = false;
  for (Function &F : M) {
    if (!hasPreEntryNops(F))
      continue;
    if (F.getAlign().valueOrOne() < Align(8)) {
      F.setAlignment(Align(8));
      Changed = true;
    }
  }
  return Changed;
}

bool dropUnpatchable(Module &M) {
  if (!entryPatchingTarget(M))
    return false;
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !patchable(F) ||
        ((F.getCallingConv() == CallingConv::C ||
          F.getCallingConv() == CallingConv::Fast) &&
         !F.hasFnAttribute("no_caller_saved_registers")))
      continue;
    F.removeFnAttr("patchable-function-entry");
    F.removeFnAttr("patchable-function-prefix");
    Changed = true;
  }
  return Changed;
}

bool freePreEntry(Module &M) {
  if (!entryPatchingTarget(M))
    return false;
  bool Changed = false;
  for (Function &F : M) {
    if (!hasPreEntryNops(F) || !F.hasMetadata(LLVMContext::MD_func_sanitize))
      continue;
    F.setMetadata(LLVMContext::MD_func_sanitize, nullptr);
    Changed = true;
  }
  return Changed;
}

PreservedAnalyses FnRecordsPass::run(Module &M, ModuleAnalysisManager &) {
  if (std::any_of(M.begin(), M.end(),
                  [](const Function &F) {
                    return !F.isDeclaration() && patchable(F);
                  }) &&
      refuseCfi(M))
    return PreservedAnalyses::all();
  bool Dropped = dropUnpatchable(M);
  bool Aligned = alignPatchable(M);
  bool Freed = freePreEntry(M);
  return emitFnRecords(M) || Aligned || Dropped || Freed
             ? PreservedAnalyses::none()
             : PreservedAnalyses::all();
}

} // namespace dyncall
