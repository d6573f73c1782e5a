/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/hooks_cost: the handlers (each does nothing, not inlined). */
#include "hooks_cost.h"

#define H(n)                                                                  \
	__attribute__((noinline)) void hook_h##n(long i)                      \
	{                                                                     \
		__asm__ volatile("" : : "r"(i));                              \
	}
H(0)
H(1)
H(2)
H(3)
H(4)
H(5)
H(6)
H(7)
const hook_fn handlers[8] = { hook_h0, hook_h1, hook_h2, hook_h3,
			      hook_h4, hook_h5, hook_h6, hook_h7 };
