//===- DynCallPass.cpp - dynamic_call sites to patchable direct calls -----===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Turns
//
//   %fp = load ptr, ptr @on_event          ; @on_event is a dynamic_call key
//   %r  = call i32 %fp(i32 42)
//
// into
//
//   %fp = load ptr, ptr @on_event
//   %r  = call i32 @__dyncall_tramp.<unit>.<n>(ptr nest %fp, i32 42)
//
// where the trampoline (module asm, Trampolines.cpp) starts with a branch the
// runtime patches and falls back to an indirect branch through the static
// chain. The loaded pointer travels in the chain register so that a site whose
// key was changed behind the compiler's back still calls what it loaded (the
// runtime's guard stubs compare it). Each site gets a __dyncall_sites entry,
// each key a __dyncall_keys entry; stores to variable keys become calls to
// __dyncall_store, stores to annotated fields notify __dyncall_note.
//
// With -dyncall-whole-program every other indirect call (function pointers of
// any origin, C++ virtual calls and member-function pointers, tail calls)
// becomes a guarded site of the unit's whole-program key, a type key the
// runtime's learning sites handle (docs/whole-program.md); a filter file
// (-dyncall-whole-program-filter=<file>, WholeProgramFilter.h) limits which.
//
// The pass runs in two phases (docs/llvm-pass.md): stores at pipeline start,
// sites at the end of the per-module optimization pipeline (also at -O0 and
// in (Thin)LTO pre-link), so it sees loads after mem2reg and GVN, and code
// duplication after it (inlining in the LTO backend, unrolling) only copies
// calls to trampolines, which the runtime handles.
//
//===----------------------------------------------------------------------===//

#include "DynCallPass.h"
#include "CondSites.h"
#include "Freshness.h"
#include "Trampolines.h"
#include "Unsupported.h"
#include "WholeProgramFilter.h"
#include "dyncall/abi.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MD5.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

#define DEBUG_TYPE "dynamic-call"

STATISTIC(NumSites, "Number of calls turned into dyncall sites");
STATISTIC(NumFreshSites, "Number of sites that may be patched unguarded");
STATISTIC(NumCondSites, "Number of `if (k) k(...)` made conditional sites");
STATISTIC(NumCondMissed, "Number of null-tested calls left behind their if");
STATISTIC(NumMissed, "Number of calls through keys left indirect");
STATISTIC(NumStores, "Number of key stores routed through the runtime");
STATISTIC(NumNotes, "Number of annotated field stores notifying the runtime");
STATISTIC(NumWPSites, "Number of indirect calls made whole-program sites");
STATISTIC(NumWPMissed, "Number of indirect calls whole-program mode left alone");
STATISTIC(NumWPFiltered,
          "Number of indirect calls the whole-program filter excluded");
STATISTIC(NumInlineGuards,
          "Number of whole-program sites given an inline guard");

static cl::opt<bool>
    ClDisable("dyncall-disable",
              cl::desc("dyncall: keep the attribute, transform nothing"),
              cl::Hidden, cl::init(false));

static cl::opt<bool> ClWholeProgram(
    "dyncall-whole-program",
    cl::desc("dyncall: make every indirect call a guarded site of the "
             "unit's whole-program key (docs/whole-program.md)"),
    cl::Hidden, cl::init(false));

static cl::opt<std::string> ClWholeProgramFilter(
    "dyncall-whole-program-filter",
    cl::desc("dyncall: whole-program mode, limited to the calls the filter "
             "file selects (implies -dyncall-whole-program)"),
    cl::value_desc("file"), cl::Hidden);

static cl::opt<bool> ClInlineGuard(
    "dyncall-inline-guard",
    cl::desc("dyncall: give whole-program sites an inline guard (compare "
             "with a learned literal, direct call on a hit; x86-64, not in "
             "optnone/optsize/minsize/cold functions; docs/abi.md)"),
    cl::Hidden, cl::init(true));

namespace dyncall {
namespace {

constexpr StringLiteral AnnotationName = DYNCALL_ATTR_NAME;
constexpr StringLiteral ExternKeyMarker = "/* dyncall-key: ";
constexpr StringLiteral StoresDoneFlag = "dyncall.stores";
constexpr StringLiteral SitesDoneFlag = "dyncall.abi";
constexpr StringLiteral RuntimeApiPrefix = "dyncall_"; // include/dyncall.h

/// A key as the pass sees it: a variable (its address) or a type key (its
/// descriptor). Either way the runtime identifies it by one address.
struct Key {
  GlobalVariable *Object = nullptr; // variable or type-key descriptor
  std::string Name;                 // source name, for messages
  bool IsType = false;
  // An array key (name ends in "[]"): type-like, its element stores stay
  // plain, so it always ESCAPES and its sites are never fresh.
  bool IsArray = false;
  bool Escapes = false;
  // The unit's whole-program key (always a type key that escapes).
  bool IsWholeProgram = false;
  GlobalVariable *Cell = nullptr; // __dyncall_keycell.*
};

class DynCallTransform {
public:
  DynCallTransform(Module &M, ModuleAnalysisManager &MAM, DynCallPass::Phase P)
      : M(M), MAM(MAM), P(P), Ctx(M.getContext()), Int8(Type::getInt8Ty(Ctx)),
        Int16(Type::getInt16Ty(Ctx)), Int32(Type::getInt32Ty(Ctx)),
        Ptr(PointerType::getUnqual(Ctx)), Tramps(TargetTrampolines::get(
                                               Triple(M.getTargetTriple()))) {}

  bool run();

private:
  void collectAnnotatedGlobals();
  void collectExternKeys();
  void addVariableKey(GlobalVariable *GV, StringRef Name);
  Key *keyForName(StringRef Name);
  Key *keyForAnnotation(const CallBase &Annotation);
  Key *keyForBase(Value *P);
  Key *keyForPointer(Value *P);
  GlobalVariable *typeKeyDescriptor(const std::string &Sym);
  std::string unitId();
  Key &wholeProgramKey();
  bool readFilter();
  CallFacts callFacts(CallBase &CB);
  std::string fieldOf(const LoadInst &Load);
  std::optional<StringRef> wholeProgramSkip(const CallBase &CB);

  void rewriteSites(Function &F);
  void rewriteFieldStores(Function &F);
  bool runStores();
  bool runSites();
  bool rewriteCall(CallBase &CB, Key &K, bool Fresh,
                   OptimizationRemarkEmitter &ORE, bool Cond = false);
  // rewriteCall's parts: the site's trampoline, the call rebuilt through it,
  // the entry's flags.
  Function *createTrampoline(const CallBase &CB, const TrampolineStyle &Style,
                             std::string &Name);
  CallBase *callThroughTrampoline(CallBase &CB, Function *Tramp, bool Cond);
  uint16_t siteFlags(const Key &K, bool Fresh, bool Retpoline);
  bool wantInlineGuard(const CallBase &CB) const;
  std::string emitInlineGuard(CallBase &Site, const TrampolineStyle &Style,
                              bool Tail, uint16_t Flags, StringRef SiteName);
  void guardInvoke(InvokeInst *II, Function *Hit, Value *IsHit,
                   MDNode *Weights);
  std::optional<StringRef> siteBlocker(const CallBase &CB);
  bool foldGuardedCall(CallBase &CB, LoadInst &Load, Key &K,
                       OptimizationRemarkEmitter &ORE);
  void rewriteKeyUses(Key &K);
  /// What one instruction does with the key's address (rewriteKeyUses).
  void classifyKeyUse(Key &K, Use *U, Instruction *I,
                      SmallVectorImpl<Use *> &Work,
                      SmallVectorImpl<StoreInst *> &Stores,
                      SmallVectorImpl<Instruction *> &RMWs);
  void notifyFieldStore(StoreInst &SI, Key &K);
  void collectBeforeRelocation();

  Constant *relative(Constant *Target, Constant *Entry, unsigned Field,
                     StructType *Ty);
  Constant *relativeAt(Constant *Target, Constant *Base, Type *BaseTy,
                       ArrayRef<unsigned> Indices);
  void emitSiteTable();
  GlobalVariable *cellFor(Key &K);
  void emitKeyEntry(Key &K);
  void emitKeyEntries();
  void emitRegistration();
  void emitRetpolineThunk();

