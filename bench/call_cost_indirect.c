/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * An indirect-call loop through a plain (unannotated) function pointer.
 * Built twice by call_cost.bench.sh: -DLOOP=loop_plain_indirect without
 * -mretpoline and -DLOOP=loop_retpoline_indirect with it.
 */
#include "call_cost.h"

#ifndef LOOP
#error "build with -DLOOP=loop_plain_indirect or -DLOOP=loop_retpoline_indirect"
#endif

__attribute__((noinline)) unsigned LOOP(unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = plain_fp(x);
	return x;
}
