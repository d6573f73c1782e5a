// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The functions prologue_cost measures, compiled three times by
 * prologue_cost.bench.sh: with -DPFE and the --dyncall-prologues flags
 * (patchable prologues, the plugins' records), with -DNOREC and the same
 * -fpatchable-function-entry flags by the compiler alone (no record), and
 * without either (no NOPs).  Each does one dependent
 * add, like bench/call_cost_callee.c.
 *
 * The timed functions (TIMED) are 64-byte aligned so that each build's
 * copy sits the same way in the cache lines: a patchable function's entry
 * is 24 bytes past its alignment (the pre-entry area), so at Clang's
 * 16-byte alignment the entry is 8 bytes before a 64-byte line's end in
 * one placement of four, and a call to the ten-byte function then fetches
 * two lines (on an AMD Zen 3, +0.36 ns per call: docs/prologues.md "The
 * floor on Zen 3").  Aligned, every copy's bytes lie in one line.  The
 * 10,000 functions of the batch keep the compiler's alignment.
 */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
#define TIMED NOINLINE __attribute__((aligned(64)))

#ifdef PFE
TIMED long t_pfe(long x) { return x + 1; }
/* vector arguments: their records say xmm0, and xmm0-1 */
TIMED double t_pfe_d(double x) { return x + 1; }
TIMED double t_pfe_dd(double x, double y) { return x + y; }

/* 10,000 more for the batch, and the irrelevant hooks' functions */
#define F(n) NOINLINE long many_##n(long x) { return x + n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) \
	F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) \
	F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
#define F1000(n) F100(n##0) F100(n##1) F100(n##2) F100(n##3) F100(n##4) \
	F100(n##5) F100(n##6) F100(n##7) F100(n##8) F100(n##9)
F1000(1) F1000(2) F1000(3) F1000(4) F1000(5) F1000(6) F1000(7) F1000(8)
F1000(9) F1000(10)
#undef F
#define F(n) (void *)many_##n,
void *const many[10000] = { F1000(1) F1000(2) F1000(3) F1000(4) F1000(5)
	F1000(6) F1000(7) F1000(8) F1000(9) F1000(10) };
#elif defined(NOREC)
/* patchable, built without the plugins: no record, xmm0-7 saved */
TIMED long t_norec(long x) { return x + 1; }
TIMED double t_norec_d(double x) { return x + 1; }
#else
TIMED long t_plain(long x) { return x + 1; }
TIMED double t_plain_d(double x) { return x + 1; }
TIMED double t_plain_dd(double x, double y) { return x + y; }
TIMED long t_target(long x) { return x + 1; }
/* The floor of any redirect done at the callee's entry: a call that meets
 * one direct jmp to the target before it (a patched entry adds at least
 * that; the dyncall one adds two: entry -> f-5 -> target). */
__asm__(".text\n"
	".globl t_jmp\n"
	".type t_jmp, @function\n"
	".p2align 4\n"
	"t_jmp:\n"
	"\tjmp t_target\n"
	".size t_jmp, .-t_jmp\n");
#endif