  Module &M;
  ModuleAnalysisManager &MAM;
  DynCallPass::Phase P;
  LLVMContext &Ctx;
  Type *Int8, *Int16, *Int32;
  PointerType *Ptr;
  const TargetTrampolines *Tramps;

  MapVector<GlobalVariable *, Key> VarKeys;
  StringMap<Key> TypeKeys;                    // also the array keys
  // Array variable -> its key's name (the key and its descriptor are made
  // on first use: an array nobody calls through needs neither).
  DenseMap<GlobalVariable *, std::string> ArrayVars;
  std::string UnitId;
  unsigned NextSite = 0;
  bool NeedRetpoline = false;
  std::string Asm;
  SmallVector<GlobalValue *, 64> Used;
  StructType *SiteTy = nullptr, *KeyTy = nullptr;
  struct SiteRecord {
    Function *Tramp;
    GlobalVariable *Cell;
    uint8_t Kind;
    uint16_t Flags;
  };
  SmallVector<SiteRecord, 64> SiteRecords;
  /// IFUNC resolvers and what they call (collectBeforeRelocation).
  SmallPtrSet<const Function *, 8> BeforeRelocation;

  // Whole-program mode (-dyncall-whole-program).
  bool WholeProgram = false;
  std::optional<Key> WPKey;
  std::optional<WholeProgramFilter> Filter;
  bool HaveDebugTypes = false;
  /// Debug-info struct types by name (C tag or unqualified C++ name), for
  /// field rules; filled on first use.
  std::optional<StringMap<const DICompositeType *>> DebugStructs;
};

/// A warning with a plain message (Clang prints it as "warning: <msg>").
class PluginWarning : public DiagnosticInfo {
public:
  explicit PluginWarning(const Twine &Msg)
      : DiagnosticInfo(kind(), DS_Warning), Msg(Msg.str()) {}
  void print(DiagnosticPrinter &DP) const override { DP << Msg; }

private:
  static int kind() {
    static const int K = getNextAvailablePluginDiagnosticKind();
    return K;
  }
  std::string Msg;
};

/// The string constant behind an annotation operand, if any.
std::optional<StringRef> constantString(const Value *V) {
  V = V->stripPointerCasts();
  if (const auto *GV = dyn_cast<GlobalVariable>(V))
    if (GV->hasInitializer())
      V = GV->getInitializer();
  if (const auto *CDA = dyn_cast<ConstantDataArray>(V))
    if (CDA->isCString() || CDA->isString())
      return CDA->isCString() ? CDA->getAsCString() : CDA->getAsString();
  return std::nullopt;
}

/// The first argument of an annotate("dynamic_call", "<name>") attribute: a
/// pointer to an anonymous struct of constants.
std::string annotationArgName(const Value *Args) {
  if (!Args)
    return "";
  Args = Args->stripPointerCasts();
  const auto *GV = dyn_cast<GlobalVariable>(Args);
  if (!GV || !GV->hasInitializer())
    return "";
  const auto *CS = dyn_cast<ConstantStruct>(GV->getInitializer());
  if (!CS || CS->getNumOperands() == 0)
    return "";
  if (auto S = constantString(CS->getOperand(0)))
    return S->str();
  return "";
}

void DynCallTransform::collectAnnotatedGlobals() {
  GlobalVariable *Annotations = M.getGlobalVariable("llvm.global.annotations");
  if (!Annotations || !Annotations->hasInitializer())
    return;
  auto *Array = dyn_cast<ConstantArray>(Annotations->getInitializer());
  if (!Array)
    return;
  for (const Use &U : Array->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(U.get());
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto Str = constantString(Entry->getOperand(1));
    if (!Str || *Str != AnnotationName)
      continue;
    auto *GV =
        dyn_cast<GlobalVariable>(Entry->getOperand(0)->stripPointerCasts());
    if (!GV)
      continue;
    std::string Name = Entry->getNumOperands() > 4
                           ? annotationArgName(Entry->getOperand(4))
                           : "";
    addVariableKey(GV, Name.empty() ? GV->getName() : StringRef(Name));
  }
}

/// A variable key, or an array variable's (type-like) array key.
void DynCallTransform::addVariableKey(GlobalVariable *GV, StringRef Name) {
  if (Name.ends_with("[]")) {
    ArrayVars[GV] = Name.str();
    return;
  }
  Key &K = VarKeys[GV];
  K.Object = GV;
  if (K.Name.empty())
    K.Name = Name.str();
}

/// Extern keys arrive as comments in module asm (see DynCallAttr.cpp); read
/// them, and drop the lines once the last phase has read them.
void DynCallTransform::collectExternKeys() {
  StringRef Text = M.getModuleInlineAsm();
  if (!Text.contains(ExternKeyMarker))
    return;
  std::string Kept;
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  for (StringRef Line : Lines) {
    StringRef L = Line.trim();
    if (!L.consume_front(ExternKeyMarker) || !L.consume_back("*/")) {
      if (!Line.empty())
        (Kept += Line) += '\n';
      continue;
    }
    // "<symbol> <key name>"
    auto [Sym, Name] = L.trim().split(' ');
    Name = Name.trim();
    if (GlobalVariable *GV = M.getGlobalVariable(Sym, /*AllowLocal=*/true))
      addVariableKey(GV, Name.empty() ? Sym : Name);
  }
  if (P != DynCallPass::Phase::Stores)
    M.setModuleInlineAsm(Kept);
}

Key *DynCallTransform::keyForAnnotation(const CallBase &Annotation) {
  auto Str = constantString(Annotation.getArgOperand(1));
  if (!Str || *Str != AnnotationName)
    return nullptr;
  std::string Name = Annotation.arg_size() > 4
                         ? annotationArgName(Annotation.getArgOperand(4))
                         : "";
  if (Name.empty())
    return nullptr;
  return keyForName(Name);
}

/// The type key (annotated field or array) of this name, created on first
/// use with its descriptor.
Key *DynCallTransform::keyForName(StringRef Name) {
  auto [It, Inserted] = TypeKeys.try_emplace(Name);
  Key &K = It->second;
  if (Inserted) {
    K.Name = Name.str();
    K.IsType = true;
    K.IsArray = Name.ends_with("[]");
    K.Escapes = K.IsArray;
    // One descriptor per key name and module; COMDAT + hidden merges the
    // copies of a DSO, and the GCC plugin derives the same symbol name.
    MD5 Hash;
    Hash.update(Name);
    MD5::MD5Result R;
    Hash.final(R);
    K.Object = typeKeyDescriptor(
        (DYNCALL_TYPE_KEY_PREFIX + R.digest()).str());
  }
  return &K;
}

/// The key whose object is \p P itself (a variable, an annotated field's
/// address, an array variable), if any.
Key *DynCallTransform::keyForBase(Value *P) {
  if (auto *GV = dyn_cast<GlobalVariable>(P)) {
    if (auto It = VarKeys.find(GV); It != VarKeys.end())
      return &It->second;
    if (auto It = ArrayVars.find(GV); It != ArrayVars.end())
      return keyForName(It->second);
    return nullptr;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(P))
    if (II->getIntrinsicID() == Intrinsic::ptr_annotation)
      return keyForAnnotation(*II);
  return nullptr;
}

/// The key whose object \p P points into, if any: the key itself, or an
/// element of an array key (constant or variable GEPs from the array, in
/// any dimension; nothing that is not provably inside the array).
Key *DynCallTransform::keyForPointer(Value *P) {
  P = P->stripPointerCasts();
  if (Key *K = keyForBase(P))
    return K;
  auto *GEP = dyn_cast<GEPOperator>(P);
  if (!GEP)
    return nullptr;
  Value *Base = P;
  while ((GEP = dyn_cast<GEPOperator>(Base)))
    Base = GEP->getPointerOperand()->stripPointerCasts();
  Key *K = keyForBase(Base);
  return K && K->IsArray ? K : nullptr;
}

/// Unique per translation unit (full LTO merges modules, so trampoline names
/// must not collide), and reproducible.
std::string DynCallTransform::unitId() {
  if (!UnitId.empty())
    return UnitId;
  MD5 Hash;
  Hash.update(M.getSourceFileName());
  Hash.update(M.getModuleIdentifier());
  for (const GlobalValue &GV : M.global_values())
    if (!GV.isDeclaration() && !GV.hasLocalLinkage()) {
      Hash.update(GV.getName());
      break;
    }
  MD5::MD5Result R;
  Hash.final(R);
  UnitId = R.digest().str().substr(0, 16);
  return UnitId;
}

/// The unit's whole-program key: a type-key descriptor of its own, hidden and
/// in a COMDAT of its unit-unique name (two copies of one unit in a link
/// share it), with a key entry flagged TYPE|ESCAPES|WHOLE_PROGRAM.
Key &DynCallTransform::wholeProgramKey() {
  if (WPKey)
    return *WPKey;
  Key &K = WPKey.emplace();
  K.Name = DYNCALL_WP_KEY_NAME;
  K.IsType = true;
  K.Escapes = true;
  K.IsWholeProgram = true;
  K.Object = typeKeyDescriptor(DYNCALL_WP_KEY_PREFIX + unitId());
  return K;
}

/// The struct dyncall_type_key named Sym (a type key's or the unit's
/// whole-program key): writable, hidden, COMDAT so that the copies of a DSO
/// merge, made once per module.
GlobalVariable *DynCallTransform::typeKeyDescriptor(const std::string &Sym) {
  auto *Ty = StructType::get(Ptr, Type::getInt64Ty(Ctx));
  if (auto *GV = M.getGlobalVariable(Sym, true))
    return GV;
  auto *GV = new GlobalVariable(M, Ty, false, GlobalValue::LinkOnceODRLinkage,
                                Constant::getNullValue(Ty), Sym);
  GV->setVisibility(GlobalValue::HiddenVisibility);
  GV->setComdat(M.getOrInsertComdat(Sym));
  GV->setAlignment(Align(8));
  return GV;
}

/// Reads the filter file, if any (once per module). A bad file is an error:
/// the exact line `<file>:<line>: error: <what>` (the GCC plugin prints the
/// same), then a compiler error so that the compilation fails.
bool DynCallTransform::readFilter() {
  if (ClWholeProgramFilter.empty())
    return true;
  std::string Error;
  Filter = WholeProgramFilter::read(ClWholeProgramFilter, Error);
  if (!Filter) {
    errs() << Error << '\n';
    Ctx.emitError("dyncall: invalid whole-program filter '" +
                  ClWholeProgramFilter + "'");
    return false;
  }
  bool HaveLocations = false;
  for (const DICompileUnit *CU : M.debug_compile_units()) {
    HaveLocations = true;
    HaveDebugTypes |=
        CU->getEmissionKind() == DICompileUnit::DebugEmissionKind::FullDebug;
  }
  if ((Filter->needsFields() && !HaveDebugTypes) ||
      (Filter->needsLines() && !HaveLocations))
    Ctx.diagnose(PluginWarning(
        "dyncall: the whole-program filter '" + ClWholeProgramFilter +
        "' has field or line rules, which need debug information (-g); "
        "in this unit they match no call"));
  LLVM_DEBUG(dbgs() << "dyncall: whole-program filter " << ClWholeProgramFilter
                    << " read\n");
  return true;
}

/// What the filter may ask about \p CB. A call matches a function rule by
/// the function it was compiled into or, with debug information, the one it
/// is written in (they differ once it was inlined).
CallFacts DynCallTransform::callFacts(CallBase &CB) {
  CallFacts C;
  auto AddFunction = [&](StringRef Name) {
    if (Name.empty())
      return;
    C.Functions.push_back(Name.str());
    if (Name.starts_with("_Z"))
      if (std::string D = demangle(Name); D != Name)
        C.Functions.push_back(D);
  };
  AddFunction(CB.getFunction()->getName());
  if (const DILocation *L = CB.getDebugLoc()) {
    C.File = L->getFilename().str();
    C.Line = L->getLine();
    if (const DISubprogram *SP = L->getScope()->getSubprogram())
      AddFunction(SP->getLinkageName().empty() ? SP->getName()
                                               : SP->getLinkageName());
  } else {
    C.File = M.getSourceFileName();
  }
  if (Filter->needsFields() && HaveDebugTypes) {
    Value *Callee = CB.getCalledOperand()->stripPointerCasts();
    if (auto *I2P = dyn_cast<IntToPtrInst>(Callee))
      Callee = I2P->getOperand(0);
    if (auto *Load = dyn_cast<LoadInst>(Callee))
      C.Field = fieldOf(*Load);
  }
  return C;
}

/// "<struct>.<field>" of the field \p Load reads, or "": the struct and the
/// byte offset come from the TBAA access tag (optimized code, where GEPs
/// are canonicalized to byte offsets) or from a struct GEP (-O0); the field
/// name at that offset from the debug information.
std::string DynCallTransform::fieldOf(const LoadInst &Load) {
  std::string Struct;
  uint64_t Offset = 0;
  const MDNode *Tag = Load.getMetadata(LLVMContext::MD_tbaa);
  if (Tag && Tag->getNumOperands() >= 3 &&
      Tag->getOperand(0) != Tag->getOperand(1)) {
    const auto *Base = dyn_cast<MDNode>(Tag->getOperand(0));
    const auto *Off = mdconst::dyn_extract<ConstantInt>(Tag->getOperand(2));
    if (!Base || !Off || Base->getNumOperands() == 0)
      return "";
    const auto *Name = dyn_cast<MDString>(Base->getOperand(0));
    if (!Name)
      return "";
    Struct = Name->getString().str();
    // C++: the type's mangled name, "_ZTS3ops" -> "ops".
    if (StringRef(Struct).starts_with("_ZTS")) {
      Struct = demangle("_Z" + Struct.substr(4));
      StringRef S(Struct);
      S.consume_front("typeinfo name for ");
      Struct = S.str();
    }
    Offset = Off->getZExtValue();
  } else if (const auto *GEP = dyn_cast<GEPOperator>(Load.getPointerOperand());
             GEP && isa<StructType>(GEP->getSourceElementType())) {
    auto *ST = cast<StructType>(GEP->getSourceElementType());
    APInt Off(64, 0);
    if (!ST->hasName() || !GEP->accumulateConstantOffset(M.getDataLayout(), Off))
      return "";
    StringRef Name = ST->getName();
    for (StringRef Prefix : {"struct.", "union.", "class."})
      Name.consume_front(Prefix);
    // Clang renames clashing types "ops.0", "ops.1".
    if (auto [Head, Tail] = Name.rsplit('.'); !Tail.empty() &&
                                              all_of(Tail, isDigit))
      Name = Head;
    Struct = Name.str();
    Offset = Off.getZExtValue();
  } else {
    return "";
  }
  // "ns::ops" -> "ops": debug info names a type without its scope.
  StringRef Short = StringRef(Struct).rsplit("::").second;
  if (Short.empty())
    Short = Struct;

  if (!DebugStructs) {
    DebugStructs.emplace();
    DebugInfoFinder Finder;
    Finder.processModule(M);
    for (DIType *T : Finder.types())
      if (auto *CT = dyn_cast<DICompositeType>(T);
          CT && !CT->getName().empty() && !CT->isForwardDecl())
        DebugStructs->try_emplace(CT->getName(), CT);
  }
  auto It = DebugStructs->find(Short);
  if (It == DebugStructs->end())
    return "";
  for (const DINode *E : It->second->getElements())
    if (const auto *Member = dyn_cast<DIDerivedType>(E);
        Member && Member->getTag() == dwarf::DW_TAG_member &&
        Member->getOffsetInBits() == Offset * 8)
      return (Short + "." + Member->getName()).str();
  return "";
}

/// The value of a self-relative field: Target - &Entry.Field, as i32.
Constant *DynCallTransform::relative(Constant *Target, Constant *Entry,
                                     unsigned Field, StructType *Ty) {
  return relativeAt(Target, Entry, Ty, {0, Field});
}

/// Target - &Base[Indices...], as i32.
Constant *DynCallTransform::relativeAt(Constant *Target, Constant *Base,
                                       Type *BaseTy,
                                       ArrayRef<unsigned> Indices) {
  if (!Target)
    return ConstantInt::get(Int32, 0);
  Type *IntPtr = Type::getInt64Ty(Ctx);
  SmallVector<Constant *, 4> Idx;
  for (unsigned I : Indices)
    Idx.push_back(ConstantInt::get(Int32, I));
  Constant *FieldAddr =
      ConstantExpr::getInBoundsGetElementPtr(BaseTy, Base, Idx);
  Constant *Diff =
      ConstantExpr::getSub(ConstantExpr::getPtrToInt(Target, IntPtr),
                           ConstantExpr::getPtrToInt(FieldAddr, IntPtr));
  return ConstantExpr::getTrunc(Diff, Int32);
}

GlobalVariable *DynCallTransform::cellFor(Key &K) {
  if (K.Cell)
    return K.Cell;
  K.Cell = new GlobalVariable(M, Ptr, /*isConstant=*/true,
                              GlobalValue::PrivateLinkage, K.Object,
                              DYNCALL_KEYCELL_PREFIX + unitId());
  K.Cell->setAlignment(Align(8));
  return K.Cell;
}

/// Why \p CB cannot become a site, if it cannot.
std::optional<StringRef> DynCallTransform::siteBlocker(const CallBase &CB) {
  if (!Tramps)
    return StringRef("target not supported");
  if (auto *CI = dyn_cast<CallInst>(&CB); CI && CI->isMustTailCall())
    return StringRef("musttail calls cannot gain the static-chain argument");
  if (isa<CallBrInst>(CB))
    return StringRef("callbr");
  // The static chain is part of the C calling convention only.
  if (CB.getCallingConv() != CallingConv::C)
    return StringRef("the call does not use the C calling convention");
  if (CB.hasOperandBundles())
    return StringRef("the call carries operand bundles (e.g. kcfi)");
  for (unsigned I = 0; I < CB.arg_size(); ++I) {
    if (CB.paramHasAttr(I, Attribute::Nest))
      return StringRef("the call already uses the static chain");
    if (CB.paramHasAttr(I, Attribute::InAlloca) ||
        CB.paramHasAttr(I, Attribute::Preallocated))
      return StringRef("the call passes an argument inalloca or preallocated");
  }
  if (CB.getFunction()->getName().starts_with("__dyncall_"))
    return StringRef("the call is in dyncall's own code");
  return std::nullopt;
}

/// `if (k) k(...)` (CondSites.h): fold the test into the site when the shape
/// is one the pass knows and the target has conditional trampolines; else
/// say why the call stays behind its `if` (only for calls that look guarded).
bool DynCallTransform::foldGuardedCall(CallBase &CB, LoadInst &Load, Key &K,
                                       OptimizationRemarkEmitter &ORE) {
  // (a call that cannot be a site stays exactly as it is, test included)
  if (K.IsWholeProgram || siteBlocker(CB))
    return false;
  CondMatch Match = matchCondSite(CB, Load);
  if (Match.Site && !Tramps->hasCond())
    Match.WhyNot = "conditional sites are not implemented for this target "
                   "yet";
  if (!Match.WhyNot.empty()) {
    ++NumCondMissed;
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "CondNotFolded", &CB)
             << "null-tested call through dynamic_call key '" << K.Name
             << "' stays behind its test: " << Match.WhyNot;
    });
    return false;
  }
  if (!Match.Site)
    return false;
  foldCondSite(*Match.Site);
  return true;
}

