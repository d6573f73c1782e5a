// Checks the aarch64 records of vector argument registers (docs/prologues.md "Vector registers: what the compiler records"): the GCC plugin (cross GCC 12) and the LLVM pass (Clang, --target=aarch64-linux-gnu) record how many of v0-v7 a prototype uses (a double: 1; an HFA of three doubles: 3; a struct of a float and an int: none, it goes in x0; long double, quad precision: 1; a variadic function: 8); under qemu the jump function enters the trampoline that saves those (rounded up to a pair: dc_fentry_tramp_v2/_v4/_v6), and a handler that sets every bit of v0-v31 and adds 100 to the last vector argument through regs->vec leaves each function with the result of the build without the plugins (all of q0-q7 saved).
// REQUIRES: qemu-aarch64, dyncall-runtime-aarch64
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM %}
// RUN: %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %if gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.gcc %}
// RUN: %if gcc-plugin-aarch64 %{ %qemu_aarch64 %t.gcc | FileCheck %s --check-prefixes=OUT,REC %}
// RUN: %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 %s -o %t.clang
// RUN: %qemu_aarch64 %t.clang | FileCheck %s --check-prefixes=OUT,REC
// RUN: %dyncall_rewrite list --prologues %t.clang | FileCheck %s --check-prefix=LIST
// the same program without the plugins: no record, q0-q7 saved
// RUN: %clang --target=aarch64-linux-gnu -fpatchable-function-entry=4,2 -falign-functions=8 -O2 %libdyncall_cflags -c %s -o %t.plain.o
// RUN: %dyncall_cc %clang --target=aarch64-linux-gnu %t.plain.o -o %t.plain
// RUN: %qemu_aarch64 %t.plain | FileCheck %s --check-prefixes=OUT,PLAIN
//
// flags: DYNCALL_FN_REC_VEC_COUNT (2) | n << 8 (| VARIADIC (4)), NO_VEC (1), and
// (but for the variadic one) DYNCALL_FN_REC_INT_COUNT (0x20) | x regs << 12
// ASM: {{.xword|.8byte}} d1
// ASM-NEXT: {{.word|.4byte}} 4386
// ASM: {{.xword|.8byte}} hfa3
// ASM-NEXT: {{.word|.4byte}} 802
// ASM: {{.xword|.8byte}} fi
// ASM-NEXT: {{.word|.4byte}} 4129
// ASM: {{.xword|.8byte}} q
// ASM-NEXT: {{.word|.4byte}} 4386
// ASM: {{.xword|.8byte}} var
// ASM-NEXT: {{.word|.4byte}} 2054
// LIST-DAG: <d1> {{.*}} vecregs=1 intregs=1{{$}}
// LIST-DAG: <hfa3> {{.*}} vecregs=3 intregs=0{{$}}
// LIST-DAG: <fi> {{.*}} novec=yes sled=nops vecregs=0 intregs=1{{$}}
// LIST-DAG: <var> {{.*}} vecregs=8 variadic intregs=8{{$}}
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#define VEC_ARGS_HFA
#include "Inputs/vec_args.h"
#define VEC_ARGS_VAR
#include "Inputs/vec_args.h"

static long calls;

/* Reads the vector arguments' count from data, adds 100 to the last one
 * (regs->vec[n - 1], a double or, for q, a long double), then sets every
 * bit of v0-v31. */
static void clobber(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	int n = *(const int *)data;

	(void)ret;
	calls++;
	if (fn == (void *)q) {
		long double x;

		memcpy(&x, &r->vec[0][0], 16);
		x += 100;
		memcpy(&r->vec[0][0], &x, 16);
	} else if (n) {
		double d;

		memcpy(&d, &r->vec[n - 1][0], 8);
		d += 100;
		memcpy(&r->vec[n - 1][0], &d, 8);
	}
#define ONES(a, b, c, d)                                                     \
	"movi v" #a ".16b, #0xff\n\tmovi v" #b ".16b, #0xff\n\tmovi v" #c \
	".16b, #0xff\n\tmovi v" #d ".16b, #0xff\n\t"
	__asm__ volatile(ONES(0, 1, 2, 3) ONES(4, 5, 6, 7) ONES(8, 9, 10, 11)
			 ONES(12, 13, 14, 15) ONES(16, 17, 18, 19)
			 ONES(20, 21, 22, 23) ONES(24, 25, 26, 27)
			 ONES(28, 29, 30, 31)
			 :
			 :
			 : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",
			   "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
			   "v16", "v17", "v18", "v19", "v20", "v21", "v22",
			   "v23", "v24", "v25", "v26", "v27", "v28", "v29",
			   "v30", "v31");
}

static void hook(const char *name, void *f, const int *n)
{
	unsigned fl = 0;
	int s = dyncall_fn_hook(f, clobber, (void *)n);

	dyncall_fn_flags(f, &fl);
	printf("%s: %d nregs %u", name, s, DYNCALL_FN_VEC_NREGS(fl));
}

int main(void)
{
	double (*volatile pd1)(double, long) = d1;
	double (*volatile phfa3)(struct h3) = hfa3;
	double (*volatile pfi)(struct fi) = fi;
	long double (*volatile pq)(long double, long) = q;
	double (*volatile pvar)(int, ...) = var;
	static const int n0 = 0, n1 = 1, n3 = 3;
	struct h3 s = { 1, 2, 3 };
	struct fi t = { 1, 2 };

	// REC:   d1: 0 nregs 1 -> 12 1012
	// PLAIN: d1: 0 nregs 8 -> 12 1012
	double u = pd1(1, 2);
	hook("d1", (void *)d1, &n1);
	printf(" -> %g %g\n", u, pd1(1, 2));
	// REC-NEXT:   hfa3: 0 nregs 3 -> 123 223
	// PLAIN-NEXT: hfa3: 0 nregs 8 -> 123 223
	u = phfa3(s);
	hook("hfa3", (void *)hfa3, &n3);
	printf(" -> %g %g\n", u, phfa3(s));
	// REC-NEXT:   fi: 0 nregs 0 -> 12 12
	// PLAIN-NEXT: fi: 0 nregs 8 -> 12 12
	u = pfi(t);
	hook("fi", (void *)fi, &n0);
	printf(" -> %g %g\n", u, pfi(t));
	// REC-NEXT:   q: 0 nregs 1 -> 12 1012
	// PLAIN-NEXT: q: 0 nregs 8 -> 12 1012
	long double lu = pq(1, 2);
	hook("q", (void *)q, &n1);
	printf(" -> %Lg %Lg\n", lu, pq(1, 2));
	// OUT-NEXT: var: 0 nregs 8 -> 123 223
	u = pvar(3, 1.0, 2.0, 3.0);
	hook("var", (void *)var, &n3);
	printf(" -> %g %g\n", u, pvar(3, 1.0, 2.0, 3.0));
	// OUT-NEXT: calls 5
	printf("calls %ld\n", calls);
	return 0;
}
