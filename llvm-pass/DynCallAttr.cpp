//===- DynCallAttr.cpp - the dynamic_call attribute for Clang -------------===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Clang plugin (-fplugin=dyncall-clang.so) that gives meaning to
//
//   int (*on_event)(int) __attribute__((dynamic_call)) = default_handler;
//
// The attribute is accepted on function-pointer variables with static storage
// duration (global, static, extern; const too), on struct/union fields of
// function-pointer type, and on typedefs of function-pointer type, which
// annotate every variable and field declared with them. Everywhere else it is
// an error at the attribute's location.
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

/// True when \p D carries our annotation (explicit or propagated).
bool hasDynCallAnnotation(const Decl *D) {
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == AttrName)
      return true;
  return false;
}

/// The annotated typedef somewhere in the sugar of \p T, if any.
const TypedefNameDecl *annotatedTypedef(QualType T) {
  while (!T.isNull()) {
    const auto *TT = T->getAs<TypedefType>();
    if (!TT)
      return nullptr;
    const TypedefNameDecl *TD = TT->getDecl();
    if (hasDynCallAnnotation(TD))
      return TD;
    T = TD->getUnderlyingType();
  }
  return nullptr;
}

/// The key name shared with the GCC plugin: type keys are identified across
/// compilers by it, so keep the format in sync with gcc-plugin/ and abi.md.
std::string keyName(const NamedDecl *D) {
  if (const auto *FD = dyn_cast<FieldDecl>(D)) {
    const RecordDecl *RD = FD->getParent();
    std::string Record;
    if (RD->getIdentifier() || RD->getTypedefNameForAnonDecl()) {
      std::string Qualified = RD->getIdentifier()
                                  ? RD->getQualifiedNameAsString()
                                  : RD->getTypedefNameForAnonDecl()
                                        ->getQualifiedNameAsString();
      Record = (RD->isUnion() ? "union " : "struct ") + Qualified;
    } else {
      // An anonymous record has no name to share; its location is unique
      // within the program's sources.
      PresumedLoc PL = D->getASTContext().getSourceManager().getPresumedLoc(
          RD->getLocation());
      Record = std::string(RD->isUnion() ? "union " : "struct ") + "<anon>@" +
               (PL.isValid() ? std::string(PL.getFilename()) + ":" +
                                   std::to_string(PL.getLine())
                             : std::string("?"));
    }
    return Record + "." + FD->getNameAsString();
  }
  return D->getQualifiedNameAsString();
}

/// Attach the implicit annotation carrying the key name.
void annotate(Sema &S, Decl *D, SourceRange Range) {
  if (hasDynCallAnnotation(D))
    return;
  ASTContext &Ctx = S.getASTContext();
  std::string Name = keyName(cast<NamedDecl>(D));
  QualType StrTy = Ctx.getStringLiteralArrayType(Ctx.CharTy, Name.size());
  Expr *Arg = StringLiteral::Create(Ctx, Name, StringLiteralKind::Ordinary,
                                    /*Pascal=*/false, StrTy, Range.getBegin());
  Expr *Args[] = {Arg};
  // Code generation expects annotation arguments folded to ConstantExprs.
  AttributeCommonInfo Info(Range, AttributeCommonInfo::AT_Annotate,
                           AttributeCommonInfo::Form::Implicit());
  if (!S.ConstantFoldAttrArgs(Info, Args))
    return;
  D->addAttr(AnnotateAttr::CreateImplicit(Ctx, AttrName, Args, 1, Range));
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
    NumArgs = 0;
    OptArgs = 0;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    unsigned ID = 0;
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (isa<ParmVarDecl>(VD) || !VD->hasGlobalStorage())
        ID = S.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error,
            "'dynamic_call' attribute only applies to variables with static "
            "storage duration; a local copy of a key is an ordinary pointer");
      else if (VD->getTLSKind() != VarDecl::TLS_None)
        ID = S.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error,
            "'dynamic_call' attribute cannot be applied to a thread-local "
            "variable: its sites are shared by all threads");
      else if (!isFunctionPointer(VD->getType()))
        ID = functionPointerOnly(S);
    } else if (const auto *FD = dyn_cast<FieldDecl>(D)) {
      if (FD->isBitField() || !isFunctionPointer(FD->getType()))
        ID = functionPointerOnly(S);
    } else if (const auto *TD = dyn_cast<TypedefNameDecl>(D)) {
      if (!isFunctionPointer(TD->getUnderlyingType()))
        ID = functionPointerOnly(S);
    } else {
      ID = S.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error,
          "'dynamic_call' attribute only applies to function-pointer "
          "variables, fields and typedefs");
    }
    if (!ID)
      return true;
    S.Diag(Attr.getLoc(), ID);
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    if (Attr.getNumArgs() != 0) {
      S.Diag(Attr.getLoc(), diag::err_attribute_wrong_number_arguments)
          << Attr << 0;
      return AttributeNotApplied;
    }
    annotate(S, D, Attr.getRange());
    return AttributeApplied;
  }

private:
  static unsigned functionPointerOnly(Sema &S) {
    return S.getDiagnostics().getCustomDiagID(
        DiagnosticsEngine::Error,
        "'dynamic_call' attribute requires a pointer-to-function type");
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
    if (ExternKeys.empty())
      return;
    // One file-scope asm block of comments naming extern keys; see the file
    // header. Sorted for reproducible output.
    std::vector<std::string> Names(ExternKeys.keys().begin(),
                                   ExternKeys.keys().end());
    llvm::sort(Names);
    std::string Text;
    for (const std::string &N : Names)
      Text += "/* " + ExternKeyMarker.str() + " " + N + " */\n";
    QualType StrTy = Ctx.getStringLiteralArrayType(Ctx.CharTy, Text.size());
    auto *Str = StringLiteral::Create(Ctx, Text, StringLiteralKind::Ordinary,
                                      false, StrTy, SourceLocation());
    auto *AD = FileScopeAsmDecl::Create(Ctx, Ctx.getTranslationUnitDecl(), Str,
                                        SourceLocation(), SourceLocation());
    Emitting = true;
    CI.getASTConsumer().HandleTopLevelDecl(DeclGroupRef(AD));
    Emitting = false;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (isa<ParmVarDecl>(VD))
      return true;
    if (!hasDynCallAnnotation(VD)) {
      if (!VD->hasGlobalStorage() || VD->getTLSKind() != VarDecl::TLS_None ||
          !annotatedTypedef(VD->getType()))
        return true;
      annotate(CI.getSema(), VD, VD->getSourceRange());
    }
    if (!VD->hasDefinition() || VD->hasExternalStorage())
      recordExtern(VD);
    return true;
  }

  bool VisitFieldDecl(FieldDecl *FD) {
    if (!hasDynCallAnnotation(FD) && !FD->isBitField() &&
        annotatedTypedef(FD->getType()))
      annotate(CI.getSema(), FD, FD->getSourceRange());
    return true;
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

private:
  void recordExtern(VarDecl *VD) {
    if (!VD->hasGlobalStorage() || VD->isStaticLocal())
      return;
    ASTNameGenerator Gen(VD->getASTContext());
    std::string Name = Gen.getName(VD);
    if (!Name.empty())
      ExternKeys.insert(Name);
  }

  CompilerInstance &CI;
  llvm::StringSet<> ExternKeys;
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
