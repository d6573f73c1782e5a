/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The indirect loop of learn_cost (see learn_cost.h), built without the
 * plugin, once plain and once with -mretpoline; LOOP names the function. */
#include "learn_cost.h"

unsigned LOOP(const struct plain_obj *o, unsigned mask, unsigned x, long n)
{
	for (long i = 0; i < n; i++)
		x = o[i & mask].fn(x);
	return x;
}

/* The callees live here too: noinline, a few cycles of dependent work. */
#ifdef WITH_CALLEES
#define WORK(k)                                                            \
	__attribute__((noinline)) static unsigned work##k(unsigned x)      \
	{                                                                  \
		__asm__ volatile("" : "+r"(x));                            \
		return x * 2654435761u + k;                                \
	}
WORK(0)
WORK(1)
WORK(2)
WORK(3)
WORK(4)
WORK(5)
const work_fn learn_cost_funcs[LEARN_COST_FUNCS] = { work0, work1, work2,
						      work3, work4, work5 };
#endif
