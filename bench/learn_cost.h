/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * learn_cost: per-call cost of a polymorphic call site (one call
 * instruction whose target cycles over N functions), as a learned dyncall
 * site and as a plain and a retpoline indirect call, in one process.
 *   learn_cost.c           harness + the dyncall loop (dyncall-cc, the
 *                          build's flags, -mretpoline in the retpoline build)
 *   learn_cost_indirect.c  the indirect loop, built twice without the plugin:
 *                          plain and -mretpoline (LOOP names it)
 *   call_cost_callee.c     not used; the callees are here: work0..work5
 */
#ifndef LEARN_COST_H
#define LEARN_COST_H

typedef unsigned (*work_fn)(unsigned);

#define LEARN_COST_FUNCS 6
extern const work_fn learn_cost_funcs[LEARN_COST_FUNCS];

/* An object with a function-pointer field: the dyncall build annotates it
 * (a type key), the indirect loops see a plain field of the same layout. */
struct plain_obj {
	work_fn fn;
	unsigned pad;
};

unsigned loop_plain_indirect(const struct plain_obj *o, unsigned mask,
			     unsigned x, long n);
unsigned loop_retpoline_indirect(const struct plain_obj *o, unsigned mask,
				 unsigned x, long n);

#endif
