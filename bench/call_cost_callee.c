/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The callees of bench/call_cost: tiny dependent work, never inlined. */
#include "call_cost.h"

__attribute__((noinline)) unsigned callee(unsigned x)
{
	return x + 0x9e3779b9u;
}

/* Same work, another address: the dyncall key is retargeted to it and back. */
__attribute__((noinline)) unsigned callee_alt(unsigned x)
{
	return x + 0x9e3779b9u;
}

work_fn volatile plain_fp = callee;

extern work_fn dc_fn;

const void *dc_fn_key(void)
{
	return (const void *)&dc_fn;
}
