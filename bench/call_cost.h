/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * call_cost: per-call cost of direct / dyncall / plain indirect / retpoline
 * indirect calls, measured in one process.
 *
 * The four loops live in translation units built with different flags and
 * linked into one executable (see call_cost.bench.sh):
 *   call_cost.c           the harness, the direct loop and the dyncall loop,
 *                         built with dyncall-cc (plugin) and the build's
 *                         flags (-mretpoline in the retpoline build)
 *   call_cost_plain.c     plain indirect loop, no plugin, no -mretpoline
 *   call_cost_retpoline.c retpoline indirect loop, no plugin, -mretpoline
 *   call_cost_callee.c    the callees: noinline, a few cycles of dependent
 *                         work, in their own unit so nothing is inlined
 * Each loop feeds the result of one call into the next, so calls cannot
 * overlap and the loop measures latency per call.
 */
#ifndef CALL_COST_H
#define CALL_COST_H

typedef unsigned (*work_fn)(unsigned);

unsigned callee(unsigned x);
unsigned callee_alt(unsigned x);

/* The pointer the indirect loops call through, read on every iteration. */
extern work_fn volatile plain_fp;

/* &dc_fn, taken where the plugin does not see it (for introspection only). */
const void *dc_fn_key(void);

unsigned loop_plain_indirect(unsigned x, long n);
unsigned loop_retpoline_indirect(unsigned x, long n);

#endif
