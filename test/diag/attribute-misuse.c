// Checks one rule for the dynamic_call attribute under both compilers: every misuse is the same error (or warning) at the same file:line:column with Clang and with GCC 12/11 (one set of CHECK lines), and every valid use, arrays of function pointers included, is accepted.
// REQUIRES: dyncall-clang-plugin, gcc-plugin
// (dyncall-clang-plugin, gcc-plugin: the point is the comparison, so both plugins are needed.)
// No tabs in this file: Clang counts bytes, GCC display columns.
// RUN: not %dyncall_clang_attr -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: not env LC_ALL=C %dyncall_gcc -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %if gcc11-plugin %{ not env LC_ALL=C %dyncall_gcc11 -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: %}
// The attribute is registered and checked even when GCC's transformation is off.
// RUN: not env LC_ALL=C %dyncall_gcc -fplugin-arg-dyncall_gcc-disable -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// The valid uses alone compile without a diagnostic, C11 and C2x ([[dyncall::dynamic_call]]).
// RUN: %dyncall_clang_attr -fsyntax-only -Werror -DVALID_ONLY %s
// RUN: %dyncall_gcc -fsyntax-only -Werror -DVALID_ONLY %s
// RUN: %dyncall_clang_attr -fsyntax-only -Werror -std=c2x -DVALID_ONLY -DC2X %s
// RUN: %dyncall_gcc -fsyntax-only -Werror -std=c2x -DVALID_ONLY -DC2X %s
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -fsyntax-only -Werror -std=c2x -DVALID_ONLY -DC2X %s %}

typedef int (*handler_t)(int);
typedef int (*hook_t)(int) __attribute__((dynamic_call));
int target(int);

// Accepted.
handler_t global_key __attribute__((dynamic_call)) = target;
static handler_t static_key __attribute__((dynamic_call));
extern handler_t extern_key __attribute__((dynamic_call));
handler_t const const_key __attribute__((dynamic_call)) = target;
_Atomic handler_t atomic_key __attribute__((dynamic_call));
struct ops { handler_t on_read __attribute__((dynamic_call)); hook_t on_write; };
union either { handler_t f __attribute__((dynamic_call)); void *p; };
hook_t via_typedef;
// Arrays of function pointers: array keys, any dimension, const or not.
handler_t table[4] __attribute__((dynamic_call));
static const handler_t const_table[] __attribute__((dynamic_call)) = { target, target };
extern handler_t extern_table[] __attribute__((dynamic_call));
handler_t grid[2][3] __attribute__((dynamic_call));
static const hook_t typedef_table[2] = { target, target };
struct encoding { hook_t scanners[3]; handler_t more[2] __attribute__((dynamic_call)); };
typedef handler_t table_t[4] __attribute__((dynamic_call));
table_t via_array_typedef;
void f_static_local(void) { static handler_t h __attribute__((dynamic_call)); (void)h; }
void f_local_of_typedef(void) { hook_t local = target; (void)local; }
#ifdef C2X
[[dyncall::dynamic_call]] handler_t c2x_key;
#endif

#ifndef VALID_ONLY
int not_a_pointer __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:5: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
void *data_pointer __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:7: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
int int_array[4] __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:5: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
int a_function(int) __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:5: error: 'dynamic_call' attribute only applies to function-pointer variables, fields and typedefs
typedef int not_fp_t __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:13: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
struct bad { int n __attribute__((dynamic_call)); };
// CHECK: attribute-misuse.c:[[@LINE-1]]:18: error: 'dynamic_call' attribute requires a pointer-to-function type or an array of them
struct __attribute__((dynamic_call)) tagged { int x; };
// CHECK: attribute-misuse.c:[[@LINE-1]]:38: error: 'dynamic_call' attribute only applies to function-pointer variables, fields and typedefs
struct after_brace { int x; } __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:8: error: 'dynamic_call' attribute only applies to function-pointer variables, fields and typedefs
_Thread_local handler_t tls_key __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:25: error: 'dynamic_call' attribute cannot be applied to a thread-local variable: its sites are shared by all threads
_Thread_local hook_t tls_of_typedef;
// CHECK: attribute-misuse.c:[[@LINE-1]]:22: error: thread-local variable of 'dynamic_call' typedef 'hook_t': its sites would be shared by all threads
_Thread_local hook_t tls_array_of_typedef[2];
// CHECK: attribute-misuse.c:[[@LINE-1]]:22: error: thread-local variable of 'dynamic_call' typedef 'hook_t': its sites would be shared by all threads
handler_t with_args __attribute__((dynamic_call(1)));
// CHECK: attribute-misuse.c:[[@LINE-1]]:11: error: 'dynamic_call' attribute takes no arguments
void locals(handler_t param __attribute__((dynamic_call))) {
// CHECK: attribute-misuse.c:[[@LINE-1]]:23: error: 'dynamic_call' attribute only applies to variables with static storage duration; a local copy of a key is an ordinary pointer
  handler_t local __attribute__((dynamic_call)) = target;
// CHECK: attribute-misuse.c:[[@LINE-1]]:13: error: 'dynamic_call' attribute only applies to variables with static storage duration; a local copy of a key is an ordinary pointer
  handler_t local_array[2] __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:13: error: 'dynamic_call' attribute only applies to variables with static storage duration; a local copy of a key is an ordinary pointer
  (void)local;
  (void)local_array;
}
// A typedef the unit uses only for locals, parameters and casts declares no
// key: a warning at the typedef (an unused one says nothing).
typedef int (*only_locals_t)(int) __attribute__((dynamic_call));
// CHECK: attribute-misuse.c:[[@LINE-1]]:15: warning: 'dynamic_call' typedef 'only_locals_t' declares no key in this translation unit: its locals, parameters and casts are ordinary function pointers
typedef int (*never_used_t)(int) __attribute__((dynamic_call));
int use_locals(only_locals_t p) { only_locals_t l = p; return l(1); }
#endif
