/* A second translation unit built with the plugin: stores to and calls
 * through the key that store-in-other-tu.c defines. */
#include <stdio.h>

#include <dyncall.h>

typedef int (*fp_t)(int);
extern fp_t DYNCALL shared_key;

static int other_a(int x) { printf("other_a(%d)\n", x); return x * 100; }
static int other_b(int x) { printf("other_b(%d)\n", x); return x * 1000; }

void other_set(int which) { shared_key = which ? other_b : other_a; }

int other_call(int x) { return shared_key(x) + 1; }
