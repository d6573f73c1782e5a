/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/cond_cost: shared declarations (see cond_cost.c). */
#ifndef COND_COST_H
#define COND_COST_H

typedef void (*hook_fn)(long);

/* cond_cost_plain.c, built with -mretpoline and never with the plugin. */
extern hook_fn plain_hook;
void loop_plain_cond(long n);
void hook_body(long i); /* the hook: does nothing, not inlined */

#endif
