/* dlopen-library-sites.c's library: sites on, and stores to, a key of the
 * executable; its own targets. */
#include <stdio.h>

#include <dyncall.h>

typedef int (*fp_t)(int);
extern fp_t DYNCALL exe_hook;

static int lib_target(int x) { printf("  lib_target(%d)\n", x); return x * 7; }

int lib_call(int x) { return exe_hook(x) + 100; }
int lib_call_twice(int x) { return exe_hook(x) + exe_hook(x + 1); }
void lib_store(void) { exe_hook = lib_target; }
void lib_store_value(fp_t f) { exe_hook = f; }
