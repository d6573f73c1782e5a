// Checks the GCC diagnostics for misplaced dynamic_call attributes in C++ (exact file:line:column) and that namespace, class-static and member uses compile.
// REQUIRES: gcc-plugin
// (gcc-plugin: needs dyncall_gcc.so)
// Columns are GCC's display columns (a tab advances to the next multiple of 8).
// RUN: not env LC_ALL=C %dyncall_gxx -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %if gcc11-plugin %{ not env LC_ALL=C %dyncall_gxx11 -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: %}

namespace ns {
int (*ok)(int) __attribute__((dynamic_call));
struct S {
	int (*member)(int) __attribute__((dynamic_call));
	static int (*class_static)(int) __attribute__((dynamic_call));
	int not_a_pointer __attribute__((dynamic_call));
// CHECK: diagnostics-cxx.cpp:[[@LINE-1]]:13: error: 'dynamic_call' attribute only applies to variables with static storage duration, fields and typedefs of function-pointer type
};
}

void f()
{
	int (*automatic)(int) __attribute__((dynamic_call)) = nullptr;
// CHECK: diagnostics-cxx.cpp:[[@LINE-1]]:15: error: 'dynamic_call' attribute only applies
	(void)automatic;
}

long not_fp __attribute__((dynamic_call));
// CHECK: diagnostics-cxx.cpp:[[@LINE-1]]:6: error: 'dynamic_call' attribute only applies
