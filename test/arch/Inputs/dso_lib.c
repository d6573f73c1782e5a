/* The shared library of multi-dso.c: owns the key, calls through it,
 * stores to it. */
#include <dyncall.h>

static int lib_inc(int x) { return x + 100; }

int (*DYNCALL hook)(int) = lib_inc;

int lib_call(int x) { return hook(x) * 2; }
void lib_set(int (*f)(int)) { hook = f; }
