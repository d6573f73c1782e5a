/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/cond_cost: the plain `if (k) k(i)` loop, built without the plugin
 * (and, in the bench, with -mretpoline), and the hook itself. */
#include "cond_cost.h"

hook_fn plain_hook;

__attribute__((noinline)) void hook_body(long i)
{
	__asm__ volatile("" : : "r"(i));
}

__attribute__((noinline)) void loop_plain_cond(long n)
{
	for (long i = 0; i < n; i++) {
		__asm__ volatile("" : : : "memory"); /* reload the key */
		if (plain_hook)
			plain_hook(i);
	}
}