/// The site's trampoline: the call's signature with the chain in front; its
/// text goes to the module's asm.
Function *DynCallTransform::createTrampoline(const CallBase &CB,
                                             const TrampolineStyle &Style,
                                             std::string &Name) {
  FunctionType *FT = CB.getFunctionType();
  SmallVector<Type *, 8> Params{Ptr};
  Params.append(FT->param_begin(), FT->param_end());
  auto *TFT = FunctionType::get(FT->getReturnType(), Params, FT->isVarArg());
  Name = (DYNCALL_TRAMP_PREFIX + unitId() + "." + Twine(NextSite++)).str();
  Function *Tramp =
      Function::Create(TFT, GlobalValue::ExternalLinkage, Name, M);
  if (!Tramps->clobbersToc()) { // ppc64le: see Trampolines.h
    Tramp->setVisibility(GlobalValue::HiddenVisibility);
    Tramp->setDSOLocal(true);
  }
  Tramp->setCallingConv(CB.getCallingConv());
  Tramp->addParamAttr(0, Attribute::Nest);
  if (CB.doesNotThrow())
    Tramp->addFnAttr(Attribute::NoUnwind);
  Asm += Tramps->trampoline(Name, Style);
  return Tramp;
}

/// CB rebuilt as a call of Tramp with the loaded pointer as `nest` argument
/// 0 (a conditional site's call is never a tail call); CB is erased.
CallBase *DynCallTransform::callThroughTrampoline(CallBase &CB,
                                                  Function *Tramp, bool Cond) {
  FunctionType *TFT = Tramp->getFunctionType();
  SmallVector<Value *, 8> Args{CB.getCalledOperand()};
  Args.append(CB.arg_begin(), CB.arg_end());
  AttributeList Old = CB.getAttributes();
  SmallVector<AttributeSet, 8> ArgAttrs{
      AttributeSet::get(Ctx, ArrayRef<Attribute>{
                                 Attribute::get(Ctx, Attribute::Nest)})};
  for (unsigned I = 0; I < CB.arg_size(); ++I)
    ArgAttrs.push_back(Old.getParamAttrs(I));
  AttributeList New = AttributeList::get(Ctx, Old.getFnAttrs(),
                                         Old.getRetAttrs(), ArgAttrs);
  CallBase *NewCB;
  if (auto *II = dyn_cast<InvokeInst>(&CB))
    NewCB = InvokeInst::Create(TFT, Tramp, II->getNormalDest(),
                               II->getUnwindDest(), Args, "", CB.getIterator());
  else {
    auto *CI = CallInst::Create(TFT, Tramp, Args, "", CB.getIterator());
    CI->setTailCallKind(Cond ? CallInst::TCK_NoTail
                             : cast<CallInst>(CB).getTailCallKind());
    NewCB = CI;
  }
  NewCB->setCallingConv(CB.getCallingConv());
  NewCB->setAttributes(New);
  NewCB->setDebugLoc(CB.getDebugLoc());
  NewCB->takeName(&CB);
  CB.replaceAllUsesWith(NewCB);
  CB.eraseFromParent();
  return NewCB;
}

