//===- DynCallAttr.cpp - the dynamic_call attribute for Clang -------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Clang plugin (-fplugin=dyncall_clang.so) that gives meaning to
//
//   int (*on_event)(int) __attribute__((dynamic_call)) = default_handler;
//
// The attribute is accepted on function-pointer variables with static storage
// duration (global, static, extern; const too), on struct/union fields of
// function-pointer type, and on typedefs of function-pointer type, which
// annotate every variable and field declared with them; an array (of any
// dimension) of function pointers is accepted wherever a function pointer is
// and is an array key (its name ends in "[]", docs/attribute.md). Everywhere
// else it is an error at the declared name's location, with the same text as
// the GCC plugin's. A typedef that declares no key in the translation unit
// (used only for locals, parameters, casts) gets a warning.
//
// The plugin only records facts; the LLVM pass (DynCallPass.cpp) transforms.
// Facts reach the IR through channels Clang's code generator already has:
//  - every annotated declaration gets an implicit `annotate("dynamic_call",
//    "<key name>")`, so variable definitions appear in llvm.global.annotations
//    and every access to an annotated field goes through llvm.ptr.annotation;
//  - extern variable declarations are not in llvm.global.annotations (Clang
//    only lists definitions), so the plugin also emits one file-scope asm
//    block of C comments, `/* dyncall-key: <symbol> */`, which the pass reads
//    and deletes. A comment is harmless when the pass is not loaded.
//
//===----------------------------------------------------------------------===//

#include "dyncall/abi.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaDiagnostic.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace {

constexpr llvm::StringLiteral AttrName = DYNCALL_ATTR_NAME;
constexpr llvm::StringLiteral ExternKeyMarker = "dyncall-key:";

/// Is \p T (through typedefs and _Atomic) a pointer to function?
bool isFunctionPointer(QualType T) {
  if (T.isNull())
    return false;
  if (const auto *AT = T->getAs<AtomicType>())
    T = AT->getValueType();
  return T->isFunctionPointerType();
}

/// What a key of type \p T is: none, a function pointer, or an array (of any
/// dimension, complete or not) of function pointers.
enum class KeyShape { None, Pointer, Array };
KeyShape keyShape(const ASTContext &Ctx, QualType T) {
  if (isFunctionPointer(T))
    return KeyShape::Pointer;
  if (!Ctx.getAsArrayType(T) || T->isVariableArrayType())
    return KeyShape::None;
  return isFunctionPointer(Ctx.getBaseElementType(T)) ? KeyShape::Array
                                                      : KeyShape::None;
}

// The diagnostics, word for word those of gcc-plugin/attribute.cc.
constexpr const char *ErrArgs = "'dynamic_call' attribute takes no arguments";
constexpr const char *ErrType = "'dynamic_call' attribute requires a "
                                "pointer-to-function type or an array of them";
constexpr const char *ErrWhere = "'dynamic_call' attribute only applies to "
                                 "function-pointer variables, fields and "
                                 "typedefs";
constexpr const char *ErrStorage =
    "'dynamic_call' attribute only applies to variables with static storage "
    "duration; a local copy of a key is an ordinary pointer";
constexpr const char *ErrThread =
    "'dynamic_call' attribute cannot be applied to a thread-local variable: "
    "its sites are shared by all threads";
constexpr const char *ErrThreadTypedef =
    "thread-local variable of 'dynamic_call' typedef '%0': its sites would be "
    "shared by all threads";
constexpr const char *WarnNoKey =
    "'dynamic_call' typedef '%0' declares no key in this translation unit: "
    "its locals, parameters and casts are ordinary function pointers";

/// True when \p D carries our annotation (explicit or propagated).
bool hasDynCallAnnotation(const Decl *D) {
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == AttrName)
      return true;
  return false;
}

