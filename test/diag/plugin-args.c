// Checks an unknown argument to the Clang plugin is an error.
// REQUIRES: dyncall-clang-plugin
// RUN: not %dyncall_clang_attr -fsyntax-only -Xclang -plugin-arg-dyncall -Xclang bogus %s 2>&1 | FileCheck %s
// CHECK: error: dyncall: unknown plugin argument 'bogus'
int x;
