// Checks the ppc64le records of floating-point and vector argument registers (docs/prologues.md "ppc64le: what the compiler records"): the GCC plugin (cross GCC 12, rs6000's fregno and vregno) and the LLVM pass (Clang's XRay route) record how many of f1-f13 (n, bits 8-11) and v2-v13 (m, bits 16-19, DYNCALL_FN_REC_VEC2_COUNT) a prototype uses (a double: 1, 0; an HFA of three doubles: 3, 0; a struct of a float and an int: none, it goes in r3; an IBM long double: 2, 0; a vector and a double: 1, 1; fourteen doubles: 13, 0, the last on the stack; a variadic function: 13, 12); under qemu the jump function enters the trampoline that saves those (dc_fentry_tramp_f2/_f4/_f8/_f13, or all of them with a vector), and a handler that adds 100 to the last floating-point argument (or to a vector's first lane) through regs->fpr / regs->vec and then sets every bit of f0-f13 and v0-v19 leaves each function with the result of the build without the plugins (no record: every register saved).
// REQUIRES: qemu-ppc64le, dyncall-runtime-ppc64le
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM %}
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t.gcc %}
// RUN: %if gcc-plugin-ppc64le %{ %qemu_ppc64le %t.gcc | FileCheck %s --check-prefixes=OUT,REC %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_rewrite list --prologues %t.gcc | FileCheck %s --check-prefix=LIST %}
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -o %t.clang
// RUN: %qemu_ppc64le %t.clang | FileCheck %s --check-prefixes=OUT,REC
// RUN: %dyncall_rewrite list --prologues %t.clang | FileCheck %s --check-prefix=LIST
// the same program without the plugins (Clang's XRay sleds alone): no
// record, f1-f13 and v2-v13 saved
// RUN: %clang --target=powerpc64le-linux-gnu -fxray-instrument -fxray-instrumentation-bundle=function-entry -fno-xray-link-deps -fxray-instruction-threshold=1 -O2 %libdyncall_cflags -c %s -o %t.plain.o
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu %t.plain.o -o %t.plain
// RUN: %qemu_ppc64le %t.plain | FileCheck %s --check-prefixes=OUT,PLAIN
//
// flags: DYNCALL_FN_REC_VEC_COUNT (2) | n << 8 | DYNCALL_FN_REC_VEC2_COUNT
// (128) | m << 16 (| VARIADIC (4)), NO_VEC (1); and DYNCALL_FN_REC_INT_COUNT
// (0x20) | k << 12 with r3.. (int-args-ppc64le.test), not when variadic
// ASM: {{.quad|.8byte}} d1{{$}}
// ASM-NEXT: {{.long|.4byte}} 8610{{( |$)}}
// ASM: {{.quad|.8byte}} hfa3{{$}}
// ASM-NEXT: {{.long|.4byte}} 13218{{( |$)}}
// ASM: {{.quad|.8byte}} fi{{$}}
// ASM-NEXT: {{.long|.4byte}} 4129{{( |$)}}
// ASM: {{.quad|.8byte}} q{{$}}
// ASM-NEXT: {{.long|.4byte}} 12962{{( |$)}}
// ASM: {{.quad|.8byte}} vv{{$}}
// ASM-NEXT: {{.long|.4byte}} 78242{{( |$)}}
// ASM: {{.quad|.8byte}} d14{{$}}
// ASM-NEXT: {{.long|.4byte}} 36258{{( |$)}}
// ASM: {{.quad|.8byte}} var{{$}}
// ASM-NEXT: {{.long|.4byte}} 789894{{( |$)}}
// LIST-DAG: <d1> {{.*}} vecregs=1 vec2regs=0 intregs=2{{$}}
// LIST-DAG: <hfa3> {{.*}} vecregs=3 vec2regs=0 intregs=3{{$}}
// LIST-DAG: <fi> {{.*}} novec=yes sled={{nops|xray}} vecregs=0 intregs=1{{$}}
// LIST-DAG: <q> {{.*}} vecregs=2 vec2regs=0 intregs=3{{$}}
// LIST-DAG: <vv> {{.*}} vecregs=1 vec2regs=1 intregs=3{{$}}
// LIST-DAG: <d14> {{.*}} vecregs=13 vec2regs=0 intregs=8{{$}}
// LIST-DAG: <var> {{.*}} vecregs=13 vec2regs=12 variadic intregs=8{{$}}
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#define VEC_ARGS_HFA
#include "Inputs/vec_args.h"

typedef int v4si __attribute__((vector_size(16)));

NOINLINE long vv(v4si v, double d) { return (v[0] * 10 + v[3]) * 10 + (long)d; }
NOINLINE double d14(double a, double b, double c, double d, double e,
		    double f, double g, double h, double i, double j,
		    double k, double l, double m, double n)
{
	return ((a + b + c + d + e + f + g + h + i + j + k + l) * 10 + m) * 10 +
	       n;
}
#define VEC_ARGS_VAR
#include "Inputs/vec_args.h"

static long calls;

/* data: which register to change (fpr index + 1; -1: q's long double in
 * f1-f2; -2: the first lane of v2; 0: none), then sets every bit of
 * f0-f13 (vs0-vs13) and v0-v19, the volatile ones. */
