// Checks the per-function records of patchable prologues (abi.h __dyncall_fn_records, docs/prologues.md "Vector registers"): the LLVM pass and the GCC plugin (12, 11) record DYNCALL_FN_REC_NO_VEC for a patchable function whose parameters pass nothing in vector registers (int args; a struct with a double passed in memory) and DYNCALL_FN_REC_VEC_COUNT with the number of xmm registers otherwise (a double: 1, a struct of two floats: 1, varargs: 8 and DYNCALL_FN_REC_VARIADIC); a function opted out of patching has none; the runtime then hooks each with a jump function that saves exactly those registers (the integer saves after its 46 bytes of guard and frame: the record's DYNCALL_FN_REC_INT_COUNT, all and rax and r10 without one; the movaps of the vector saves), dyncall_fn_flags says which, and the hooks work on all; a build without the plugin has no record (the full save everywhere).  More prototypes and handlers that clobber every vector register: vec-args-x86_64.c.
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefixes=ASM,ASM-CLANG
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefixes=ASM,ASM-GCC
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 -S %s -o - | FileCheck %s --check-prefixes=ASM,ASM-GCC %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t.clang
// RUN: %t.clang | FileCheck %s --check-prefixes=OUT,REC -DRECUPPER=%rec_upper
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t.gcc
// RUN: %t.gcc | FileCheck %s --check-prefixes=OUT,REC -DRECUPPER=%rec_upper
// RUN: %dyncall_rewrite check %t.gcc
// RUN: %dyncall_rewrite check %t.clang
// RUN: %dyncall_rewrite list --prologues %t.gcc | FileCheck %s --check-prefix=LIST
// RUN: %dyncall_rewrite list --prologues %t.clang | FileCheck %s --check-prefix=LIST
// a shared object: the records of its preemptible functions are symbol
// relocations, checked against the file's own definitions
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -fPIC -shared %s -o %t.so
// RUN: %dyncall_rewrite check %t.so
// RUN: %dyncall_rewrite list --prologues %t.so | FileCheck %s --check-prefix=LIST
// RUN: %clang -fpatchable-function-entry=29,24 -falign-functions=8 -O2 %libdyncall_cflags %s -o %t.plain %libdyncall_ldflags
// RUN: %dyncall_rewrite list --prologues %t.plain | FileCheck %s --check-prefix=LIST-PLAIN
// RUN: %t.plain | FileCheck %s --check-prefixes=OUT,PLAIN -DRECUPPER=%rec_upper
//
// One record per patchable function, 16 bytes: the function, its flags, 0.
// ASM-CLANG: .section __dyncall_fn_records,"awo",@progbits,ints,unique,{{[0-9]+}}
// ASM-CLANG-NEXT: .p2align 3
// ASM-CLANG-NEXT: .L__dyncall_fn_record{{.*}}:
// ASM-CLANG-NEXT: .quad ints
// ASM-CLANG-NEXT: .long 8225
// ASM-CLANG-NEXT: .long 0
// ASM-GCC: .pushsection __dyncall_fn_records,"awo",@progbits,ints
// ASM-GCC-NEXT: .p2align 3
// ASM-GCC-NEXT: .8byte ints
// ASM-GCC-NEXT: .4byte 8225
// ASM-GCC-NEXT: .4byte 0
// ASM-GCC-NEXT: .popsection
// (long, int): NO_VEC (1) | DYNCALL_FN_REC_INT_COUNT (0x20), 2 in bits 12-15:
// 0x2021; a double: DYNCALL_FN_REC_VEC_COUNT (2), n = 1 in bits 8-11, no
// integer register: 0x122
// ASM: {{.quad|.8byte}} dbl
// ASM-NEXT: {{.long|.4byte}} 290
// a struct of two floats: one xmm
// ASM: {{.quad|.8byte}} sfl
// ASM-NEXT: {{.long|.4byte}} 290
// a struct of 40 bytes with a double: in memory, no xmm, no integer register
// ASM: {{.quad|.8byte}} sbig
// ASM-NEXT: {{.long|.4byte}} 33
// varargs: VEC_COUNT | VARIADIC (4), n = 8, no INT_COUNT (all saved): 0x806
// ASM: {{.quad|.8byte}} var
// ASM-NEXT: {{.long|.4byte}} 2054
// LIST-DAG: <ints> nops=24+5 {{.*}} novec=yes sled=nops vecregs=0 intregs=2{{$}}
// LIST-DAG: <dbl> nops=24+5 {{.*}} novec=no sled=nops vecregs=1 intregs=0{{$}}
// LIST-DAG: <var> nops=24+5 {{.*}} novec=no sled=nops vecregs=8 variadic intregs=6{{$}}
// LIST-DAG: <sfl> nops=24+5 {{.*}} novec=no sled=nops vecregs=1 intregs=0{{$}}
// LIST-DAG: <sbig> nops=24+5 {{.*}} novec=yes sled=nops vecregs=0 intregs=0{{$}}
// LIST-PLAIN: <ints> nops=24+5 {{.*}} novec=no sled=nops vecregs=-{{$}}
// ASM-NOT: {{(quad|8byte)}} opted_out{{$}}
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

