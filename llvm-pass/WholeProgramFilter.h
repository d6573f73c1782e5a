//===- WholeProgramFilter.h - which calls whole-program mode converts -*- C++ -*-===//
//
// Part of dyncall. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The filter file of -dyncall-whole-program-filter=<file> (docs/whole-program.md;
// the GCC plugin reads the same syntax and prints the same diagnostics):
//
//   # comment; blank lines ignored
//   include|exclude function <glob>        enclosing function (mangled or demangled)
//   include|exclude file <glob>[:<line>]   source file (path as given, or basename)
//   include|exclude field <struct>.<field> callee loaded from that field
//
// With no include rule every call is a candidate; otherwise a call must match
// an include rule; a matching exclude rule always removes it.
//
//===----------------------------------------------------------------------===//

#ifndef DYNCALL_WHOLEPROGRAMFILTER_H
#define DYNCALL_WHOLEPROGRAMFILTER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace dyncall {

/// What the filter may ask about a call. Empty strings / 0 mean "unknown"
/// (no debug location, no field): a rule on an unknown property never
/// matches.
struct CallFacts {
  // The function the call is compiled into and, with debug information, the
  // one it is written in (after inlining they differ); each also demangled.
  llvm::SmallVector<std::string, 4> Functions;
  std::string File;          // source path as given to the compiler
  unsigned Line = 0;
  std::string Field;         // "<struct>.<field>" the callee was loaded from
};

class WholeProgramFilter {
public:
  enum class What { Function, File, Field };
  struct Rule {
    bool Include;
    What Kind;
    std::string Glob;        // function/file glob, or the struct glob
    std::string FieldGlob;   // field rules: the field glob
    unsigned Line = 0;       // file rules: 0 = any line
  };

  /// Reads \p Path. On error returns nullopt and sets \p Error to the full
  /// diagnostic line, `<path>[:<line>]: error: <what>`.
  static std::optional<WholeProgramFilter> read(llvm::StringRef Path,
                                                std::string &Error);
  /// Parses \p Text as if read from \p Path (for read() and tests).
  static std::optional<WholeProgramFilter>
  parse(llvm::StringRef Path, llvm::StringRef Text, std::string &Error);

  bool accepts(const CallFacts &C) const;
  /// Some rule needs a field name / a line: facts that only debug
  /// information gives (the pass warns when there is none).
  bool needsFields() const { return HasFieldRules; }
  bool needsLines() const { return HasLineRules; }

private:
  bool matches(const Rule &R, const CallFacts &C) const;
  llvm::SmallVector<Rule, 8> Rules;
  bool HasIncludes = false;
  bool HasFieldRules = false;
  bool HasLineRules = false;
};

} // namespace dyncall

#endif