/// The annotated typedef somewhere in the sugar of \p T or of its array
/// element types, if any.
const TypedefNameDecl *annotatedTypedef(const ASTContext &Ctx, QualType T) {
  for (int Depth = 0; !T.isNull() && Depth < 64; ++Depth) {
    if (const auto *TT = T->getAs<TypedefType>()) {
      const TypedefNameDecl *TD = TT->getDecl();
      if (hasDynCallAnnotation(TD))
        return TD;
      T = TD->getUnderlyingType();
    } else if (const ArrayType *AT = Ctx.getAsArrayType(T)) {
      T = AT->getElementType();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// The key name shared with the GCC plugin: type keys are identified across
/// compilers by it, so keep the format in sync with gcc-plugin/ and
/// docs/attribute.md ("Key names"). "struct <tag>.<field>", where an
/// anonymous record (with or without a typedef name: GCC's C front end
/// cannot see the typedef when the record is complete) is spelled by its
/// field names, "struct {a,b,f}.f": the same in every unit and compiler, and
/// no file path in it. Array keys end in "[]".
std::string keyName(const NamedDecl *D) {
  std::string Name;
  QualType T;
  if (const auto *FD = dyn_cast<FieldDecl>(D)) {
    const RecordDecl *RD = FD->getParent();
    Name = RD->isUnion() ? "union " : "struct ";
    if (RD->getIdentifier()) {
      Name += RD->getQualifiedNameAsString();
    } else {
      Name += '{';
      bool First = true;
      for (const FieldDecl *F : RD->fields()) {
        if (!First)
          Name += ',';
        First = false;
        Name += F->getName();
      }
      Name += '}';
    }
    Name += "." + FD->getNameAsString();
    T = FD->getType();
  } else {
    Name = D->getQualifiedNameAsString();
    if (const auto *VD = dyn_cast<ValueDecl>(D))
      T = VD->getType();
  }
  if (!T.isNull() &&
      keyShape(D->getASTContext(), T) == KeyShape::Array)
    Name += "[]";
  return Name;
}

void report(Sema &S, SourceLocation Loc, DiagnosticsEngine::Level Level,
            const char *Text, StringRef Arg = "") {
  DiagnosticsEngine &DE = S.getDiagnostics();
  auto B = S.Diag(Loc, DE.getCustomDiagID(Level, "%0"));
  if (Arg.empty()) {
    B << Text;
    return;
  }
  std::string Msg = Text;
  Msg.replace(Msg.find("%0"), 2, Arg.str());
  B << Msg;
}

/// The key name as the annotation's argument (a folded constant).
Expr *nameArgument(Sema &S, const NamedDecl *D, SourceRange Range) {
  ASTContext &Ctx = S.getASTContext();
  std::string Name = keyName(D);
  QualType StrTy = Ctx.getStringLiteralArrayType(Ctx.CharTy, Name.size());
  Expr *Arg = StringLiteral::Create(Ctx, Name, StringLiteralKind::Ordinary,
                                    /*Pascal=*/false, StrTy, Range.getBegin());
  Expr *Args[] = {Arg};
  // Code generation expects annotation arguments folded to ConstantExprs.
  AttributeCommonInfo Info(Range, AttributeCommonInfo::AT_Annotate,
                           AttributeCommonInfo::Form::Implicit());
  if (!S.ConstantFoldAttrArgs(Info, Args))
    return nullptr;
  return Args[0];
}

/// Attach the implicit annotation carrying the key name.
void annotate(Sema &S, Decl *D, SourceRange Range) {
  if (hasDynCallAnnotation(D))
    return;
  if (Expr *Arg = nameArgument(S, cast<NamedDecl>(D), Range)) {
    Expr *Args[] = {Arg};
    D->addAttr(AnnotateAttr::CreateImplicit(S.getASTContext(), AttrName, Args,
                                            1, Range));
  }
}

/// A field is annotated while its record is still being parsed; an anonymous
/// record's key name lists all its fields, so it is computed again once the
/// record is complete.
void refreshFieldName(Sema &S, FieldDecl *FD) {
  if (FD->getParent()->getIdentifier())
    return;
  for (auto *A : FD->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == AttrName && A->args_size() == 1)
      if (Expr *Arg = nameArgument(S, FD, A->getRange()))
        *A->args_begin() = Arg;
}

class DynCallAttrInfo : public ParsedAttrInfo {
public:
  DynCallAttrInfo() {
    static constexpr Spelling S[] = {
        {ParsedAttr::AS_GNU, "dynamic_call"},
        {ParsedAttr::AS_C23, "dyncall::dynamic_call"},
        {ParsedAttr::AS_CXX11, "dyncall::dynamic_call"},
    };
    Spellings = S;
    // Arguments are parsed and refused here, at the declared name like every
    // other diagnostic (GCC has no attribute location to offer).
    NumArgs = 0;
    OptArgs = 15;
  }

  /// Every misuse, at the declared name (where GCC reports it too).
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    const char *Err = nullptr;
    const ASTContext &Ctx = S.getASTContext();
    if (Attr.getNumArgs() != 0) {
      Err = ErrArgs;
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (isa<ParmVarDecl>(VD) || !VD->hasGlobalStorage())
        Err = ErrStorage;
      else if (VD->getTLSKind() != VarDecl::TLS_None)
        Err = ErrThread;
      else if (keyShape(Ctx, VD->getType()) == KeyShape::None)
        Err = ErrType;
    } else if (const auto *FD = dyn_cast<FieldDecl>(D)) {
      if (FD->isBitField() || keyShape(Ctx, FD->getType()) == KeyShape::None)
        Err = ErrType;
    } else if (const auto *TD = dyn_cast<TypedefNameDecl>(D)) {
      if (keyShape(Ctx, TD->getUnderlyingType()) == KeyShape::None)
        Err = ErrType;
    } else {
      Err = ErrWhere;
    }
    if (!Err)
      return true;
    report(S, D->getLocation(), DiagnosticsEngine::Error, Err);
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    annotate(S, D, Attr.getRange());
    return AttributeApplied;
  }
};

/// Propagates annotated typedefs to the variables and fields declared with
/// them, and reports extern keys to the pass. Runs before code generation
/// sees each top-level declaration (AddBeforeMainAction).
class KeyCollector : public ASTConsumer,
                     public RecursiveASTVisitor<KeyCollector> {
public:
  explicit KeyCollector(CompilerInstance &CI) : CI(CI) {}

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    if (Emitting)
      return true;
    for (Decl *D : DG)
      TraverseDecl(D);
    return true;
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    for (const TypedefNameDecl *TD : AnnotatedTypedefs)
      if (TD->isReferenced() && !Productive.count(TD))
        report(CI.getSema(), TD->getLocation(), DiagnosticsEngine::Warning,
               WarnNoKey, TD->getName());
    if (ExternKeys.empty())
      return;
    // One file-scope asm block of comments naming extern keys (symbol, then
    // key name); see the file header. Sorted for reproducible output.
    std::vector<std::pair<std::string, std::string>> Names;
    for (const auto &E : ExternKeys)
      Names.emplace_back(E.getKey().str(), E.getValue());
    llvm::sort(Names);
    std::string Text;
    for (const auto &[Sym, Name] : Names)
      Text += "/* " + ExternKeyMarker.str() + " " + Sym + " " + Name + " */\n";
    QualType StrTy = Ctx.getStringLiteralArrayType(Ctx.CharTy, Text.size());
    auto *Str = StringLiteral::Create(Ctx, Text, StringLiteralKind::Ordinary,
                                      false, StrTy, SourceLocation());
    auto *AD = FileScopeAsmDecl::Create(Ctx, Ctx.getTranslationUnitDecl(), Str,
                                        SourceLocation(), SourceLocation());
    Emitting = true;
    CI.getASTConsumer().HandleTopLevelDecl(DeclGroupRef(AD));
    Emitting = false;
  }

  bool VisitTypedefNameDecl(TypedefNameDecl *TD) {
    if (hasDynCallAnnotation(TD))
      AnnotatedTypedefs.insert(TD);
    return true;
  }

  /// Variables of an annotated typedef (or arrays of it) with static storage
  /// are keys; thread-local ones are errors, as with the attribute itself;
  /// locals and parameters are ordinary pointers.
  bool VisitVarDecl(VarDecl *VD) {
    if (isa<ParmVarDecl>(VD))
      return true;
    if (hasDynCallAnnotation(VD)) {
      markProductive(VD->getASTContext(), VD->getType());
    } else {
      ASTContext &Ctx = VD->getASTContext();
      const TypedefNameDecl *TD = annotatedTypedef(Ctx, VD->getType());
      if (!TD || !VD->hasGlobalStorage() ||
          keyShape(Ctx, VD->getType()) == KeyShape::None)
        return true;
      if (VD->getTLSKind() != VarDecl::TLS_None) {
        report(CI.getSema(), VD->getLocation(), DiagnosticsEngine::Error,
               ErrThreadTypedef, TD->getName());
        return true;
      }
      markProductive(Ctx, VD->getType());
      annotate(CI.getSema(), VD, VD->getSourceRange());
    }
    if (!VD->hasDefinition() || VD->hasExternalStorage())
      recordExtern(VD);
    return true;
  }

  bool VisitFieldDecl(FieldDecl *FD) {
    ASTContext &Ctx = FD->getASTContext();
    if (hasDynCallAnnotation(FD)) {
      markProductive(Ctx, FD->getType());
      refreshFieldName(CI.getSema(), FD);
      return true;
    }
    if (FD->isBitField())
      return true;
    const TypedefNameDecl *TD = annotatedTypedef(Ctx, FD->getType());
    if (!TD || keyShape(Ctx, FD->getType()) == KeyShape::None)
      return true;
    markProductive(Ctx, FD->getType());
    annotate(CI.getSema(), FD, FD->getSourceRange());
    return true;
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

private:
  /// Every annotated typedef in the sugar of a key's type declared a key.
  void markProductive(const ASTContext &Ctx, QualType T) {
    while (const TypedefNameDecl *TD = annotatedTypedef(Ctx, T)) {
      Productive.insert(TD);
      T = TD->getUnderlyingType();
    }
  }

  void recordExtern(VarDecl *VD) {
    if (!VD->hasGlobalStorage() || VD->isStaticLocal())
      return;
    ASTNameGenerator Gen(VD->getASTContext());
    std::string Name = Gen.getName(VD);
    if (!Name.empty())
      ExternKeys[Name] = keyName(VD);
  }

  CompilerInstance &CI;
  llvm::StringMap<std::string> ExternKeys; // symbol -> key name
  llvm::SetVector<const TypedefNameDecl *> AnnotatedTypedefs;
  llvm::SmallPtrSet<const TypedefNameDecl *, 8> Productive; // declared a key
  bool Emitting = false;
};

class DynCallAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    return std::make_unique<KeyCollector>(CI);
  }
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                 "dyncall: unknown plugin argument '%0'"))
          << A;
      return false;
    }
    return true;
  }
  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static ParsedAttrInfoRegistry::Add<DynCallAttrInfo>
    RegisterAttr("dynamic_call", "dyncall: live-patched direct calls");
static FrontendPluginRegistry::Add<DynCallAction>
    RegisterAction("dyncall", "dyncall key collection");