struct fl {
	float a, b;
};
struct big {
	long x[4];
	double d;
};

NOINLINE long ints(long a, int b) { return a + b; }
NOINLINE double dbl(double x) { return 2 * x; }
NOINLINE float sfl(struct fl s) { return s.a + s.b; }
NOINLINE long sbig(struct big s) { return s.x[0] + (long)s.d; }
NOINLINE int var(int n, ...)
{
	va_list ap;
	int r;

	va_start(ap, n);
	r = va_arg(ap, int);
	va_end(ap);
	return r + n;
}
DYNCALL_NOT_PATCHABLE NOINLINE long opted_out(long a) { return a; }

static long count;

static void h(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	(void)fn, (void)ret, (void)r;
	++*(long *)data;
}

/* The jump function Q leads to: Q = f - 8 holds 90 90 90 e9 <rel32>. */
static const uint8_t *jump_function(void *f)
{
	const volatile uint8_t *q = (const volatile uint8_t *)f - 8;
	uint32_t rel = 0;

	if (q[3] != 0xe9)
		return NULL;
	for (int i = 3; i >= 0; i--)
		rel = rel << 8 | q[4 + i];
	return (const uint8_t *)q + 8 + (int32_t)rel;
}

/* Which jump function (test/prologues/jump-function-x86_64.c has one in
 * full): after its 46 bytes of guard and frame, "gprN": the integer
 * register saves (rdi rsi rdx rcx r8 r9 rax, the first N; 7: all and
 * rax), then regs->ret; "xmmN": the number of movaps saves after the
 * vzeroupper of a function with a record (counted in vzus, of jfs);
 * "+r10" when the static chain is saved next. */