/// The entry's flags (abi.h): fresh, type key, retpoline, IBT, BTI.
uint16_t DynCallTransform::siteFlags(const Key &K, bool Fresh,
                                     bool Retpoline) {
  uint16_t Flags = 0;
  if (Fresh)
    Flags |= DYNCALL_SITE_FRESH;
  if (K.IsType)
    Flags |= DYNCALL_SITE_TYPE_KEY;
  if (Retpoline)
    Flags |= DYNCALL_SITE_RETPOLINE;
  if (auto *CF = mdconst::extract_or_null<ConstantInt>(
          M.getModuleFlag("cf-protection-branch"));
      CF && CF->getZExtValue())
    Flags |= DYNCALL_SITE_IBT;
  if (auto *BTI = mdconst::extract_or_null<ConstantInt>(
          M.getModuleFlag("branch-target-enforcement"));
      BTI && BTI->getZExtValue())
    Flags |= DYNCALL_SITE_BTI;
  return Flags;
}

bool DynCallTransform::rewriteCall(CallBase &CB, Key &K, bool Fresh,
                                   OptimizationRemarkEmitter &ORE, bool Cond) {
  auto Missed = [&](StringRef Why) {
    if (K.IsWholeProgram) {
      ++NumWPMissed;
      LLVM_DEBUG(dbgs() << "dyncall: whole-program: left alone (" << Why
                        << "): " << CB << "\n");
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "WholeProgramNotTransformed",
                                        &CB)
               << "indirect call left alone (whole-program): " << Why;
      });
      return false;
    }
    ++NumMissed;
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "NotTransformed", &CB)
             << "call through dynamic_call key '" << K.Name
             << "' left indirect: " << Why;
    });
    return false;
  };
  if (std::optional<StringRef> Why = siteBlocker(CB))
    return Missed(*Why);
  Function &Caller = *CB.getFunction();
  TrampolineStyle Style;
  Style.Cond = Cond;
  Style.Retpoline = Caller.getFnAttribute("target-features")
                        .getValueAsString()
                        .contains("+retpoline-indirect-calls");
  NeedRetpoline |= Style.Retpoline;
  std::string Name;
  Function *Tramp = createTrampoline(CB, Style, Name);
  CallBase *NewCB = callThroughTrampoline(CB, Tramp, Cond);

  // The table entry. `site` and `func` stay 0: the call instruction does not
  // exist yet, and the runtime discovers it from the return address.
  // A tail jump has no return address to discover the site from. The IR
  // `tail` marker is only a hint; the backend emits a jump for a tail call in
  // tail position, which is what this predicts (the runtime verifies).
  bool Tail = false;
  if (auto *CI = dyn_cast<CallInst>(NewCB); CI && CI->isTailCall())
    if (auto *Ret = dyn_cast_or_null<ReturnInst>(CI->getNextNode()))
      Tail = !Ret->getReturnValue() || Ret->getReturnValue() == CI;
  uint16_t Flags = siteFlags(K, Fresh, Style.Retpoline);

  // Entries are collected and emitted as one array per module (one section,
  // not one per site: thousands of sections slow every later tool down).
  uint8_t Kind = Cond   ? DYNCALL_KIND_COND
                 : Tail ? DYNCALL_KIND_TAIL
                        : DYNCALL_KIND_CALL;
  SiteRecords.push_back({Tramp, cellFor(K), Kind, Flags});

  if (K.IsWholeProgram) {
    ++NumWPSites;
    LLVM_DEBUG(dbgs() << "dyncall: whole-program: site " << Name << "\n");
    // (the remark first: the guard moves the call into its own block)
    std::string Hit;
    bool Inline = Kind != DYNCALL_KIND_COND && wantInlineGuard(*NewCB);
    if (Inline)
      Hit = (DYNCALL_HIT_PREFIX +
             StringRef(Name).drop_front(strlen(DYNCALL_TRAMP_PREFIX)))
                .str();
    ORE.emit([&] {
      OptimizationRemark R(DEBUG_TYPE, "WholeProgramTransformed", NewCB);
      R << "indirect call is now site " << Name << " (whole-program, guarded";
      if (Inline)
        R << ", inline guard " << Hit;
      return R << ")";
    });
    if (Inline)
      emitInlineGuard(*NewCB, Style, Kind == DYNCALL_KIND_TAIL, Flags, Name);
    return true;
  }
  ++NumSites;
  NumFreshSites += Fresh;
  NumCondSites += Cond;
  ORE.emit([&] {
    return OptimizationRemark(DEBUG_TYPE, "Transformed", NewCB)
           << "call through dynamic_call key '" << K.Name << "' is now "
           << (Cond ? "conditional site " : "site ") << Name
           << (Fresh ? " (fresh)" : " (guarded)");
  });
  return true;
}

