// Checks the plugin arguments: -disable keeps the attribute but transforms nothing, -verbose notes transformed and missed sites (also -fopt-info), and an unknown argument is an error.
// REQUIRES: gcc-plugin
// (gcc-plugin: needs dyncall_gcc.so)
// -fopt-info reports the statement (column 9), the note the call expression (column 16).
// RUN: %dyncall_gcc %gcc_arg-disable -O2 -S %s -o - | FileCheck %s --check-prefix=DISABLE
// RUN: env LC_ALL=C %dyncall_gcc %gcc_arg-verbose -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERBOSE
// RUN: env LC_ALL=C %dyncall_gcc -fopt-info-missed -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: not env LC_ALL=C %dyncall_gcc %gcc_arg-bogus -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not env LC_ALL=C %dyncall_gcc %gcc_arg-verbose=yes -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 %gcc11_arg-disable -O2 -S %s -o - | FileCheck %s --check-prefix=DISABLE %}
// RUN: %if gcc11-plugin %{ env LC_ALL=C %dyncall_gcc11 %gcc11_arg-verbose -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERBOSE %}
// RUN: %if gcc11-plugin %{ not env LC_ALL=C %dyncall_gcc11 %gcc11_arg-bogus -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN11 %}

int (*k1)(int) __attribute__((dynamic_call));
int (*k2)(int) __attribute__((dynamic_call));

int direct(int x) { return k1(x) + 1; }
// VERBOSE: plugin-args.c:[[@LINE-1]]:28: note: dyncall: call through 'k1' becomes a call to '__dyncall_tramp.{{[0-9a-f]+}}.0' (fresh)

int merged(int c, int x)
{
	int (*f)(int) = c ? k1 : k2;
	return f(x);
// VERBOSE: plugin-args.c:[[@LINE-1]]:16: note: dyncall: call not transformed: the callee is a merge (phi) of loads; load the key right before the call
// MISSED: plugin-args.c:[[@LINE-2]]:9: missed: dyncall: call not transformed: the callee is a merge (phi) of loads
}

void store(int (*f)(int)) { k2 = f; }
// VERBOSE: plugin-args.c:[[@LINE-1]]:32: note: dyncall: store to 'k2' goes through '__dyncall_store'

// DISABLE-NOT: __dyncall
// DISABLE: direct:
// DISABLE: jmp *%rax
// DISABLE-NOT: __dyncall

// UNKNOWN: error: dyncall_gcc: unknown plugin argument '-fplugin-arg-dyncall_gcc-bogus' (expected 'disable', 'verbose', 'prologues', 'no-inline-guard' or 'whole-program[=<filter file>]')
// UNKNOWN11: error: dyncall_gcc11: unknown plugin argument '-fplugin-arg-dyncall_gcc11-bogus' (expected 'disable', 'verbose', 'prologues', 'no-inline-guard' or 'whole-program[=<filter file>]')
// VALUE: error: dyncall_gcc: unknown plugin argument '-fplugin-arg-dyncall_gcc-verbose=yes'
