/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/hooks_cost: shared declarations (see hooks_cost.c). */
#ifndef HOOKS_COST_H
#define HOOKS_COST_H

typedef void (*hook_fn)(long);

/* hooks_cost_loop.c, built twice without the plugin: LOOP_NAME is
 * loop_array (plain) or loop_array_retp (-mretpoline). */
extern hook_fn hook_array[8];
extern int hook_count;
void loop_array(long n);
void loop_array_retp(long n);
/* hooks_cost_handlers.c: eight handlers that do nothing, not inlined */
extern const hook_fn handlers[8];
/* handlers[i], called directly by the "k direct calls" loops */
void hook_h0(long i), hook_h1(long i), hook_h2(long i), hook_h3(long i);
void hook_h4(long i), hook_h5(long i), hook_h6(long i), hook_h7(long i);

#endif