/// The inline guard's diamond for an invoke: two invokes (hit and miss)
/// with the same unwind edge, meeting in a new normal destination where a
/// phi merges their results.
void DynCallTransform::guardInvoke(InvokeInst *II, Function *Hit, Value *IsHit,
                                   MDNode *Weights) {
  Function &F = *II->getFunction();
  BasicBlock *Head = II->getParent();
  BasicBlock *Normal = II->getNormalDest(), *Unwind = II->getUnwindDest();
  // A normal destination of its own, where the two results meet.
  BasicBlock *Cont = BasicBlock::Create(Ctx, "dyncall.cont", &F, Normal);
  BranchInst::Create(Normal, Cont)->setDebugLoc(II->getDebugLoc());
  Normal->replacePhiUsesWith(Head, Cont);
  BasicBlock *HitBB = BasicBlock::Create(Ctx, "dyncall.hit", &F, Cont);
  BasicBlock *MissBB = BasicBlock::Create(Ctx, "dyncall.miss", &F, Cont);
  II->removeFromParent();
  BranchInst *Br = BranchInst::Create(HitBB, MissBB, IsHit, Head);
  Br->setMetadata(LLVMContext::MD_prof, Weights);
  Br->setDebugLoc(II->getDebugLoc());
  II->insertInto(MissBB, MissBB->end());
  II->setNormalDest(Cont);
  auto *HitII = cast<InvokeInst>(II->clone());
  HitII->setCalledFunction(Hit);
  HitII->insertInto(HitBB, HitBB->end());
  for (PHINode &PN : Unwind->phis()) {
    int Idx = PN.getBasicBlockIndex(Head);
    Value *V = PN.getIncomingValue(Idx);
    PN.setIncomingBlock(Idx, MissBB);
    PN.addIncoming(V, HitBB);
  }
  if (!II->getType()->isVoidTy()) {
    PHINode *PN = PHINode::Create(II->getType(), 2, "", Cont->begin());
    II->replaceAllUsesWith(PN);
    PN->addIncoming(HitII, HitBB);
    PN->addIncoming(II, MissBB);
  }
}

/// Inline guards (docs/abi.md, "Inline guards"): x86-64 whole-program sites
/// of functions compiled for speed (not optnone, which -O0 gives every
/// function, not optsize/minsize, not cold).
bool DynCallTransform::wantInlineGuard(const CallBase &CB) const {
  const Function &F = *CB.getFunction();
  return ClInlineGuard && Tramps->hasInlineGuard() && !F.hasOptNone() &&
         !F.hasOptSize() && !F.hasFnAttribute(Attribute::Cold);
}

