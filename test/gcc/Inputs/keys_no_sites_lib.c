/* A dlopen()ed library with keys but no call site (Inputs/keys_no_sites.c),
 * so no __dyncall_sites section: by default its only key escapes; with
 * -DONLY_TYPE_KEYS its only key is a type key (an annotated field stored). */
#include <dyncall.h>

#ifndef ONLY_TYPE_KEYS
int (*lib_only)(int) DYNCALL;

void *lib_key(void)
{
	return &lib_only;
}
#else
static int twice(int x)
{
	return 2 * x;
}

struct lib_ops {
	int (*op)(int) DYNCALL;
} lib_ops;

void *lib_key(void)
{
	lib_ops.op = twice;
	return 0;
}
#endif
