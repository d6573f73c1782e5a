/* Keys and targets of the rewriter's execution tests, in their own unit so
 * that the const key's initializer is not visible to the caller's compiler:
 * the sites stay sites and relax resolves them at link time. */
#include <stdio.h>
#include <dyncall.h>

int inc(int x) { printf("inc(%d)\n", x); return x + 1; }
int dbl(int x) { printf("dbl(%d)\n", x); return x * 2; }
int neg(int x) { printf("neg(%d)\n", x); return -x; }

int (*op)(int) DYNCALL = inc;
int (*const cop)(int) DYNCALL = dbl;