static void clobber(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	int k = *(const int *)data;

	(void)ret, (void)fn;
	calls++;
	if (k == -1) {
		long double x;

		memcpy(&x, &r->fpr[0], 16);
		x += 100;
		memcpy(&r->fpr[0], &x, 16);
	} else if (k == -2) {
		int lane;

		memcpy(&lane, &r->vec[0][0], 4);
		lane += 100;
		memcpy(&r->vec[0][0], &lane, 4);
	} else if (k > 0) {
		double d;

		memcpy(&d, &r->fpr[k - 1], 8);
		d += 100;
		memcpy(&r->fpr[k - 1], &d, 8);
	}
#define ONES4(a, b, c, d)                                                    \
	"xxleqv " #a "," #a "," #a "\n\txxleqv " #b "," #b "," #b             \
	"\n\txxleqv " #c "," #c "," #c "\n\txxleqv " #d "," #d "," #d "\n\t"
#define SPLAT4(a, b, c, d)                                                   \
	"vspltisw " #a ",-1\n\tvspltisw " #b ",-1\n\tvspltisw " #c           \
	",-1\n\tvspltisw " #d ",-1\n\t"
	__asm__ volatile(ONES4(0, 1, 2, 3) ONES4(4, 5, 6, 7) ONES4(8, 9, 10, 11)
			 "xxleqv 12,12,12\n\txxleqv 13,13,13\n\t"
			 SPLAT4(0, 1, 2, 3) SPLAT4(4, 5, 6, 7)
			 SPLAT4(8, 9, 10, 11) SPLAT4(12, 13, 14, 15)
			 SPLAT4(16, 17, 18, 19)
			 :
			 :
			 : "vs0", "vs1", "vs2", "vs3", "vs4", "vs5", "vs6",
			   "vs7", "vs8", "vs9", "vs10", "vs11", "vs12", "vs13",
			   "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8",
			   "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16",
			   "v17", "v18", "v19");
}

static void hook(const char *name, void *f, const int *k)
{
	unsigned fl = 0;
	int s = dyncall_fn_hook(f, clobber, (void *)k);

	dyncall_fn_flags(f, &fl);
	printf("%s: %d nregs %u %u", name, s, DYNCALL_FN_VEC_NREGS(fl),
	       DYNCALL_FN_VEC2_NREGS(fl));
}

int main(void)
{
	double (*volatile pd1)(double, long) = d1;
	double (*volatile phfa3)(struct h3) = hfa3;
	double (*volatile pfi)(struct fi) = fi;
	long double (*volatile pq)(long double, long) = q;
	long (*volatile pvv)(v4si, double) = vv;
	double (*volatile pd14)(double, double, double, double, double,
				double, double, double, double, double,
				double, double, double, double) = d14;
	double (*volatile pvar)(int, ...) = var;
	static const int k0 = 0, k1 = 1, k3 = 3, kq = -1, kv = -2, k13 = 13;
	struct h3 s = { 1, 2, 3 };
	struct fi t = { 1, 2 };
	v4si v = { 1, 0, 0, 2 };

	// REC:   d1: 0 nregs 1 0 -> 12 1012
	// PLAIN: d1: 0 nregs 13 12 -> 12 1012
	double u = pd1(1, 2);
	hook("d1", (void *)d1, &k1);
	printf(" -> %g %g\n", u, pd1(1, 2));
	// REC-NEXT:   hfa3: 0 nregs 3 0 -> 123 223
	// PLAIN-NEXT: hfa3: 0 nregs 13 12 -> 123 223
	u = phfa3(s);
	hook("hfa3", (void *)hfa3, &k3);
	printf(" -> %g %g\n", u, phfa3(s));
	// REC-NEXT:   fi: 0 nregs 0 0 -> 12 12
	// PLAIN-NEXT: fi: 0 nregs 13 12 -> 12 12
	u = pfi(t);
	hook("fi", (void *)fi, &k0);
	printf(" -> %g %g\n", u, pfi(t));
	// REC-NEXT:   q: 0 nregs 2 0 -> 12 1012
	// PLAIN-NEXT: q: 0 nregs 13 12 -> 12 1012
	long double lu = pq(1, 2);
	hook("q", (void *)q, &kq);
	printf(" -> %Lg %Lg\n", lu, pq(1, 2));
	// REC-NEXT:   vv: 0 nregs 1 1 -> 123 10123
	// PLAIN-NEXT: vv: 0 nregs 13 12 -> 123 10123
	long w = pvv(v, 3);
	hook("vv", (void *)vv, &kv);
	printf(" -> %ld %ld\n", w, pvv(v, 3));
	// REC-NEXT:   d14: 0 nregs 13 0 -> 1234 2234
	// PLAIN-NEXT: d14: 0 nregs 13 12 -> 1234 2234
	u = pd14(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 4);
	hook("d14", (void *)d14, &k13);
	printf(" -> %g %g\n", u, pd14(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 4));
	// OUT-NEXT: var: 0 nregs 13 12 -> 123 123
	u = pvar(3, 1.0, 2.0, 3.0);
	hook("var", (void *)var, &k0);
	printf(" -> %g %g\n", u, pvar(3, 1.0, 2.0, 3.0));
	// OUT-NEXT: calls 7
	printf("calls %ld\n", calls);
	return 0;
}
