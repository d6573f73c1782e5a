// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* A DSO that dlopens by name (test/prologues/hook-all-runpath.c): built
 * with its own DT_RUNPATH, which the program does not have. */
#include <dlfcn.h>

void *caller_open(const char *name)
{
	void *h = dlopen(name, RTLD_NOW);

	/* not a tail call: glibc takes the caller from dlopen's return
	 * address, which must be in this module */
	__asm__ volatile("" : : : "memory");
	return h;
}