/// Put the inline guard in front of the whole-program site \p Site (a call
/// or invoke of its trampoline, the loaded pointer %fp in the chain):
///
///   %lit = load atomic ptr, ptr @__dyncall_lit.<u>.<n> unordered, align 8
///   %hit = icmp eq ptr %lit, %fp
///   br i1 %hit, label %dyncall.hit, label %dyncall.miss   ; hit likely
/// dyncall.hit:
///   call @__dyncall_hit.<u>.<n>(ptr nest %fp, ...)   ; patched to `call T`
/// dyncall.miss:
///   call @__dyncall_tramp.<u>.<n>(ptr nest %fp, ...) ; the site as before
///
/// The literal holds its own address (the sentinel, never a function) until
/// the runtime stores the learned target T into it, once; the hit call is an
/// ordinary site call of its own trampoline, so it is correct before it is
/// patched too. Tail sites get the return duplicated into both branches
/// (both stay tail jumps); an invoke becomes two invokes with the same
/// unwind edge. Adds the DYNCALL_KIND_INLINE entry after the site's.
std::string DynCallTransform::emitInlineGuard(CallBase &Site,
                                              const TrampolineStyle &Style,
                                              bool Tail, uint16_t Flags,
                                              StringRef SiteName) {
  StringRef Suffix = SiteName.drop_front(strlen(DYNCALL_TRAMP_PREFIX));
  std::string HitName = (DYNCALL_HIT_PREFIX + Suffix).str();
  Function *Tramp = Site.getCalledFunction();
  Function *Hit = Function::Create(Tramp->getFunctionType(),
                                   GlobalValue::ExternalLinkage, HitName, M);
  Hit->setVisibility(GlobalValue::HiddenVisibility);
  Hit->setDSOLocal(true);
  Hit->setCallingConv(Tramp->getCallingConv());
  Hit->setAttributes(Tramp->getAttributes());
  Asm += Tramps->trampoline(HitName, Style);
  // The literal: writable (the runtime stores T), initially its own address.
  auto *Lit = new GlobalVariable(M, Ptr, /*isConstant=*/false,
                                 GlobalValue::PrivateLinkage, nullptr,
                                 DYNCALL_LIT_PREFIX + Suffix);
  Lit->setInitializer(Lit);
  Lit->setAlignment(Align(8));
  SiteRecords.push_back({Hit, Lit, DYNCALL_KIND_INLINE, Flags});
  ++NumInlineGuards;

  Value *FP = Site.getArgOperand(0);
  IRBuilder<> B(&Site);
  // unordered: one untorn 8-byte read, folded into the compare (cmp
  // lit(%rip),%r10); the runtime orders its writes itself.
  LoadInst *L = B.CreateAlignedLoad(Ptr, Lit, Align(8), "dyncall.lit");
  L->setAtomic(AtomicOrdering::Unordered);
  Value *IsHit = B.CreateICmpEQ(L, FP, "dyncall.hit");
  MDNode *Weights = MDBuilder(Ctx).createLikelyBranchWeights();

  if (auto *II = dyn_cast<InvokeInst>(&Site)) {
    guardInvoke(II, Hit, IsHit, Weights);
    return HitName;
  }

  auto *CI = cast<CallInst>(&Site);
  auto *Ret = Tail ? cast<ReturnInst>(CI->getNextNode()) : nullptr;
  Instruction *ThenT, *ElseT;
  SplitBlockAndInsertIfThenElse(IsHit, CI->getIterator(), &ThenT, &ElseT,
                                Weights);
  BasicBlock *Cont = CI->getParent();
  BasicBlock *HitBB = ThenT->getParent(), *MissBB = ElseT->getParent();
  HitBB->setName("dyncall.hit");
  MissBB->setName("dyncall.miss");
  auto *HitCI = cast<CallInst>(CI->clone());
  HitCI->setCalledFunction(Hit);
  HitCI->insertBefore(ThenT);
  CI->moveBefore(ElseT);
  if (Ret) {
    // Both branches end in the return, so both calls stay tail jumps.
    for (auto [Call, Term] : {std::pair<Instruction *, Instruction *>{HitCI, ThenT},
                              {CI, ElseT}}) {
      ReturnInst *R = ReturnInst::Create(
          Ctx, Ret->getReturnValue() ? Call : nullptr, Term->getIterator());
      R->setDebugLoc(Ret->getDebugLoc());
      Term->eraseFromParent();
    }
    Ret->eraseFromParent();
    Cont->eraseFromParent(); // (no predecessor left)
  } else if (!CI->getType()->isVoidTy()) {
    PHINode *PN = PHINode::Create(CI->getType(), 2, "", Cont->begin());
    CI->replaceAllUsesWith(PN);
    PN->addIncoming(HitCI, HitBB);
    PN->addIncoming(CI, MissBB);
  }
  return HitName;
}

void DynCallTransform::rewriteSites(Function &F) {
  auto &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  SmallVector<std::tuple<CallBase *, LoadInst *, Key *>, 16> Sites;
  SmallVector<CallBase *, 16> WPSites; // the other indirect calls
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      continue;
    if (WholeProgram && CB->isInlineAsm()) {
      ++NumWPMissed;
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "WholeProgramNotTransformed",
                                        CB)
               << "inline asm left alone (whole-program): its calls, if any, "
                  "are not visible to the compiler";
      });
      continue;
    }
    if (!CB->isIndirectCall())
      continue;
    Value *Callee = CB->getCalledOperand()->stripPointerCasts();
    // atomic_load of an _Atomic key: Clang loads a pointer-sized integer.
    if (auto *I2P = dyn_cast<IntToPtrInst>(Callee))
      Callee = I2P->getOperand(0);
    // A call through an annotated key keeps its key (and may be fresh).
    if (auto *Load = dyn_cast<LoadInst>(Callee))
      if (Key *K = keyForPointer(Load->getPointerOperand())) {
        Sites.emplace_back(CB, Load, K);
        continue;
      }
    if (WholeProgram)
      WPSites.push_back(CB);
  }
  // Judge every site before changing any: each rewrite inserts a call and
  // invalidates the block's instruction order, which comesBefore() would
  // then recompute once per site (quadratic in large blocks).
  SmallVector<bool, 16> Fresh;
  for (auto [CB, Load, K] : Sites)
    Fresh.push_back(!K->IsType && isFreshLoad(*Load, *CB));
  for (auto [I, Site] : enumerate(Sites)) {
    auto [CB, Load, K] = Site;
    bool Cond = foldGuardedCall(*CB, *Load, *K, ORE);
    rewriteCall(*CB, *K, Fresh[I], ORE, Cond);
  }
  for (CallBase *CB : WPSites) {
    if (Filter && !Filter->accepts(callFacts(*CB))) {
      ++NumWPFiltered;
      LLVM_DEBUG(dbgs() << "dyncall: whole-program: filtered out: " << *CB
                        << "\n");
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "WholeProgramFiltered", CB)
               << "indirect call left alone (whole-program): excluded by the "
                  "filter";
      });
      continue;
    }
    rewriteCall(*CB, wholeProgramKey(), /*Fresh=*/false, ORE);
  }
}

void DynCallTransform::rewriteFieldStores(Function &F) {
  SmallVector<std::pair<StoreInst *, Key *>, 8> FieldStores;
  for (Instruction &I : instructions(F))
    if (auto *SI = dyn_cast<StoreInst>(&I))
      // (stores to array elements stay plain: see Key::IsArray)
      if (Key *K = keyForPointer(SI->getPointerOperand());
          K && K->IsType && !K->IsArray)
        FieldStores.emplace_back(SI, K);
  for (auto [SI, K] : FieldStores)
    notifyFieldStore(*SI, *K);
}

/// struct dyncall_site_entry[] in __dyncall_sites (docs/abi.md). `site` and
/// `func` are 0: the call instruction does not exist yet (the runtime
/// discovers it from the return address; dyncall-rewrite may fill it in).
void DynCallTransform::emitSiteTable() {
  if (SiteRecords.empty())
    return;
  auto *AT = ArrayType::get(SiteTy, SiteRecords.size());
  auto *Table = new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                                   nullptr, "__dyncall_sites." + unitId());
  Table->setSection(DYNCALL_SITES_SECTION);
  Table->setAlignment(Align(4));
  SmallVector<Constant *, 64> Elems;
  for (auto [I, R] : enumerate(SiteRecords)) {
    unsigned N = I;
    Elems.push_back(ConstantStruct::get(
        SiteTy, {ConstantInt::get(Int32, 0),
                 relativeAt(R.Tramp, Table, AT, {0, N, 1}),
                 relativeAt(R.Cell, Table, AT, {0, N, 2}),
                 ConstantInt::get(Int32, 0),
                 ConstantInt::get(Int8, DYNCALL_ABI_VERSION),
                 ConstantInt::get(Int8, R.Kind),
                 ConstantInt::get(Int16, R.Flags)}));
  }
  Table->setInitializer(ConstantArray::get(AT, Elems));
  Used.push_back(Table);
}

/// Functions that may run while the dynamic loader is still relocating the
/// module: IFUNC resolvers and the functions of this module they call
/// directly. A call to the runtime from there goes through a PLT or GOT slot
/// that may not be relocated yet (lld puts IRELATIVE relocations at the end
/// of .rela.dyn, before the JUMP_SLOTs of .rela.plt; with -z now the slot is
/// not even bound), so it would crash. Their stores to a key stay plain
/// stores and the key is marked ESCAPES: its sites are guarded, correct
/// whatever a store behind the runtime's back did, and the module's
/// registration (from its constructor, after every relocation) patches them
/// for the value stored. Field stores there get no note (type-key sites are
/// guarded anyway).
void DynCallTransform::collectBeforeRelocation() {
  SmallVector<Function *, 8> Work;
  for (GlobalIFunc &IF : M.ifuncs())
    if (Function *R = IF.getResolverFunction())
      Work.push_back(R);
  while (!Work.empty()) {
    Function *F = Work.pop_back_val();
    if (F->isDeclaration() || !BeforeRelocation.insert(F).second)
      continue;
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction())
          Work.push_back(Callee);
  }
}

