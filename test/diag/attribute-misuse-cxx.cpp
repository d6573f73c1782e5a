// Checks the same rule in C++ with Clang and GCC 12/11 (one set of CHECK lines, exact file:line:column): misuses in namespaces and classes, and that namespace, class-static, member, array and [[dyncall::dynamic_call]] uses compile.
// REQUIRES: dyncall-clang-plugin, gcc-plugin
// (dyncall-clang-plugin, gcc-plugin: the point is the comparison, so both plugins are needed.)
// RUN: not %dyncall_clang_attr -x c++ -std=c++17 -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: not env LC_ALL=C %dyncall_gxx -x c++ -std=c++17 -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %if gcc11-plugin %{ not env LC_ALL=C %dyncall_gxx11 -x c++ -std=c++17 -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: %}
// RUN: %dyncall_clang_attr -x c++ -std=c++17 -fsyntax-only -Werror -DVALID_ONLY %s
// RUN: %dyncall_gxx -x c++ -std=c++17 -fsyntax-only -Werror -DVALID_ONLY %s

typedef int (*handler_t)(int);
int target(int);
namespace ns {
int (*ok)(int) __attribute__((dynamic_call));
[[dyncall::dynamic_call]] handler_t scoped = target;
[[dyncall::dynamic_call]] handler_t scoped_table[2] = {target, target};
struct S {
  int (*member)(int) __attribute__((dynamic_call));
  [[dyncall::dynamic_call]] handler_t scoped_member;
  handler_t member_table[4] __attribute__((dynamic_call));
  static int (*class_static)(int) __attribute__((dynamic_call));
#ifndef VALID_ONLY
  int not_a_pointer __attribute__((dynamic_call));
// CHECK: attribute-misuse-cxx.cpp:[[@LINE-1]]:7: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
#endif
};
} // namespace ns

#ifndef VALID_ONLY
void f()
{
  int (*automatic)(int) __attribute__((dynamic_call)) = nullptr;
// CHECK: attribute-misuse-cxx.cpp:[[@LINE-1]]:9: error: 'dynamic_call' attribute only applies to variables with static storage duration; a local copy of a key is an ordinary pointer
  (void)automatic;
}

long not_fp __attribute__((dynamic_call));
// CHECK: attribute-misuse-cxx.cpp:[[@LINE-1]]:6: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
thread_local handler_t tls_key __attribute__((dynamic_call));
// CHECK: attribute-misuse-cxx.cpp:[[@LINE-1]]:24: error: 'dynamic_call' attribute cannot be applied to a thread-local variable: its sites are shared by all threads
struct __attribute__((dynamic_call)) tagged { int x; };
// CHECK: attribute-misuse-cxx.cpp:[[@LINE-1]]:38: error: 'dynamic_call' attribute only applies to function-pointer variables, fields and typedefs
#endif
