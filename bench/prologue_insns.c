// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Instructions per call of function-entry patching, for the arches run
 * under qemu-user (prologue_insns.bench.sh counts the guest instructions
 * qemu executes; docs/prologues.md "Measured numbers").
 *
 *   prologue_insns MODE N    call a trivial function N times, where MODE is
 *     plain     f built without a patchable prologue
 *     nops      f with its prologue, nothing patched (0/0)
 *     hook      one handler on f (1/0)
 *     hooknovec one handler on f, hooked with DYNCALL_FN_NO_VEC
 *     hook100   one handler on f and one on each of 100 other functions (1/100)
 *     hook2     two handlers on f (2/0)
 *     hook10    ten handlers on f (10/0)
 *     redirect  f redirected to g
 *     direct    g called directly
 *     redirectsite, directsite  the same with a direct `bl f` / `bl g` in
 *               the loop instead of the call through a pointer: the
 *               redirect rewrites the `bl f` (aarch64, ppc64le: the
 *               program is linked with --emit-relocs, docs/prologues.md
 *               "Redirects at the call sites")
 *     nopsd hookd    fd(double): its prologue alone, one handler (aarch64:
 *               the record says v0, the trampoline saves q0-q1)
 *     nopsd8 hookd8  fd8(eight doubles): the record says v0-v7, all saved
 * The set-up happens before the loop; the script runs each mode with two
 * N and divides the difference of the counts by the difference of N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline, noipa))
#define PFE DYNCALL_PATCHABLE

NOINLINE long f_plain(long x) DYNCALL_NOT_PATCHABLE;
NOINLINE long f_plain(long x) { return x + 1; }
NOINLINE long f(long x) PFE;
NOINLINE long f(long x) { return x + 1; }
NOINLINE long g(long x) DYNCALL_NOT_PATCHABLE;
NOINLINE long g(long x) { return x + 1; }
NOINLINE double fd(double x) PFE;
NOINLINE double fd(double x) { return x + 1; }
NOINLINE double fd8(double x, double b, double c, double d, double e,
		    double f, double g, double h) PFE;
NOINLINE double fd8(double x, double b, double c, double d, double e,
		    double f, double g, double h)
{
	return x + b + c + d + e + f + g + h;
}

#define OTHER(i) NOINLINE long o##i(long x) PFE; NOINLINE long o##i(long x) { return x + i; }
#define T(i) OTHER(i##0) OTHER(i##1) OTHER(i##2) OTHER(i##3) OTHER(i##4) \
	OTHER(i##5) OTHER(i##6) OTHER(i##7) OTHER(i##8) OTHER(i##9)
T(1) T(2) T(3) T(4) T(5) T(6) T(7) T(8) T(9) T(10)
#define P(i) (void *)o##i
#define PT(i) P(i##0), P(i##1), P(i##2), P(i##3), P(i##4), P(i##5), P(i##6), \
	P(i##7), P(i##8), P(i##9)
static void *const others[100] = { PT(1), PT(2), PT(3), PT(4), PT(5),
				   PT(6), PT(7), PT(8), PT(9), PT(10) };

static long counter;
#define H(i) static void h##i(void *fn, void *ret, void *data, \
			     struct dyncall_regs *r) { counter++; (void)fn, (void)ret, (void)data, (void)r; }
H(0) H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9)
static const dyncall_fn_handler hs[10] = { h0, h1, h2, h3, h4, h5, h6, h7, h8, h9 };

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "nops";
	long n = argc > 2 ? atol(argv[2]) : 1000, x = 0;
	long (*volatile fp)(long) = f;
	int err = 0, k = 0;

	if (!strcmp(mode, "plain"))
		fp = f_plain;
	else if (!strcmp(mode, "direct"))
		fp = g;
	else if (!strcmp(mode, "hook"))
		k = 1;
	else if (!strcmp(mode, "hooknovec"))
		err |= dyncall_fn_hook_flags(f, hs[0], NULL, DYNCALL_FN_NO_VEC);
	else if (!strcmp(mode, "hook2"))
		k = 2;
	else if (!strcmp(mode, "hook10"))
		k = 10;
	else if (!strcmp(mode, "hook100")) {
		k = 1;
		err |= dyncall_fn_hook_batch(others, 100, h1, NULL);
	} else if (!strcmp(mode, "redirect") || !strcmp(mode, "redirectsite"))
		err |= dyncall_fn_redirect(f, g);
	else if (!strcmp(mode, "hookd"))
		err |= dyncall_fn_hook(fd, hs[0], NULL);
	else if (!strcmp(mode, "hookd8"))
		err |= dyncall_fn_hook(fd8, hs[0], NULL);
	for (int i = 0; i < k; i++)
		err |= dyncall_fn_hook(f, hs[i], NULL);
	if (err) {
		fprintf(stderr, "prologue_insns: %s: status %d\n", mode, err);
		return 1;
	}
	if (!strcmp(mode, "nopsd") || !strcmp(mode, "hookd")) {
		double (*volatile cd)(double) = fd;
		double y = 0;

		for (long i = 0; i < n; i++)
			y = cd(y);
		x = (long)y;
	} else if (!strcmp(mode, "nopsd8") || !strcmp(mode, "hookd8")) {
		double (*volatile cd)(double, double, double, double, double,
				      double, double, double) = fd8;
		double y = 0;

		for (long i = 0; i < n; i++)
			y = cd(y, 1, 2, 3, 4, 5, 6, 7);
		x = (long)y;
	} else if (!strcmp(mode, "redirectsite")) {
		for (long i = 0; i < n; i++)
			x = f(x);
	} else if (!strcmp(mode, "directsite")) {
		for (long i = 0; i < n; i++)
			x = g(x);
	} else {
		long (*volatile call)(long) = fp;

		for (long i = 0; i < n; i++)
			x = call(x);
	}
	printf("%s %ld %ld\n", mode, x, counter);
	return 0;
}