/// After a store to an annotated field: tell the runtime when the value
/// differs from the last one it was told about (inline check, cheap).
void DynCallTransform::notifyFieldStore(StoreInst &SI, Key &K) {
  Value *V = SI.getValueOperand();
  if (!V->getType()->isPointerTy()) {
    K.Escapes = true;
    return;
  }
  if (BeforeRelocation.contains(SI.getFunction()))
    return; // no runtime call there (collectBeforeRelocation)
  IRBuilder<> B(SI.getNextNode());
  LoadInst *Last = B.CreateAlignedLoad(Ptr, K.Object, Align(8), "dyncall.last");
  Last->setAtomic(AtomicOrdering::Monotonic);
  Value *Changed = B.CreateICmpNE(Last, V);
  Instruction *Then =
      SplitBlockAndInsertIfThen(Changed, B.GetInsertPoint(), false);
  IRBuilder<> TB(Then);
  FunctionCallee Note = M.getOrInsertFunction(
      DYNCALL_NOTE_FN, FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr},
                                         false));
  TB.CreateCall(Note, {K.Object, V});
  ++NumNotes;
}

/// Loads and compares are fine, stores go through the runtime (Stores),
/// read-modify-writes get a resync (RMWs), address arithmetic is followed
/// (Work), anything else lets the address escape.
void DynCallTransform::classifyKeyUse(Key &K, Use *U, Instruction *I,
                                      SmallVectorImpl<Use *> &Work,
                                      SmallVectorImpl<StoreInst *> &Stores,
                                      SmallVectorImpl<Instruction *> &RMWs) {
  GlobalVariable *GV = K.Object;
  if (isa<LoadInst>(I) || isa<ICmpInst>(I))
    return;
  // The runtime's public API (dyncall_set, dyncall_update,
  // dyncall_key_info, ...) takes keys by address and never stores behind
  // the runtime's back: not an escape (same rule as the GCC plugin).
  if (auto *CB = dyn_cast<CallBase>(I); CB && CB->isArgOperand(U))
    if (Function *Callee = CB->getCalledFunction();
        Callee && Callee->isDeclaration() &&
        Callee->getName().starts_with(RuntimeApiPrefix))
      return;
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    // Clang stores _Atomic pointers as pointer-sized integers.
    Type *VT = SI->getValueOperand()->getType();
    bool PointerSized =
        VT->isPointerTy() ||
        (VT->isIntegerTy() && M.getDataLayout().getTypeStoreSize(VT) ==
                                  M.getDataLayout().getPointerSize());
    if (U->getOperandNo() == SI->getPointerOperandIndex() && PointerSized &&
        U->get()->stripPointerCasts() == GV &&
        !BeforeRelocation.contains(SI->getFunction()))
      Stores.push_back(SI);
    else
      K.Escapes = true; // (a plain store before relocation: see
                        // collectBeforeRelocation)
    return;
  }
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
    K.Escapes = true;
    if (!BeforeRelocation.contains(I->getFunction()))
      RMWs.push_back(I);
    return;
  }
  if (isa<GetElementPtrInst>(I) || isa<CastInst>(I)) {
    if (isa<PtrToIntInst>(I))
      K.Escapes = true;
    else
      for (Use &UU : I->uses())
        Work.push_back(&UU);
    return;
  }
  // The runtime's own API (dyncall_update(&key), dyncall_key_info(&key),
  // dyncall_set(&key, f)) stores through the runtime or not at all.
  if (auto *Call = dyn_cast<CallBase>(I))
    if (Function *Callee = Call->getCalledFunction();
        Callee && Callee->isDeclaration() &&
        (Callee->getName().starts_with("dyncall_") ||
         Callee->getName().starts_with("__dyncall_")))
      return;
  if (auto *II = dyn_cast<IntrinsicInst>(I)) {
    if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II) ||
        II->getIntrinsicID() == Intrinsic::var_annotation)
      return;
    if (isa<AnyMemIntrinsic>(II) &&
        !BeforeRelocation.contains(II->getFunction()))
      RMWs.push_back(I); // memcpy/memset over the key: resync afterwards
  }
  K.Escapes = true;
}

/// Every use of a variable key's address: loads are fine, stores go through
/// the runtime, read-modify-writes are followed by a resync, anything else
/// lets the address escape.
void DynCallTransform::rewriteKeyUses(Key &K) {
  GlobalVariable *GV = K.Object;
  if (GV->isConstant())
    return;
  FunctionCallee Store = M.getOrInsertFunction(
      DYNCALL_STORE_FN,
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr}, false));
  FunctionCallee Resync = M.getOrInsertFunction(
      DYNCALL_RESYNC_FN, FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false));

  SmallVector<Use *, 16> Work;
  for (Use &U : GV->uses())
    Work.push_back(&U);
  SmallVector<StoreInst *, 8> Stores;
  SmallVector<Instruction *, 8> RMWs;
  while (!Work.empty()) {
    Use *U = Work.pop_back_val();
    User *Usr = U->getUser();
    if (auto *CE = dyn_cast<ConstantExpr>(Usr)) {
      if (CE->getOpcode() == Instruction::GetElementPtr || CE->isCast())
        for (Use &UU : CE->uses())
          Work.push_back(&UU);
      else
        K.Escapes = true;
      continue;
    }
    if (isa<ConstantAggregate>(Usr)) {
      for (Use &UU : Usr->uses())
        Work.push_back(&UU);
      continue;
    }
    if (auto *Holder = dyn_cast<GlobalVariable>(Usr)) {
      // llvm.global.annotations, llvm.used and our key cells hold the address
      // for bookkeeping; any other initializer lets it escape.
      if (!Holder->getName().starts_with("llvm.") &&
          !Holder->getName().starts_with(DYNCALL_KEYCELL_PREFIX))
        K.Escapes = true;
      continue;
    }
    if (auto *I = dyn_cast<Instruction>(Usr))
      classifyKeyUse(K, U, I, Work, Stores, RMWs);
    else
      K.Escapes = true;
  }

  for (StoreInst *SI : Stores) {
    IRBuilder<> B(SI);
    Value *V = SI->getValueOperand();
    if (!V->getType()->isPointerTy())
      V = B.CreateIntToPtr(V, Ptr);
    auto *Call = B.CreateCall(Store, {GV, V});
    Call->setDebugLoc(SI->getDebugLoc());
    SI->eraseFromParent();
    ++NumStores;
  }
  for (Instruction *I : RMWs) {
    IRBuilder<> B(I->getNextNode());
    B.CreateCall(Resync, {GV})->setDebugLoc(I->getDebugLoc());
  }
}

void DynCallTransform::emitKeyEntry(Key &K) {
    uint16_t Flags = 0;
    if (K.Escapes)
      Flags |= DYNCALL_KEY_ESCAPES;
    if (K.IsType)
      Flags |= DYNCALL_KEY_TYPE;
    if (K.IsWholeProgram)
      Flags |= DYNCALL_KEY_WHOLE_PROGRAM;
    if (!K.IsType && K.Object->isConstant())
      Flags |= DYNCALL_KEY_CONST;
    Constant *NameStr = ConstantDataArray::getString(Ctx, K.Name);
    auto *NameGV = new GlobalVariable(M, NameStr->getType(), true,
                                      GlobalValue::PrivateLinkage, NameStr,
                                      "__dyncall_keyname");
    NameGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    NameGV->setAlignment(Align(1));
    auto *Entry = new GlobalVariable(M, KeyTy, true,
                                     GlobalValue::PrivateLinkage, nullptr,
                                     "__dyncall_key");
    Entry->setSection(DYNCALL_KEYS_SECTION);
    Entry->setAlignment(Align(4));
    Entry->setInitializer(ConstantStruct::get(
        KeyTy, {relative(cellFor(K), Entry, 0, KeyTy),
                relative(NameGV, Entry, 1, KeyTy),
                ConstantInt::get(Int8, DYNCALL_ABI_VERSION),
                ConstantInt::get(Int8, DYNCALL_KIND_KEY),
                ConstantInt::get(Int16, Flags), ConstantInt::get(Int32, 0)}));
    Used.push_back(Entry);
}