static int jfs, vzus, probes, vecjfs;
static const char *form(void *f)
{
	static const uint8_t ret[] = { 0x48, 0x8b, 0x75, 0x08 };
	static const uint8_t r10[] = { 0x4c, 0x89, 0x54, 0x24, 0x08 };
	static const uint8_t movabs_rdi[] = { 0x48, 0xbf };
	static char buf[32];
	const uint8_t *jf = jump_function(f), *p;
	int n = 0, ni = 0, has_r10;

	if (!jf)
		return "none";
	p = jf + 46;
	for (; (p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x89 && p[3] == 0x24;
	     ni++)
		p += 5; /* mov %reg, disp8(%rsp) */
	if (memcmp(p, ret, sizeof(ret)))
		return "other";
	p += 9;
	jfs++;
	/* a function without a record: the probe of the upper halves
	 * (vorps %ymm1, %ymm0, %ymm8 | vpord %zmm1, %zmm0, %zmm8 ...), and the
	 * wide saves it may skip, up to its vzeroupper (upper-state-x86_64.c
	 * has it in full) */
	if ((p[0] == 0xc5 && p[1] == 0x7c && p[2] == 0x56) ||
	    (p[0] == 0x62 && p[1] == 0x71 && p[2] == 0x7d)) {
		probes++;
		while (!(p[0] == 0xc5 && p[1] == 0xf8 && p[2] == 0x77))
			p++;
	}
	if (p[0] == 0xc5 && p[1] == 0xf8 && p[2] == 0x77) { /* vzeroupper */
		vzus++;
		p += 3;
	}
	for (; p[0] == 0x0f && p[1] == 0x29; n++)
		p += (p[2] & 0xc0) == 0x40 ? 5 : 8; /* disp8 | disp32 */
	vecjfs += n > 0;
	has_r10 = !memcmp(p, r10, sizeof(r10));
	if (has_r10)
		p += sizeof(r10);
	if (memcmp(p, movabs_rdi, sizeof(movabs_rdi))) /* the first call */
		return "other";
	snprintf(buf, sizeof(buf), "gpr%d%s xmm%d", ni, has_r10 ? "+r10" : "",
		 n);
	return buf;
}

static void show(const char *name, void *f, unsigned flags)
{
	unsigned fl = 0;
	int s = flags ? dyncall_fn_hook_flags(f, h, &count, flags) :
			dyncall_fn_hook(f, h, &count);
	int q = dyncall_fn_flags(f, &fl);

	printf("%s: %d %d abi %u nregs %u%s int %u %u saved %u %s", name, s, q,
	       fl & DYNCALL_FN_NO_VEC_ABI, DYNCALL_FN_VEC_NREGS(fl),
	       fl & DYNCALL_FN_VARIADIC_ABI ? " variadic" : "",
	       !!(fl & DYNCALL_FN_INT_ABI), DYNCALL_FN_INT_NREGS(fl),
	       (fl & DYNCALL_FN_VEC_SAVED) >> 1, form(f));
}

int main(void)
{
	long (*volatile pints)(long, int) = ints;
	double (*volatile pdbl)(double) = dbl;
	int (*volatile pvar)(int, ...) = var;
	float (*volatile psfl)(struct fl) = sfl;
	long (*volatile psbig)(struct big) = sbig;
	struct fl f = { 1, 2 };
	struct big b = { { 4, 0, 0, 0 }, 3.0 };
	unsigned fl = 7;

	// REC:   ints: 0 0 abi 1 nregs 0 int 1 2 saved 0 gpr2 xmm0 -> 5 count 1
	// PLAIN: ints: 0 0 abi 0 nregs 8 int 0 6 saved 1 gpr7+r10 xmm8 -> 5 count 1
	show("ints", (void *)ints, 0);
	long v = pints(2, 3);
	printf(" -> %ld count %ld\n", v, count);
	// REC-NEXT:   dbl: 0 0 abi 0 nregs 1 int 1 0 saved 1 gpr0 xmm1 -> 3 count 2
	// PLAIN-NEXT: dbl: 0 0 abi 0 nregs 8 int 0 6 saved 1 gpr7+r10 xmm8 -> 3 count 2
	show("dbl", (void *)dbl, 0);
	double d = pdbl(1.5);
	printf(" -> %g count %ld\n", d, count);
	// REC-NEXT:   var: 0 0 abi 0 nregs 8 variadic int 0 6 saved 1 gpr7+r10 xmm8 -> 9 count 3
	// PLAIN-NEXT: var: 0 0 abi 0 nregs 8 int 0 6 saved 1 gpr7+r10 xmm8 -> 9 count 3
	show("var", (void *)var, 0);
	v = pvar(2, 7);
	printf(" -> %ld count %ld\n", v, count);
	// REC-NEXT:   sfl: 0 0 abi 0 nregs 1 int 1 0 saved 1 gpr0 xmm1 -> 3 count 4
	// PLAIN-NEXT: sfl: 0 0 abi 0 nregs 8 int 0 6 saved 1 gpr7+r10 xmm8 -> 3 count 4
	show("sfl", (void *)sfl, 0);
	d = psfl(f);
	printf(" -> %g count %ld\n", d, count);
	// REC-NEXT:   sbig: 0 0 abi 1 nregs 0 int 1 0 saved 0 gpr0 xmm0 -> 7 count 5
	// PLAIN-NEXT: sbig: 0 0 abi 0 nregs 8 int 0 6 saved 1 gpr7+r10 xmm8 -> 7 count 5
	show("sbig", (void *)sbig, 0);
	v = psbig(b);
	printf(" -> %ld count %ld\n", v, count);
	/* the explicit flag still works on an unflagged function */
	dyncall_fn_restore((void *)dbl);
	// REC-NEXT:   dbl no vec: 0 0 abi 0 nregs 1 int 1 0 saved 0 gpr0 xmm0 -> 3 count 6
	// PLAIN-NEXT: dbl no vec: 0 0 abi 0 nregs 8 int 0 6 saved 0 gpr7+r10 xmm0 -> 3 count 6
	show("dbl no vec", (void *)dbl, DYNCALL_FN_NO_VEC);
	d = pdbl(1.5);
	printf(" -> %g count %ld\n", d, count);
	/* restored: no handlers, nothing saved; not patchable: NOFN */
	dyncall_fn_restore((void *)ints);
	// REC-NEXT:   restored: 0 8225; opted out: 1
	// PLAIN-NEXT: restored: 0 26624; opted out: 1
	int q = dyncall_fn_flags((void *)ints, &fl);

	printf("restored: %d %u", q, fl);
	printf("; opted out: %d\n",
	       dyncall_fn_flags((void *)opted_out, &fl) == DYNCALL_ERR_NOFN);
	// OUT-NEXT: bad: 1
	printf("bad: %d\n", dyncall_fn_flags((void *)ints, NULL) ==
				    DYNCALL_ERR_INVAL);
	/* with records, every jump function clears the upper halves first
	 * (where the CPU has AVX: %rec_upper, lit.local.cfg) and none probes
	 * them; without, every one that saves vector registers probes them
	 * first (and clears them after the probe) */
	// REC-NEXT:   vzeroupper: [[RECUPPER]]; probes: none
	// PLAIN-NEXT: vzeroupper: {{all|some|none}}; probes: [[RECUPPER]]
	printf("vzeroupper: %s; ", vzus == jfs ? "all" : vzus ? "some" : "none");
	printf("probes: %s\n", probes == vecjfs ? "all" : probes ? "some" : "none");
	return 0;
}
