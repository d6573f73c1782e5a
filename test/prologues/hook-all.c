// Checks dyncall_fn_list and the hook-everything library (Inputs/hook-all.c, what scripts/heldout/run.sh preloads into unmodified programs): every function of a program built with --dyncall-prologues (integer, double, variadic, struct-by-value, recursive, through a function pointer) hooked by a handler that writes every argument register back and clobbers every caller-saved register, redirected to its own original, both; a DSO dlopen'ed later (its two functions patched at the dlopen); the output equals the plain build's; the counts are exact. x86-64 GCC and Clang (with -fcf-protection), aarch64 GCC and Clang (BTI) and ppc64le GCC under qemu.
// REQUIRES: x86_64, dyncall-runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -shared -fPIC -I%src_root/include %S/Inputs/hook-all.c -o %t/hook-all.so %libdyncall_ldflags
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t/mod.so
// RUN: %clang -O2 -I%src_root/include %s -o %t/plain -ldl %libdyncall_ldflags
// RUN: %t/plain %t/mod.so > %t/plain.out
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 %s -o %t/clang -ldl
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t/gcc -ldl
// RUN: %t/clang %t/mod.so list | FileCheck --check-prefix=LIST %s
// RUN: sh -c 'for p in clang gcc; do for m in none hook redirect both empty; do HOOKALL_MODE=$m HOOKALL_REPORT=%t/$p-$m.rep LD_PRELOAD=%t/hook-all.so %t/$p %t/mod.so > %t/$p-$m.out || exit 1; diff %t/plain.out %t/$p-$m.out || exit 1; done; done'
// RUN: cat %t/clang-none.rep %t/clang-hook.rep %t/clang-redirect.rep %t/clang-both.rep %t/clang-empty.rep | FileCheck --check-prefix=REP %s
// RUN: cat %t/gcc-none.rep %t/gcc-hook.rep %t/gcc-redirect.rep %t/gcc-both.rep %t/gcc-empty.rep | FileCheck --check-prefix=REP %s
// RUN: not env HOOKALL_MODE=bogus LD_PRELOAD=%t/hook-all.so %t/clang %t/mod.so 2>&1 | FileCheck --check-prefix=BAD %s
//
// aarch64 (BTI enforced) and ppc64le under qemu: the guest's LD_PRELOAD through -E.
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ sh -c 'aarch64-linux-gnu-gcc-12 -O2 -shared -fPIC -I%src_root/include %S/Inputs/hook-all.c -o %t/hook-all-a64.so -L%build_dir/lib/aarch64-linux-gnu -ldyncall -Wl,-rpath,%build_dir/lib/aarch64-linux-gnu && %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -mbranch-protection=standard -O2 -fPIC -shared %S/Inputs/module.c -o %t/mod-a64.so && i=0; for c in aarch64-linux-gnu-gcc-12 "%clang --target=aarch64-linux-gnu -fuse-ld=lld"; do i=$((i+1)); %dyncall_cc $c --dyncall-prologues -mbranch-protection=standard -O2 %s -o %t/a64 -ldl || exit 1; for m in hook redirect both; do HOOKALL_MODE=$m HOOKALL_REPORT=%t/a64-$i-$m.rep %qemu_aarch64 -E LD_PRELOAD=%t/hook-all-a64.so %t/a64 %t/mod-a64.so > %t/a64.out || exit 1; diff %t/plain.out %t/a64.out || exit 1; done; done' %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ cat %t/a64-1-hook.rep %t/a64-1-redirect.rep %t/a64-1-both.rep | FileCheck --check-prefix=REP1 %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ cat %t/a64-2-hook.rep %t/a64-2-redirect.rep %t/a64-2-both.rep | FileCheck --check-prefix=REP1 %s %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ sh -c 'powerpc64le-linux-gnu-gcc-12 -O2 -shared -fPIC -I%src_root/include %S/Inputs/hook-all.c -o %t/hook-all-ppc.so -L%build_dir/lib/powerpc64le-linux-gnu -ldyncall -Wl,-rpath,%build_dir/lib/powerpc64le-linux-gnu && %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t/mod-ppc.so && %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 %s -o %t/ppc -ldl && for m in hook redirect both; do HOOKALL_MODE=$m HOOKALL_REPORT=%t/ppc-$m.rep %qemu_ppc64le -E LD_PRELOAD=%t/hook-all-ppc.so %t/ppc %t/mod-ppc.so > %t/ppc.out || exit 1; diff %t/plain.out %t/ppc.out || exit 1; done' %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ cat %t/ppc-hook.rep %t/ppc-redirect.rep %t/ppc-both.rep | FileCheck --check-prefix=REP1 %s %}
//
// LIST: list: {{[1-9][0-9]*}} functions, all found, main listed, count again the same
// LIST-NEXT: list: after dlopen two more
//
// REP: hookall: mode=none fns=[[N:[0-9]+]] patched=0 refused=0 failed=0 calls=0
// REP-NEXT: hookall: mode=hook fns=[[N1:[0-9]+]] patched=[[N1]] refused=0 failed=0 calls=[[CALLS:[1-9][0-9]*]]
// REP-NEXT: hookall: mode=redirect fns=[[N1]] patched=[[N1]] refused=0 failed=0 calls=0
// REP-NEXT: hookall: mode=both fns=[[N1]] patched=[[N1]] refused=0 failed=0 calls=[[CALLS]]
// REP-NEXT: hookall: mode=empty fns=[[N1]] patched=[[N1]] refused=0 failed=0 calls=0
// REP1: hookall: mode=hook fns=[[N1:[0-9]+]] patched=[[N1]] refused=0 failed=0 calls=[[CALLS:[1-9][0-9]*]]
// REP1-NEXT: hookall: mode=redirect fns=[[N1]] patched=[[N1]] refused=0 failed=0 calls=0
// REP1-NEXT: hookall: mode=both fns=[[N1]] patched=[[N1]] refused=0 failed=0 calls=[[CALLS]]
// BAD: hook-all: unknown HOOKALL_MODE 'bogus' (none, hook, redirect, both, empty)
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

