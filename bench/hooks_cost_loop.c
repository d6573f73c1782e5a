/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/hooks_cost: the plain C loop over an array of function pointers,
 * built without the plugin, once plain (LOOP_NAME loop_array) and once
 * with -mretpoline (loop_array_retp). */
#include "hooks_cost.h"

#ifndef LOOP_NAME
#define LOOP_NAME loop_array
hook_fn hook_array[8];
int hook_count;
#endif

__attribute__((noinline)) void LOOP_NAME(long n)
{
	for (long i = 0; i < n; i++) {
		__asm__ volatile("" : : : "memory"); /* reload the array */
		for (int j = 0; j < hook_count; j++)
			hook_array[j](i);
	}
}
