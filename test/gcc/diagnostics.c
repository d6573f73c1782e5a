// Checks the GCC diagnostics for misplaced dynamic_call attributes (exact file:line:column, error severity) in C, and that correct uses compile.
// REQUIRES: gcc-plugin
// (gcc-plugin: needs dyncall_gcc.so)
// Columns are GCC display columns (tabs advance to the next multiple of 8).
// RUN: not env LC_ALL=C %dyncall_gcc -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %if gcc11-plugin %{ not env LC_ALL=C %dyncall_gcc11 -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: %}
// RUN: %dyncall_gcc -fsyntax-only -DVALID_ONLY %s
// The attribute is registered even when the transformation is off.
// RUN: not env LC_ALL=C %dyncall_gcc %gcc_arg-disable -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:

typedef int (*fp_t)(int) __attribute__((dynamic_call));
int (*ok_global)(int) __attribute__((dynamic_call));
static int (*ok_static)(int) __attribute__((dynamic_call));
extern int (*ok_extern)(int) __attribute__((dynamic_call));
int (*const ok_const)(int) __attribute__((dynamic_call)) = 0;
struct ok_s { int (*f)(int) __attribute__((dynamic_call)); };
union ok_u { int (*f)(int) __attribute__((dynamic_call)); long l; };
fp_t ok_typedef_var;
void ok_fn(void)
{
	static int (*ok_local_static)(int) __attribute__((dynamic_call));
	fp_t automatic_of_annotated_typedef = 0; /* a plain pointer: no error */
	(void)ok_local_static;
	(void)automatic_of_annotated_typedef;
}

#ifndef VALID_ONLY
int not_a_pointer __attribute__((dynamic_call));
// CHECK: diagnostics.c:[[@LINE-1]]:5: error: 'dynamic_call' attribute only applies to variables with static storage duration, fields and typedefs of function-pointer type

void a_function(void) __attribute__((dynamic_call));
// CHECK: diagnostics.c:[[@LINE-1]]:6: error: 'dynamic_call' attribute only applies to variables with static storage duration, fields and typedefs of function-pointer type

int (*with_argument)(int) __attribute__((dynamic_call(1)));
// CHECK: diagnostics.c:[[@LINE-1]]:1: error: wrong number of arguments specified for 'dynamic_call' attribute

int (*an_array[2])(int) __attribute__((dynamic_call));
// CHECK: diagnostics.c:[[@LINE-1]]:7: error: 'dynamic_call' attribute only applies

__thread int (*thread_local_key)(int) __attribute__((dynamic_call));
// CHECK: diagnostics.c:[[@LINE-1]]:16: error: 'dynamic_call' attribute only applies

typedef int not_fp_t __attribute__((dynamic_call));
// CHECK: diagnostics.c:[[@LINE-1]]:13: error: 'dynamic_call' attribute only applies

struct bad_field { int i __attribute__((dynamic_call)); };
// CHECK: diagnostics.c:[[@LINE-1]]:24: error: 'dynamic_call' attribute only applies

void params(int (*param)(int) __attribute__((dynamic_call)))
// CHECK: diagnostics.c:[[@LINE-1]]:19: error: 'dynamic_call' attribute only applies
{
	int (*automatic)(int) __attribute__((dynamic_call)) = 0;
// CHECK: diagnostics.c:[[@LINE-1]]:15: error: 'dynamic_call' attribute only applies to variables with static storage duration
	(void)automatic;
	(void)param;
}
#endif
