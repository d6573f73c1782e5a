//===- WholeProgramFilter.cpp - which calls whole-program mode converts ---===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "WholeProgramFilter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <fnmatch.h>

using namespace llvm;

namespace dyncall {

namespace {

bool glob(StringRef Pattern, StringRef Text) {
  return ::fnmatch(Pattern.str().c_str(), Text.str().c_str(), 0) == 0;
}

/// The next whitespace-separated word of \p S, removed from it.
StringRef word(StringRef &S) {
  S = S.ltrim();
  size_t End = S.find_first_of(" \t\r\v\f");
  StringRef W = S.substr(0, End);
  S = S.substr(W.size());
  return W;
}

} // namespace

std::optional<WholeProgramFilter>
WholeProgramFilter::read(StringRef Path, std::string &Error) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf) {
    Error = (Path + ": error: cannot read the filter file: " +
             Buf.getError().message())
                .str();
    return std::nullopt;
  }
  return parse(Path, (*Buf)->getBuffer(), Error);
}

std::optional<WholeProgramFilter>
WholeProgramFilter::parse(StringRef Path, StringRef Text, std::string &Error) {
  WholeProgramFilter F;
  SmallVector<StringRef, 32> Lines;
  Text.split(Lines, '\n');
  for (auto [I, Line] : enumerate(Lines)) {
    auto Fail = [&, LineNo = I + 1](const Twine &What) {
      Error = (Path + ":" + Twine(LineNo) + ": error: " + What).str();
      return std::nullopt;
    };
    StringRef S = Line.split('#').first;
    StringRef Verb = word(S);
    if (Verb.empty())
      continue;
    if (Verb != "include" && Verb != "exclude")
      return Fail("expected 'include' or 'exclude', got '" + Verb + "'");
    StringRef Kind = word(S);
    Rule R;
    R.Include = Verb == "include";
    if (Kind == "function")
      R.Kind = What::Function;
    else if (Kind == "file")
      R.Kind = What::File;
    else if (Kind == "field")
      R.Kind = What::Field;
    else
      return Fail("expected 'function', 'file' or 'field' after '" + Verb +
                  "'");
    StringRef Pattern = word(S);
    if (R.Kind == What::Field &&
        (Pattern == "struct" || Pattern == "union" || Pattern == "class"))
      Pattern = word(S);
    if (Pattern.empty())
      return Fail("missing pattern after '" + Verb + " " + Kind + "'");
    if (StringRef Rest = S.trim(); !Rest.empty())
      return Fail("unexpected text after the pattern: '" + Rest + "'");
    switch (R.Kind) {
    case What::Function:
      R.Glob = Pattern.str();
      break;
    case What::File: {
      auto [Glob, LineText] = Pattern.rsplit(':');
      if (Glob.size() != Pattern.size()) { // there is a ':'
        if (LineText.empty() || LineText.getAsInteger(10, R.Line) ||
            R.Line == 0)
          return Fail("bad line number '" + LineText + "' in a file rule");
        F.HasLineRules = true;
      }
      R.Glob = Glob.str();
      break;
    }
    case What::Field: {
      auto [Struct, Field] = Pattern.rsplit('.');
      if (Struct.empty() || Field.empty() ||
          Struct.size() == Pattern.size())
        return Fail("a field rule is <struct>.<field>, got '" + Pattern + "'");
      R.Glob = Struct.str();
      R.FieldGlob = Field.str();
      F.HasFieldRules = true;
      break;
    }
    }
    F.HasIncludes |= R.Include;
    F.Rules.push_back(std::move(R));
  }
  return F;
}

bool WholeProgramFilter::matches(const Rule &R, const CallFacts &C) const {
  switch (R.Kind) {
  case What::Function:
    return any_of(C.Functions,
                  [&](const std::string &F) { return glob(R.Glob, F); });
  case What::File:
    if (C.File.empty() || (R.Line && R.Line != C.Line))
      return false;
    return glob(R.Glob, C.File) ||
           glob(R.Glob, sys::path::filename(C.File));
  case What::Field: {
    if (C.Field.empty())
      return false;
    auto [Struct, Field] = StringRef(C.Field).rsplit('.');
    return glob(R.Glob, Struct) && glob(R.FieldGlob, Field);
  }
  }
  return false;
}

bool WholeProgramFilter::accepts(const CallFacts &C) const {
  bool In = !HasIncludes;
  for (const Rule &R : Rules) {
    if (!matches(R, C))
      continue;
    if (!R.Include)
      return false;
    In = true;
  }
  return In;
}

} // namespace dyncall