void DynCallTransform::emitKeyEntries() {
  for (auto &[GV, K] : VarKeys)
    if (K.Cell || K.Escapes || !GV->use_empty())
      emitKeyEntry(K);
  // Array keys get theirs with their first site (runSites).
  for (auto &E : TypeKeys)
    if (!E.second.IsArray)
      emitKeyEntry(E.second);
}

/// The retpoline the trampolines' slow path jumps to (-mretpoline): a
/// naked linkonce_odr hidden function in a COMDAT (section and group named
/// after it, as the GCC plugin's asm copy), kept by llvm.compiler.used:
/// the trampolines refer to it from module asm only. An IR function, not
/// module asm, so that (Thin)LTO links of several units with retpoline
/// sites see one linkonce definition per unit, not duplicate strong ones.
void DynCallTransform::emitRetpolineThunk() {
  std::string Body = Tramps->retpolineThunkBody();
  if (Body.empty() || M.getFunction(DYNCALL_RETPOLINE_THUNK))
    return;
  auto *VoidFT = FunctionType::get(Type::getVoidTy(Ctx), false);
  Function *F = Function::Create(VoidFT, GlobalValue::LinkOnceODRLinkage,
                                 DYNCALL_RETPOLINE_THUNK, M);
  F->setVisibility(GlobalValue::HiddenVisibility);
  F->setComdat(M.getOrInsertComdat(DYNCALL_RETPOLINE_THUNK));
  F->setSection(".text." DYNCALL_RETPOLINE_THUNK);
  F->setAlignment(Align(16));
  for (auto A : {Attribute::Naked, Attribute::NoUnwind, Attribute::NoInline,
                 Attribute::NoCfCheck})
    F->addFnAttr(A);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", F));
  B.CreateCall(InlineAsm::get(VoidFT, Body, "", /*hasSideEffects=*/true));
  B.CreateUnreachable();
  appendToCompilerUsed(M, {F});
}

/// A COMDAT constructor/destructor pair per linked module (the GCC plugin
/// uses the same group names, so mixed objects keep one pair per DSO).
void DynCallTransform::emitRegistration() {
  auto Bound = [&](StringRef Name) {
    auto *GV = M.getGlobalVariable(Name);
    if (!GV)
      GV = new GlobalVariable(M, Int8, false,
                              GlobalValue::ExternalWeakLinkage, nullptr, Name);
    GV->setVisibility(GlobalValue::HiddenVisibility);
    return GV;
  };
  Value *Args[] = {Bound("__start_" DYNCALL_SITES_SECTION),
                   Bound("__stop_" DYNCALL_SITES_SECTION),
                   Bound("__start_" DYNCALL_KEYS_SECTION),
                   Bound("__stop_" DYNCALL_KEYS_SECTION)};
  auto *VoidFT = FunctionType::get(Type::getVoidTy(Ctx), false);
  auto *RegFT =
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr, Ptr, Ptr}, false);
  auto Make = [&](StringRef Name, StringRef Callee) -> Function * {
    if (M.getFunction(Name))
      return nullptr; // registered by the other phase already
    Function *F = Function::Create(VoidFT, GlobalValue::LinkOnceODRLinkage,
                                   Name, M);
    F->setVisibility(GlobalValue::HiddenVisibility);
    F->setComdat(M.getOrInsertComdat(Name));
    F->addFnAttr(Attribute::NoUnwind);
    F->addFnAttr(Attribute::NoInline);
    // aarch64 -mbranch-protection: .init_array calls these indirectly, so
    // they need the module's BTI landing pad (and its PAC, like the rest).
    auto ModFlag = [&](StringRef N) {
      auto *C = mdconst::extract_or_null<ConstantInt>(M.getModuleFlag(N));
      return C && C->getZExtValue();
    };
    if (ModFlag("branch-target-enforcement"))
      F->addFnAttr("branch-target-enforcement");
    if (ModFlag("sign-return-address")) {
      F->addFnAttr("sign-return-address",
                   ModFlag("sign-return-address-all") ? "all" : "non-leaf");
      F->addFnAttr("sign-return-address-key",
                   ModFlag("sign-return-address-with-bkey") ? "b_key"
                                                            : "a_key");
    }
    IRBuilder<> B(BasicBlock::Create(Ctx, "", F));
    B.CreateCall(M.getOrInsertFunction(Callee, RegFT), Args);
    B.CreateRetVoid();
    return F;
  };
  if (Function *Ctor = Make("__dyncall_module_ctor", DYNCALL_REGISTER_FN))
    appendToGlobalCtors(M, Ctor, DYNCALL_CTOR_PRIORITY, Ctor);
  if (Function *Dtor = Make("__dyncall_module_dtor", DYNCALL_UNREGISTER_FN))
    appendToGlobalDtors(M, Dtor, DYNCALL_CTOR_PRIORITY, Dtor);
}

/// Early (pipeline start): stores and escapes, so that every optimization,
/// attribute inference included, sees the runtime calls.
bool DynCallTransform::runStores() {
  if (M.getModuleFlag(StoresDoneFlag))
    return false;
  collectBeforeRelocation();
  for (Function &F : M)
    if (!F.isDeclaration())
      rewriteFieldStores(F);
  for (auto &[GV, K] : VarKeys)
    rewriteKeyUses(K);
  emitKeyEntries();
  emitRegistration();
  M.addModuleFlag(Module::Max, StoresDoneFlag, DYNCALL_ABI_VERSION);
  return true;
}

/// Late (optimizer last): sites, after mem2reg/GVN/inlining have shaped the
/// loads, so freshness is judged on the code that will run.
bool DynCallTransform::runSites() {
  if (M.getModuleFlag(SitesDoneFlag))
    return false;
  for (Function &F : M)
    if (!F.isDeclaration())
      rewriteSites(F);
  emitSiteTable();
  // Type keys first met here (only loaded for calls) get their entry too; a
  // duplicate of one the store phase emitted is harmless (flags are OR-ed).
  for (auto &E : TypeKeys)
    if (E.second.Cell)
      emitKeyEntry(E.second);
  if (WPKey && WPKey->Cell)
    emitKeyEntry(*WPKey);
  if (Tramps && NeedRetpoline)
    emitRetpolineThunk();
  if (!Asm.empty())
    M.appendModuleInlineAsm(Asm);
  // (a whole-program unit without keys or indirect calls needs no
  // registration)
  if (!SiteRecords.empty() || !VarKeys.empty() || !TypeKeys.empty() ||
      M.getModuleFlag(StoresDoneFlag))
    emitRegistration();
  M.addModuleFlag(Module::Max, SitesDoneFlag, DYNCALL_ABI_VERSION);
  return true;
}

bool DynCallTransform::run() {
  if (ClDisable)
    return false;
  collectAnnotatedGlobals();
  collectExternKeys();
  bool HasFieldKeys = false;
  if (Function *F = M.getFunction("llvm.ptr.annotation.p0.p0"))
    HasFieldKeys = !F->use_empty();
  bool HasKeys = !VarKeys.empty() || !ArrayVars.empty() || HasFieldKeys;
  WholeProgram = ClWholeProgram || !ClWholeProgramFilter.empty();
  if (!HasKeys && !WholeProgram)
    return false;
  if (refuseCfi(M))
    return false;

  SiteTy = StructType::get(Ctx, {Int32, Int32, Int32, Int32, Int8, Int8, Int16});
  KeyTy = StructType::get(Ctx, {Int32, Int32, Int8, Int8, Int16, Int32});
  bool Changed = false;
  // (whole-program mode has no stores: its key is never stored)
  if (P != DynCallPass::Phase::Sites && HasKeys)
    Changed |= runStores();
  if (P != DynCallPass::Phase::Stores) {
    if (WholeProgram && !M.getModuleFlag(SitesDoneFlag) && !readFilter())
      return false;
    Changed |= runSites();
  }
  appendToUsed(M, Used);
  return Changed;
}

} // namespace

PreservedAnalyses DynCallPass::run(Module &M, ModuleAnalysisManager &MAM) {
  DynCallTransform T(M, MAM, P);
  return T.run() ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace dyncall