struct pt {
	double x, y;
	long tag;
};

NOINLINE long add6(long a, long b, long c, long d, long e, long f)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

NOINLINE double mix(double a, long b, double c, float d, double e, double f,
		    double g, double h, double i)
{
	return a * b + c - d + e * f - g + h * i;
}

NOINLINE long sum_va(int n, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += i & 1 ? (long)va_arg(ap, double) : va_arg(ap, long);
	va_end(ap);
	return s;
}

NOINLINE struct pt scale(struct pt p, double k)
{
	p.x *= k;
	p.y *= k;
	p.tag++;
	return p;
}

NOINLINE long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static long (*volatile fp)(long, long, long, long, long, long) = add6;

int main(int argc, char **argv)
{
	long s = 0;
	double d = 0;

	if (argc > 2) { /* list */
		size_t n = dyncall_fn_list(NULL, 0), k, found = 0;
		void **fns = calloc(n + 1, sizeof(*fns));
		int has_main = 0;
		void *h;

		k = dyncall_fn_list(fns, n);
		for (size_t i = 0; i < n; i++) {
			struct dyncall_fn_info info;

			found += !dyncall_fn_info(fns[i], &info) &&
				 info.fn == fns[i] && !info.status;
			has_main |= fns[i] == (void *)main;
		}
		printf("list: %zu functions, %s, %s, count again %s\n", n,
		       found == n ? "all found" : "NOT all found",
		       has_main ? "main listed" : "main NOT listed",
		       k == n && dyncall_fn_list(fns, 1) == n ? "the same" :
								"DIFFERENT");
		free(fns);
		h = dlopen(argv[1], RTLD_NOW);
		printf("list: after dlopen %s\n",
		       h && dyncall_fn_list(NULL, 0) == n + 2 ? "two more" :
								"WRONG");
		return 0;
	}
	for (long i = 0; i < 200; i++) {
		struct pt p = scale((struct pt){ i * 0.5, i * 0.25, i }, 1.5);

		s += fp(i, i + 1, i + 2, i + 3, i + 4, i + 5);
		s += sum_va(4, i, (double)i * 2, i * 3, 4.0) + p.tag;
		d += mix(i * 0.1, i, 0.2, 0.3f, 0.4, 0.5, 0.6, 0.7, 0.8) + p.x + p.y;
	}
	s += fib(15);
	{
		void *h = dlopen(argv[1], RTLD_NOW);
		long (*m)(long) = h ? (long (*)(long))dlsym(h, "mod_patchable") : NULL;

		s += m ? m(1) + m(2) : -1;
	}
	printf("%ld %.6f\n", s, d);
	return 0;
}
